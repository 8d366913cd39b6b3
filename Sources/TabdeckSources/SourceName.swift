/// The id and title of a tab opened from the command line. The id is the source's canonical
/// path or URL (so opening it again finds its stored view state); the title is short.
public struct SourceName: Hashable, Sendable {
    public var id: String
    public var title: String

    public init(id: String, title: String) { self.id = id; self.title = title }

    /// A file or folder at its canonical path (absolute, symbolic links resolved).
    public static func path(_ canonical: String) -> SourceName {
        let name = canonical.split(separator: "/").last.map(String.init) ?? "/"
        return SourceName(id: canonical, title: name)
    }
}

/// A `postgresql://` (or `postgres://`) URL, taken apart so that its password goes nowhere but
/// the plugin's environment: not into the tab's id, title, args, logs or stored state.
public struct PostgresURL: Hashable, Sendable {
    /// The URL without its password (`postgresql://ann@db.example:5432/shop?sslmode=require`):
    /// the tab's id and the plugin's `url` arg.
    public var url: String
    /// The password the URL held (percent-decoded), for `PGPASSWORD`; nil if none.
    public var password: String?
    /// `user@host/db`.
    public var title: String

    /// Whether `text` is meant as a PostgreSQL URL.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// Takes `text` apart; nil if it is not a PostgreSQL URL.
    public init?(_ text: String) {
        guard Self.isURL(text), let colon = text.firstIndex(of: ":") else { return nil }
        let rest = text[colon...].dropFirst(3)  // "://"
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = String(rest[authorityEnd...])
        var user: Substring?
        var hosts = authority
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            hosts = authority[authority.index(after: at)...]
            if let colon = info.firstIndex(of: ":") {
                user = info[..<colon]
                password = Self.percentDecoded(info[info.index(after: colon)...])
            } else {
                user = info
            }
        }
        // A password in the query (`?password=...`) goes the same way.
        if let q = tail.firstIndex(of: "?") {
            let path = tail[..<q]
            var kept: [Substring] = []
            for item in tail[tail.index(after: q)...].split(separator: "&") {
                if item.lowercased().hasPrefix("password=") {
                    password = Self.percentDecoded(item.dropFirst("password=".count))
                } else {
                    kept.append(item)
                }
            }
            tail = String(path) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        }
        self.url = "postgresql://" + (user.map { $0 + "@" } ?? "") + hosts + tail
        self.password = password
        let db = tail.dropFirst().prefix { $0 != "?" }
        let host = hosts.split(separator: ",").first.map { h -> Substring in
            // `host:port` and `[v6]:port` without the port.
            if h.hasPrefix("["), let close = h.firstIndex(of: "]") { return h[...close] }
            return h.split(separator: ":", maxSplits: 1).first ?? h
        } ?? ""
        var title = (user.map { Self.percentDecoded($0) + "@" } ?? "") + host
        if !db.isEmpty { title += "/" + Self.percentDecoded(db) }
        self.title = title.isEmpty ? "postgresql" : title
    }

    /// `%XX` escapes decoded (invalid ones kept as written).
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i < utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "%"), let h1 = utf8.index(i, offsetBy: 1, limitedBy: utf8.endIndex), h1 < utf8.endIndex,
               let h2 = utf8.index(i, offsetBy: 2, limitedBy: utf8.endIndex), h2 < utf8.endIndex,
               let hi = hexValue(utf8[h1]), let lo = hexValue(utf8[h2]) {
                bytes.append(hi << 4 | lo)
                i = utf8.index(after: h2)
            } else {
                bytes.append(b)
                i = utf8.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
