import Foundation
import PostgresBrowser
import TabdeckPluginKit

let version = "1.0.0"
let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "--version" {
    print("tabdeck-postgres \(version) (protocol 1)")
    exit(0)
}
if arguments.count > 1 {
    FileHandle.standardError.write(Data("""
        usage: tabdeck-postgres          speak the Tabdeck plugin protocol on stdin/stdout
                                         (open args: {"url": "postgresql://USER@HOST:PORT/DB[?sslmode=MODE&...]",
                                          "table": "optional SCHEMA.NAME", "sslmode", "sslrootcert", "sslcert", "sslkey":
                                          optional, libpq's TLS settings, the args over the URL over PGSSLMODE,
                                          PGSSLROOTCERT, PGSSLCERT, PGSSLKEY; sslmode disable, allow, prefer (default),
                                          require, verify-ca or verify-full; the password from PGPASSWORD or ~/.pgpass;
                                          application_name from PGAPPNAME, else tabdeck-postgres)
               tabdeck-postgres --version

        """.utf8))
    exit(2)
}

PluginRunner(name: "postgres", version: version, dataSource: PostgresSource(), workers: 3, clock: SystemClock()).run()
