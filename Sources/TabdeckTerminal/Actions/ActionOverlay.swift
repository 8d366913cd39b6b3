import TabdeckCore
import TabdeckProtocol

/// The rows an action would go to, as the menu and the dialog say it.
public enum ActionTarget: Hashable, Sendable {
    /// No row is selected: the cursor row (nil when the table is empty).
    case cursor(String?)
    /// Rows are selected: how many (nil: all rows of a table not counted yet).
    case selected(Int?, all: Bool)

    /// The target of the selected tab's table now.
    static func of(_ t: TableState) -> ActionTarget {
        let selection = t.view.selection
        if selection.isAll { return .selected(selection.count(total: t.total), all: true) }
        let n = selection.count(total: t.total) ?? 0
        return n == 0 ? .cursor(t.cache.row(at: t.view.cursor)?.id) : .selected(n, all: false)
    }

    /// Why `action` cannot go to these rows (a one-row action while several are selected), nil
    /// when it can: `Rename takes one row; 3 are selected`.
    func refusal(of action: ActionSpec) -> String? {
        guard action.rows == .one, case .selected(let n, let all) = self, all || n != 1 else { return nil }
        let selected = all ? (n.map { "all \(formatCount($0)) rows are" } ?? "all rows are") : "\(formatCount(n ?? 0)) are"
        return "\(Sanitizer.clean(action.title)) takes one row; \(selected) selected"
    }

    /// How many rows `action` would go to: `3 rows`, `1 row`, `all 1,000 rows`, `no rows`.
    func describe(for action: ActionSpec) -> String {
        switch (action.rows, self) {
        case (.none, _): "no rows"
        case (_, .cursor(let id)): id == nil ? "no row" : "1 row"
        case (.one, .selected(let n, _)) where n == 1: "1 row"
        case (.one, .selected): "1 row only"
        case (.many, .selected(let n, let all)):
            all ? (n.map { "all \(formatCount($0)) rows" } ?? "all rows") : n == 1 ? "1 row" : "\(formatCount(n ?? 0)) rows"
        }
    }
}

/// The menu of the table's actions (`a`): one entry per action, a cursor on one of them.
public struct ActionMenu: Hashable, Sendable {
    public var actions: [ActionSpec]
    public var cursor: Int
    public var target: ActionTarget
    /// The hotkeys that work (those the key map leaves free), per action id.
    public var hotkeys: [String: Character]
}

/// The question asked before an action that has `confirm` or `destructive`: No unless `y`.
public struct ActionConfirm: Hashable, Sendable {
    public var action: ActionSpec
    public var target: ActionTarget
    /// The values of its form, when it had one.
    public var input: [String: String]

    /// `Delete 3 rows? y/n`.
    public var question: String {
        let rows = target.describe(for: action)
        return Sanitizer.clean(action.title) + (action.rows == .none ? "" : " " + rows) + "? y/n"
    }
}

/// The form of an action with `input`: one text per field, a focused field, the last error.
public struct ActionForm: Hashable, Sendable {
    public var action: ActionSpec
    public var target: ActionTarget
    /// The text of each field, in the order of `action.input`.
    public var values: [String]
    public var focus: Int
    /// Why the form was not sent (names the field). Cleared once that field is corrected.
    public var error: ActionInputError?
    /// Fields edited since the form opened: the first character typed into a field that still
    /// holds its default replaces it (Backspace edits the default instead).
    public var edited: Set<Int> = []

    /// A form with each field's default.
    init(action: ActionSpec, target: ActionTarget) {
        self.action = action; self.target = target
        values = action.input.map(\.defaultText)
        focus = 0
    }

    /// The typed values by field id (empty ones too: a field left out would take its default).
    public var typed: [String: String] {
        var out: [String: String] = [:]
        for (field, value) in zip(action.input, values) { out[field.id] = value }
        return out
    }
}

/// What the action keys show over the table: the menu, the question, or the form.
public enum ActionOverlay: Hashable, Sendable {
    case menu(ActionMenu)
    case confirm(ActionConfirm)
    case form(ActionForm)
}
