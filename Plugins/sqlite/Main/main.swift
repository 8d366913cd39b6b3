import Foundation
import SQLiteBrowser
import TabdeckPluginKit

let version = "1.0.0"
let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "--version" {
    print("tabdeck-sqlite \(version) (protocol 1)")
    exit(0)
}
if arguments.count > 1 {
    FileHandle.standardError.write(Data("""
        usage: tabdeck-sqlite            speak the Tabdeck plugin protocol on stdin/stdout
                                         (open args: {"path": "db.sqlite", "table": "optional"})
               tabdeck-sqlite --version

        """.utf8))
    exit(2)
}

PluginRunner(name: "sqlite", version: version, dataSource: SQLiteSource(), workers: 3, clock: SystemClock()).run()
