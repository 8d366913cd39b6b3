import TabdeckCore

extension KeyMap {
    /// This key map with config.json's `"keys"` applied in file order: each key first loses
    /// whatever it did, then runs the action named, the command line, or nothing (`null`).
    /// A key name or action name that does not exist is a ``ConfigError`` naming the file, the
    /// key's place and what is valid (the caller stops before anything starts).
    public func applying(_ keys: [KeyConfig], file: String) throws(ConfigError) -> KeyMap {
        var map = self
        for k in keys {
            guard let key = Key(configName: k.key) else {
                throw ConfigError(file: file, path: k.path, reason: "unknown key name \"\(k.key)\"; valid key names: \(Key.validNames)")
            }
            for i in map.bindings.indices { map.bindings[i].keys.removeAll { $0 == key } }
            switch k.binding {
            case .unbind:
                break
            case .action(let name):
                guard let action = Action(named: name) else {
                    let names = Action.named.map(\.name)
                    let hint = CommandParser.suggest(name, among: names).map { " (did you mean \($0)?)" } ?? ""
                    throw ConfigError(file: file, path: k.path, reason: "unknown action \"\(name)\"\(hint); valid: an action of "
                                      + "the key map (\(names.joined(separator: ", "))), a command line starting with \":\", or null")
                }
                if let i = map.bindings.firstIndex(where: { $0.action == action }) {
                    map.bindings[i].keys.append(key)
                } else {
                    map.bindings.append(KeyBinding([key], action, action.name))
                }
            case .command(let command, let line):
                map.bindings.append(KeyBinding([key], .typed(command, line: line), "run as if typed"))
            }
        }
        return map
    }

    /// The bindings in force as the `keys` command lists them (config.json's key names).
    public var table: [KeyTableEntry] {
        bindings.filter { !$0.keys.isEmpty }.map {
            KeyTableEntry(keys: $0.keys.compactMap(\.configName), action: $0.action.name, description: $0.description)
        }
    }
}
