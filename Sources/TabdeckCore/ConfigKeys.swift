import TabdeckProtocol

/// One entry of config.json's `"keys"`: a key name and what it does from now on. The key name
/// and an action's name are checked against the screen's key map when the keys are applied
/// (`KeyMap.applying`), before anything starts; a command line is parsed here.
public struct KeyConfig: Hashable, Sendable {
    /// What a key is bound to.
    public enum Binding: Hashable, Sendable {
        /// An action of the key map, by its name (`sort`, `action-menu`).
        case action(String)
        /// A command line (written `:sort amount desc`), run as if typed; `line` without the `:`.
        case command(Command, line: String)
        /// `null`: the key does nothing.
        case unbind
    }

    /// The key as written (`ctrl-x`, `f5`, `S`).
    public var key: String
    public var binding: Binding
    /// Where it is in the file, for errors (`keys.S`, `keys["ctrl-x"]`).
    public var path: String

    public init(key: String, binding: Binding, path: String) { self.key = key; self.binding = binding; self.path = path }
}

extension WorkspaceConfig {
    /// `"keys": {KEY: ACTION | ":COMMAND LINE" | null}`, in file order.
    static func keyBindings(_ r: JSONReader) throws -> [KeyConfig] {
        guard let keys = try r.optionalObject("keys") else { return [] }
        var out: [KeyConfig] = []
        for (key, value) in keys.object {
            let path = keys.pathOf(key)
            switch value {
            case .null:
                out.append(KeyConfig(key: key, binding: .unbind, path: path))
            case .string(let s) where s.hasPrefix(":"):
                let line = String(s.dropFirst())
                do {
                    guard let command = try CommandParser.parse(line) else {
                        throw JSONFieldError(path: path, reason: "\":\" needs a command line after it (\":sort amount desc\")")
                    }
                    out.append(KeyConfig(key: key, binding: .command(command, line: line.trimmingWhitespace), path: path))
                } catch let e as CommandError {
                    throw JSONFieldError(path: path, reason: "the command line \"\(line)\" does not parse: \(e.description)")
                }
            case .string(let s):
                out.append(KeyConfig(key: key, binding: .action(s), path: path))
            default:
                throw JSONFieldError(path: path, reason: "expected an action name, a \":\" command line or null, got \(value.typeDescription)")
            }
        }
        return out
    }
}
