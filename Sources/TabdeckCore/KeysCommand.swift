import TabdeckProtocol

/// One line of the `keys` command: keys (as config.json names them), the action they run and
/// what it does. The screen's key map makes these (``CoreSettings/keyTable``), so that the
/// `keys` command, `?` help and the screen read the same bindings.
public struct KeyTableEntry: Hashable, Sendable {
    /// Key names as config.json's `keys` takes them (`ctrl-l`, `pgdn`, `S`).
    public var keys: [String]
    /// The action's name (`sort`), or the command line run, `:`-prefixed.
    public var action: String
    /// What it does.
    public var description: String

    public init(keys: [String], action: String, description: String) {
        self.keys = keys; self.action = action; self.description = description
    }
}

extension Workspace {
    /// `keys`: the bindings in force, one a line (`j down   move-down   move down a row`).
    func keysOutput() -> CommandOutput {
        let table = settings.keyTable
        let keyWidth = table.map { DisplayWidth.of($0.keys.joined(separator: " ")) }.max() ?? 0
        let actionWidth = table.map { DisplayWidth.of($0.action) }.max() ?? 0
        let lines = table.map { e in
            let keys = e.keys.joined(separator: " ")
            let action = Sanitizer.clean(e.action)
            return keys + String(repeating: " ", count: keyWidth - DisplayWidth.of(keys) + 2)
                + action + String(repeating: " ", count: actionWidth - DisplayWidth.of(action) + 2) + e.description
        }
        let json: JSONValue = .array(table.map {
            ["keys": .array($0.keys.map { .string($0) }), "action": .string($0.action), "description": .string($0.description)]
        })
        return CommandOutput(text: table.isEmpty ? "no keys are bound" : lines.joined(separator: "\n"), json: json)
    }
}
