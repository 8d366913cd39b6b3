/// Who gets each action hotkey (PROTOCOL.md 10.7): the host's own keys win, and the first
/// action to claim a key keeps it. The one statement of that rule: the screen keeps the
/// hotkeys that work, the checker warns of the others.
public enum HotkeyClaim: Hashable, Sendable {
    /// The action's hotkey runs it.
    case owns
    /// The host uses the key (or cannot offer it): the hotkey never runs the action.
    case hostKey
    /// An earlier action (this id) claimed the key.
    case takenBy(String)

    /// Each action with a hotkey, in order, with its key and what became of it.
    /// `isHostKey`: whether the host keeps the key for itself.
    public static func of(_ actions: [ActionSpec], isHostKey: (Character) -> Bool) -> [(action: ActionSpec, key: Character, claim: HotkeyClaim)] {
        var owner: [Character: String] = [:]
        return actions.compactMap { action in
            guard let key = action.hotkey else { return nil }
            if isHostKey(key) { return (action, key, .hostKey) }
            if let first = owner[key] { return (action, key, .takenBy(first)) }
            owner[key] = action.id
            return (action, key, .owns)
        }
    }
}
