import Foundation
import TabdeckProtocol

/// `actions` (PROTOCOL.md 10.7, 11.6): every listed action is known to the plugin, an action it
/// does not list is refused, and actions whose title says they destroy data are flagged.
///
/// The checker never runs an action on real rows (it could delete them): it sends each listed
/// action with a row id no table has (or, for `rows: none` with a required field, with an empty
/// form; one without is not sent), and the same
/// request for an action id the table does not list. A listed action must be answered otherwise
/// than the unlisted one (an error naming the row or a missing field, or a result); an answer
/// identical to the unlisted action's means the plugin does not know it.
enum ActionsCheck {
    static let noSuchRow = "conformance-no-such-row"
    static let noSuchAction = "conformance-no-such-action"
    /// Words of a title that say the action destroys data.
    static let destroyingWords = ["delete", "remove", "drop", "kill", "erase", "destroy", "purge", "wipe", "trash", "truncate"]

    /// Hotkeys that never run their action (``HotkeyClaim``): a key the host binds, or one an
    /// earlier action claimed (PROTOCOL.md 10.7).
    static func hotkeyClashes(_ actions: [ActionSpec], hostKeys: [Character: String]) -> [String] {
        HotkeyClaim.of(actions) { hostKeys[$0] != nil }.compactMap { action, key, claim in
            switch claim {
            case .owns: nil
            case .hostKey: "action \(action.id)'s hotkey \"\(key)\" is the host's key for \"\(hostKeys[key]!)\": the host's key wins, so the hotkey never runs the action (PROTOCOL.md 10.7)"
            case .takenBy(let first): "action \(action.id)'s hotkey \"\(key)\" is already action \(first)'s: the first action keeps it (PROTOCOL.md 10.7)"
            }
        }
    }

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.actions else {
            ctx.record(CheckResult(name: "actions", status: .skipped, summary: "not run: the plugin does not declare actions"))
            return
        }
        if ctx.skipReason(.table) != nil {
            ctx.check("actions", needs: .table) { _ in "" }
            return
        }
        guard let table = ctx.table, !table.actions.isEmpty else {
            ctx.record(CheckResult(name: "actions", status: .skipped, summary: "not run: the table lists no actions"))
            return
        }
        ctx.check("actions", needs: .table) { (f) throws(CheckAbort) in
            let unknownParams = params(table.table, noSuchAction, rows: .one)
            let unknown = try ctx.call(Method.action, unknownParams)
            switch unknown {
            case .success(let value):
                f.fail("an action the table does not list (\(noSuchAction)) was answered with a result (\(OrderCheck.clip(JSONWriter.string(value), 60))): unknown actions get error -32602 (PROTOCOL.md 11.6)")
            case .failure(let error) where error.code == RPCError.methodNotFound:
                throw CheckAbort(reason: "action answered error -32601 (method not found), yet the plugin declares actions and lists \(table.actions.count): it must answer action requests (PROTOCOL.md 11.6)")
            case .failure: break
            }
            for warning in hotkeyClashes(table.actions, hostKeys: ctx.options.hostKeys) { f.warn(warning) }
            for action in table.actions {
                if !action.destructive, let word = destroyingWord(action) {
                    f.fail("action \(action.id) (\"\(OrderCheck.clip(action.title, 40))\") says \"\(word)\" but is not flagged destructive: an action that destroys data sets \"destructive\": true (PROTOCOL.md 10.7)")
                }
                if action.rows == .none && !action.input.contains(where: \.required) {
                    f.note("\(action.id) not called: it acts on the table itself and has no required field to refuse")
                    continue
                }
                let sent = params(table.table, action.id, rows: action.rows)
                let answer = try ctx.call(Method.action, sent)
                switch (answer, unknown) {
                case (.failure(let error), _) where error.code == RPCError.methodNotFound:
                    f.fail("action \(action.id) answered error -32601 (method not found) (PROTOCOL.md 11.6)")
                case (.failure(let mine), .failure(let theirs)) where sameAnswer(mine, action.id, theirs):
                    f.fail("action \(action.id) is listed but answered exactly as the unlisted action \(noSuchAction) (error \(mine.code): \(OrderCheck.clip(mine.message, 60))): every listed action must be callable (PROTOCOL.md 10.7)")
                case (.failure(let error), _) where error.message.trimmingCharacters(in: .whitespaces).isEmpty:
                    f.fail("action \(action.id) answered error \(error.code) with an empty message: the message is shown to the user (PROTOCOL.md 11.6)")
                case (.success(let value), _):
                    if value != .null, value.objectValue == nil {
                        f.fail("action \(action.id) answered \(OrderCheck.clip(JSONWriter.string(value), 60)), expected an object (PROTOCOL.md 11.6)")
                    } else if let message = value.objectValue?["message"], message != .null, message.stringValue == nil {
                        f.fail("action \(action.id): message is \(message.typeDescription), expected a string (PROTOCOL.md 11.6)")
                    }
                default: break
                }
            }
            let flagged = table.actions.filter(\.destructive).map(\.id)
            guard f.failures.isEmpty else { return "\(table.actions.count) actions: not every one is callable and flagged as it should be" }
            return "\(table.actions.count) actions callable (tried on a row no table has); an unlisted one refused"
                + (flagged.isEmpty ? "" : "; destructive: \(flagged.joined(separator: ", "))")
        }
    }

    /// The error for a listed action is the unlisted action's, the action's id standing in for
    /// the unlisted one's (`unknown action rename` and `unknown action conformance-no-such-action`).
    static func sameAnswer(_ mine: RPCError, _ id: String, _ theirs: RPCError) -> Bool {
        mine.code == theirs.code
            && mine.message.replacingOccurrences(of: id, with: "<action>") == theirs.message.replacingOccurrences(of: noSuchAction, with: "<action>")
    }

    /// The params of an action request that cannot touch real data.
    static func params(_ table: String, _ action: String, rows: ActionRows) -> JSONValue {
        let ids: [JSONValue] = rows == .none ? [] : [.string(noSuchRow)]
        var o: JSONObject = ["table": .string(table), "action": .string(action), "rows": .array(ids)]
        if rows == .none { o["input"] = .object([:]) }
        return .object(o)
    }

    /// The first word of the action's id or title that says it destroys data.
    static func destroyingWord(_ action: ActionSpec) -> String? {
        let words = (action.id + " " + action.title).lowercased().split { !$0.isLetter }.map(String.init)
        return words.first { destroyingWords.contains($0) }
    }
}
