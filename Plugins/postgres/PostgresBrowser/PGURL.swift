import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// Where to connect: parsed from `postgresql://USER@HOST:PORT/DB`. A password in the URL is
/// refused: it comes from `PGPASSWORD` or the `.pgpass` file, never from config.json.
public struct PGTarget: Hashable, Sendable {
    public var user: String
    public var host: String
    public var port: Int
    public var database: String

    public init(user: String, host: String, port: Int, database: String) {
        self.user = user; self.host = host; self.port = port; self.database = database
    }

    /// Parses `url`; errors name `params.args.url` and what is wrong.
    public init(url: String) throws {
        func bad(_ why: String) -> RPCError {
            RPCError.badParams("params.args.url: \(why) (expected postgresql://USER@HOST:PORT/DB)", path: "params.args.url")
        }
        guard let c = URLComponents(string: url), c.scheme == "postgresql" || c.scheme == "postgres" else {
            throw bad("not a postgresql:// URL")
        }
        if c.password != nil { throw bad("a password does not belong in the config; use PGPASSWORD or ~/.pgpass") }
        guard let host = c.host, !host.isEmpty else { throw bad("no host") }
        let user = c.user ?? ProcessInfo.processInfo.environment["PGUSER"] ?? ProcessInfo.processInfo.environment["USER"] ?? ""
        guard !user.isEmpty else { throw bad("no user") }
        let db = String(c.path.drop(while: { $0 == "/" }))
        self.init(user: user.removingPercentEncoding ?? user, host: host, port: c.port ?? 5432, database: db.isEmpty ? user : db)
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
