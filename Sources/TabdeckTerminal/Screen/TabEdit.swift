import TabdeckCore

/// Tab edit mode (`T`): the tab under the edit cursor, and whether `R` waits for its y/n.
/// The cursor is a tab id, so it stays on its tab while the tab moves.
public struct TabEdit: Hashable, Sendable {
    /// The tab under the cursor (hidden tabs included).
    public var cursor: String
    /// `R` asked "reset to config.json's order?" and waits for `y` (anything else keeps the order).
    public var confirmingReset: Bool

    /// Edit mode with the cursor on `cursor`.
    public init(cursor: String, confirmingReset: Bool = false) {
        self.cursor = cursor; self.confirmingReset = confirmingReset
    }
}

extension UIState {
    /// Tab edit mode's state while it is on (the sidebar and the tab bar draw its cursor).
    public var tabEdit: TabEdit? {
        if case .tabEdit(let edit) = mode { edit } else { nil }
    }
}

/// What a key does in tab edit mode.
public enum TabEditAction: Hashable, Sendable {
    /// Move the edit cursor to the previous (next) tab, hidden ones included.
    case cursorUp, cursorDown
    /// Move the tab up (down) one place; from the first (last) place of its section into the
    /// previous (next) section.
    case moveUp, moveDown
    /// Hide the tab, or show it again.
    case toggleHidden
    /// Move the cursor tab's section up (down) one place.
    case sectionUp, sectionDown
    /// Ask to reset tabs and sections to config.json's order (`tab reset`).
    case reset
    /// Leave edit mode.
    case leave
}

/// One key binding of tab edit mode: the keys, what they do, and the label the status line
/// shows (nil: not shown there).
public struct TabEditBinding: Hashable, Sendable {
    public var keys: [Key]
    public var action: TabEditAction
    /// The status line's words for these keys (`x hide/show`), or nil.
    public var hint: String?
    /// The same, shorter, for narrow terminals (`x hide`).
    public var shortHint: String?
    /// What help says.
    public var description: String

    init(keys: [Key], action: TabEditAction, hint: String? = nil, short: String? = nil, description: String) {
        self.keys = keys; self.action = action; self.hint = hint; self.shortHint = short ?? hint; self.description = description
    }
}

/// Tab edit mode's keys, kept as data: the single source for dispatching them and for the
/// status line's hints.
public enum TabEditKeys {
    /// The bindings, in the order the status line and help list them.
    public static let bindings: [TabEditBinding] = [
        .init(keys: [.char("K")], action: .moveUp, hint: "K/J move", description: "move the tab up (from the top of a section into the previous one)"),
        .init(keys: [.char("J")], action: .moveDown, description: "move the tab down (from the bottom of a section into the next one)"),
        .init(keys: [.char("x")], action: .toggleHidden, hint: "x hide/show", short: "x hide", description: "hide the tab, or show it again"),
        .init(keys: [.char("{")], action: .sectionUp, hint: "{/} section", short: "{} sect", description: "move the tab's section up"),
        .init(keys: [.char("}")], action: .sectionDown, description: "move the tab's section down"),
        .init(keys: [.char("R")], action: .reset, hint: "R reset", description: "reset tabs and sections to config.json's order (asks first)"),
        .init(keys: [.enter, .escape, .char("T"), .ctrl("c")], action: .leave, hint: "Esc done", description: "leave tab edit mode"),
        .init(keys: [.up, .char("k"), .left, .char("h")], action: .cursorUp, description: "cursor to the previous tab"),
        .init(keys: [.down, .char("j"), .right, .char("l")], action: .cursorDown, description: "cursor to the next tab"),
    ]

    /// The action bound to `key` in edit mode, if any.
    public static func action(for key: Key) -> TabEditAction? {
        bindings.first { $0.keys.contains(key) }?.action
    }

    /// `K/J move · x hide/show · {/} section · R reset · Esc done`.
    public static var hints: String {
        bindings.compactMap(\.hint).joined(separator: " · ")
    }

    /// `K/J move x hide {} sect R reset Esc done`: the hints in 40 cells.
    public static var shortHints: String {
        bindings.compactMap(\.shortHint).joined(separator: " ")
    }
}

/// What a tab edit key comes to: a typed command to run, or a refusal to show.
enum TabEditOutcome: Hashable {
    case run(Command)
    case refuse(String)
}

/// The arithmetic of tab edit mode over a layout (pure).
enum TabEditing {
    /// The edit list in groups: the tabs without a section (when there are any), then every
    /// section in order, empty ones included (so a tab can move into them).
    static func groups(_ layout: WorkspaceLayout) -> [(section: String?, tabs: [String])] {
        var out: [(section: String?, tabs: [String])] = []
        let loose = layout.tabs.filter { $0.section == nil }.map(\.tab)
        if !loose.isEmpty { out.append((nil, loose)) }
        for s in layout.sections { out.append((s, layout.tabs.filter { $0.section == s }.map(\.tab))) }
        return out
    }

    /// `K`/`J`: the command that moves `id` one place up or down in the edit list, across a
    /// section border into the neighbouring section (at its bottom going up, at its top going down).
    static func move(_ id: String, down: Bool, _ ws: Workspace) -> TabEditOutcome {
        guard let config = ws.config.tab(id) else { return .refuse("no tab \(id)") }
        guard config.customizable else { return .refuse(config.refusal("move")) }
        let groups = groups(ws.layout)
        guard let g = groups.firstIndex(where: { $0.tabs.contains(id) }) else { return .refuse("no tab \(id)") }
        let tabs = groups[g].tabs
        let p = tabs.firstIndex(of: id)!
        if down {
            if p + 1 < tabs.count { return .run(.tabMove(id, .after(tabs[p + 1]))) }
            guard g + 1 < groups.count else { return .refuse("\(config.title) is the last tab already") }
            let next = groups[g + 1]
            return .run(next.tabs.first.map { .tabMove(id, .before($0)) } ?? .tabMove(id, .toSection(next.section!)))
        }
        if p > 0 { return .run(.tabMove(id, .before(tabs[p - 1]))) }
        guard g > 0 else { return .refuse("\(config.title) is the first tab already") }
        let previous = groups[g - 1]
        return .run(previous.tabs.last.map { .tabMove(id, .after($0)) } ?? .tabMove(id, .toSection(previous.section!)))
    }

    /// `x`: hide the tab, or show it when it is hidden.
    static func toggleHidden(_ id: String, _ ws: Workspace) -> TabEditOutcome {
        guard let config = ws.config.tab(id) else { return .refuse("no tab \(id)") }
        if ws.layout.hidden.contains(id) { return .run(.tabShow(id)) }
        guard config.customizable else { return .refuse(config.refusal("hide")) }
        return .run(.tabHide(id))
    }

    /// `{`/`}`: move the section of tab `id` one place up or down.
    static func moveSection(of id: String, down: Bool, _ ws: Workspace) -> TabEditOutcome {
        let title = ws.config.tab(id)?.title ?? id
        guard let section = ws.layout.tabs.first(where: { $0.tab == id })?.section else {
            return .refuse("\(title) is in no section (tabs without a section always come first)")
        }
        let sections = ws.layout.sections
        let i = sections.firstIndex(of: section)!
        let name = ws.config.section(section)?.title ?? section
        if down {
            guard i + 1 < sections.count else { return .refuse("section \(name) is the last one already") }
            return .run(.sectionMove(section, i + 2))
        }
        guard i > 0 else { return .refuse("section \(name) is the first one already") }
        return .run(.sectionMove(section, i))
    }
}
