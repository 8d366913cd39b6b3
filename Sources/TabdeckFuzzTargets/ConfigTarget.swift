import TabdeckCore
import TabdeckProtocol
import TabdeckTerminal

/// config.json as a person writes it by hand.
///
/// Invariants: any bytes give a configuration or a ``ConfigError`` that names a place (the file,
/// and a line and column or a JSON path); no error text carries a raw control character. The
/// `"keys"` bindings are applied to the key map too, as the runtime does at start.
enum ConfigTarget {
    static let target = FuzzTarget(
        name: "config",
        summary: "config.json: a configuration or an error naming file and place, with no raw control character",
        check: check)

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        do {
            let config = try WorkspaceConfig.parse(bytes, file: "/w/config.json", directory: "/w")
            _ = try KeyMap.standard.applying(config.keys, file: config.file)
            for tab in config.tabs where tab.id.unicodeScalars.contains(where: Sanitizer.isUnsafe) {
                return FuzzViolation("config", "a tab id holds no control character", "\(excerpt(bytes)): id \(String(reflecting: tab.id))")
            }
            return nil
        } catch {
            let text = error.description
            if let bad = text.unicodeScalars.first(where: Sanitizer.isUnsafe) {
                return FuzzViolation("config", "no raw control character in an error",
                                     "\(excerpt(bytes)): U+\(String(bad.value, radix: 16)) in \(String(reflecting: text))")
            }
            guard error.file == "/w/config.json", text.hasPrefix("/w/config.json"),
                  (error.line != nil && error.column != nil) || !error.path.isEmpty || isWholeFile(error, bytes) else {
                return FuzzViolation("config", "an error names the file and the place", "\(excerpt(bytes)): \(String(reflecting: text))")
            }
            return nil
        }
    }

    /// An error without a line or a path is about the file as a whole: only right when the
    /// file is valid JSON whose top level is not an object (there is no finer place to name).
    static func isWholeFile(_ error: ConfigError, _ bytes: [UInt8]) -> Bool {
        guard error.path.isEmpty, error.line == nil, let root = try? JSONParser.parse(bytes) else { return false }
        if case .object = root { return false }
        return true
    }
}
