import TabdeckProtocol

/// Keys as config.json's `"keys"` names them: a character as itself (`"S"`, `"?"`), `ctrl-x`,
/// `alt-x`, `enter`, `esc`, `tab`, `shift-tab`, `backspace`, `space`, `up`, `down`, `left`,
/// `right`, `home`, `end`, `pgup`, `pgdn`, `f1` to `f12`.
extension Key {
    /// The named keys, in the order errors list them.
    static let configNames: [(String, Key)] = [
        ("enter", .enter), ("esc", .escape), ("tab", .tab), ("shift-tab", .backTab), ("backspace", .backspace),
        ("space", .char(" ")), ("up", .up), ("down", .down), ("left", .left), ("right", .right),
        ("home", .home), ("end", .end), ("pgup", .pageUp), ("pgdn", .pageDown),
    ] + (1...12).map { ("f\($0)", Key.function($0)) }

    /// What config.json accepts as a key name, for errors.
    public static let validNames = "a character as itself (\"S\", \"?\"), ctrl-x, alt-x, "
        + configNames.filter { if case .function = $0.1 { false } else { true } }.map(\.0).joined(separator: ", ") + ", f1 to f12"

    /// The key config.json calls `name`, nil if no key has that name.
    public init?(configName name: String) {
        if let named = Self.configNames.first(where: { $0.0 == name }) { self = named.1; return }
        if name.count == 1, let c = name.first, !c.unicodeScalars.contains(where: Sanitizer.isUnsafe) {
            self = .char(c); return
        }
        for (prefix, make) in [("ctrl-", Key.ctrl), ("alt-", Key.alt)] where name.hasPrefix(prefix) && name.count == prefix.count + 1 {
            let c = name.last!
            if prefix == "ctrl-" {
                // The terminal sends Ctrl with a letter (or Space) only, and the same byte for upper and lower case.
                guard c == " " || (c.isASCII && c.isLetter) else { return nil }
                self = .ctrl(Character(c.lowercased())); return
            }
            guard c != " ", !c.unicodeScalars.contains(where: Sanitizer.isUnsafe) else { return nil }
            self = make(c); return
        }
        return nil
    }

    /// The name config.json gives this key (`ctrl-l`, `pgdn`, `S`), nil for keys it cannot bind.
    public var configName: String? {
        if let named = Self.configNames.first(where: { $0.1 == self }) { return named.0 }
        switch self {
        case .char(let c): return String(c)
        case .ctrl(let c): return "ctrl-" + String(c)
        case .alt(let c): return "alt-" + String(c)
        default: return nil
        }
    }
}
