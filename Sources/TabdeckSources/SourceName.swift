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
        schemeLength(Array(text.utf8.prefix(13))) != nil
    }

    /// The length of `postgresql://` or `postgres://` (any case) at the start of `bytes`.
    static func schemeLength(_ bytes: [UInt8]) -> Int? {
        let lower = bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        for scheme in ["postgresql://", "postgres://"] where lower.starts(with: Array(scheme.utf8)) { return scheme.utf8.count }
        return nil
    }

    /// Takes `text` apart; nil if it is not a PostgreSQL URL. Works on the UTF-8 bytes, cut at
    /// ASCII delimiters only (so every piece is whole UTF-8, whatever combines with what).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let scheme = Self.schemeLength(Array(bytes.prefix(13))) else { return nil }
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"), at = UInt8(ascii: "@"), colon = UInt8(ascii: ":")
        let rest = bytes[scheme...]
        let authorityEnd = rest.firstIndex { $0 == slash || $0 == question } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = Array(rest[authorityEnd...])
        var user: ArraySlice<UInt8>?
        var hosts = authority
        var password: String?
        if let sign = authority.lastIndex(of: at) {
            let info = authority[..<sign]
            hosts = authority[(sign + 1)...]
            if let c = info.firstIndex(of: colon) {
                user = info[..<c]
                password = Self.percentDecoded(info[(c + 1)...])
            } else {
                user = info
            }
        }
        // A password in the query (`?password=...`) goes the same way.
        if let q = tail.firstIndex(of: question) {
            var kept: [ArraySlice<UInt8>] = []
            for item in tail[(q + 1)...].split(separator: UInt8(ascii: "&")) {
                let key = Array("password=".utf8)
                if item.count >= key.count && item.prefix(key.count).map({ (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }) == key {
                    password = Self.percentDecoded(item.dropFirst(key.count))
                } else {
                    kept.append(item)
                }
            }
            tail = Array(tail[..<q]) + (kept.isEmpty ? [] : [question] + Array(kept.joined(separator: [UInt8(ascii: "&")])))
        }
        let safe = Array("postgresql://".utf8) + (user.map { Array($0) + [at] } ?? []) + Array(hosts) + tail
        self.url = String(decoding: safe, as: UTF8.self)
        self.password = password
        let db = tail.dropFirst().prefix { $0 != question }
        var host = hosts.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).first ?? []
        // `host:port` and `[v6]:port` without the port.
        if host.first == UInt8(ascii: "["), let close = host.firstIndex(of: UInt8(ascii: "]")) {
            host = host[...close]
        } else if let c = host.firstIndex(of: colon) {
            host = host[..<c]
        }
        var title = (user.map { Self.percentDecoded($0) + "@" } ?? "") + String(decoding: host, as: UTF8.self)
        if !db.isEmpty && tail.first == slash { title += "/" + Self.percentDecoded(db) }
        self.title = title.isEmpty ? "postgresql" : title
    }

    /// `%XX` escapes decoded (invalid ones kept as written).
    static func percentDecoded(_ text: ArraySlice<UInt8>) -> String {
        var bytes: [UInt8] = []
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == UInt8(ascii: "%"), i + 2 < text.endIndex, let hi = hexValue(text[i + 1]), let lo = hexValue(text[i + 2]) {
                bytes.append(hi << 4 | lo)
                i += 3
            } else {
                bytes.append(text[i])
                i += 1
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
