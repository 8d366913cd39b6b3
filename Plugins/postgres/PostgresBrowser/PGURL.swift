import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// Where to connect: parsed from `postgresql://USER@HOST:PORT/DB`, optionally followed by the
/// TLS settings of ``PGTLS`` as query parameters (`?sslmode=verify-full&sslrootcert=/ca.pem`,
/// read by ``parameters(url:)``). A password in the URL is refused: it comes from `PGPASSWORD` or
/// the `.pgpass` file, never from config.json.
public struct PGTarget: Hashable, Sendable {
    public var user: String
    public var host: String
    public var port: Int
    public var database: String

    public init(user: String, host: String, port: Int, database: String) {
        self.user = user; self.host = host; self.port = port; self.database = database
    }

    /// Parses `url` (its query too, see ``parameters(url:)``); errors name `params.args.url` and
    /// what is wrong.
    public init(url: String) throws {
        let c = try Self.components(url)
        if c.password != nil { throw Self.bad("a password does not belong in the config; use PGPASSWORD or ~/.pgpass") }
        _ = try Self.parameters(c)
        guard let host = c.host, !host.isEmpty else { throw Self.bad("no host") }
        let user = c.user ?? ProcessInfo.processInfo.environment["PGUSER"] ?? ProcessInfo.processInfo.environment["USER"] ?? ""
        guard !user.isEmpty else { throw Self.bad("no user") }
        let db = String(c.path.drop(while: { $0 == "/" }))
        self.init(user: user.removingPercentEncoding ?? user, host: host, port: c.port ?? 5432, database: db.isEmpty ? user : db)
    }

    /// The query parameters of `url` by name, percent-decoded: the TLS settings (``PGTLS/keys``).
    /// Any other name, a name given twice or one without a value is an error naming
    /// `params.args.url` (a misspelt `sslmode` must not quietly mean plaintext).
    public static func parameters(url: String) throws -> [String: String] {
        try parameters(try components(url))
    }

    private static func parameters(_ c: URLComponents) throws -> [String: String] {
        var found: [String: String] = [:]
        for item in c.queryItems ?? [] {
            guard PGTLS.keys.contains(item.name) else {
                throw bad("unknown parameter \"\(item.name)\" (known: \(PGTLS.keys.joined(separator: ", ")))")
            }
            guard found[item.name] == nil else { throw bad("\(item.name) is given twice") }
            guard let value = item.value else { throw bad("\(item.name) has no value") }
            found[item.name] = value
        }
        return found
    }

    private static func components(_ url: String) throws -> URLComponents {
        guard let c = URLComponents(string: url), c.scheme == "postgresql" || c.scheme == "postgres" else {
            throw bad("not a postgresql:// URL")
        }
        return c
    }

    private static func bad(_ why: String) -> RPCError {
        RPCError.badParams("params.args.url: \(why) (expected postgresql://USER@HOST:PORT/DB?sslmode=MODE&...)", path: "params.args.url")
    }

    /// The password: `PGPASSWORD`, else the first matching line of `PGPASSFILE` or `~/.pgpass`
    /// (`host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped).
    public func password(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["PGPASSWORD"] { return p }
        let file = environment["PGPASSFILE"] ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass")
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        return Self.passFileLookup(text, target: self)
    }

    /// The password for `target` in the text of a `.pgpass` file.
    public static func passFileLookup(_ text: String, target: PGTarget) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = [], current = "", escaped = false
            for ch in line {
                if escaped { current.append(ch); escaped = false } else if ch == "\\" { escaped = true }
                else if ch == ":" && fields.count < 4 { fields.append(current); current = "" } else { current.append(ch) }
            }
            fields.append(current)
            guard fields.count == 5 else { continue }
            let wanted = [target.host, String(target.port), target.database, target.user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// `user@host:port/db`, for messages (never with a password).
    public var display: String { "\(user)@\(host):\(port)/\(database)" }
}
