import TabdeckCore

/// What a key does in the workspace.
public enum Action: Hashable, Sendable {
    case moveDown, moveUp, pageDown, pageUp, top, bottom
    /// Move the column cursor.
    case columnLeft, columnRight
    case nextTab, previousTab
    /// Select the visible tab at this 1-based position.
    case selectTab(Int)
    /// Sort by the column under the cursor (again: flip; the seed semantics).
    case sort
    case clearSort
    case toggleSelection
    /// Open the cursor row (drill down).
    case open
    case back
    case detail
    case find
    /// Find the next (previous) row with the last find text, through the whole table.
    case findNext, findPrevious
    /// Open the section index (type a section's first letters to jump there).
    case sectionIndex
    /// Open the `:` command line.
    case command
    /// Open the command line with `filter ` typed: keep only the rows with a text.
    case filter
    /// The frequency view of the cursor's column (`freq COL`).
    case frequency
    /// The describe view of the table (`describe`).
    case describe
    case help
    /// Close help, the detail view or the find.
    case dismiss
    /// Enter tab edit mode: move, hide and show tabs, reorder sections (``TabEditKeys``).
    case editTabs
    /// Move the column under the cursor left or right (the column cursor follows it).
    case moveColumnLeft, moveColumnRight
    /// Hide the column under the cursor.
    case hideColumn
    /// Narrow or widen the column under the cursor by ``ScreenModel/columnWidthStep`` cells.
    case narrowColumn, widenColumn
    /// Show every column again, in the plugin's order, at its automatic width.
    case resetColumns
    /// Open the menu of the plugin's actions for the cursor row or the selection.
    case actions
    /// Move the cursor row up (down) where the plugin allows it.
    case moveRowUp, moveRowDown
    /// Fetch the view again (restart the tab's plugin when it is down), the cursor on its row.
    case refresh
    /// Expand or collapse the cursor row's children in place.
    case expand
    /// Show or hide the cursor row's detail line under it.
    case detailLine
    /// Draw the whole screen again.
    case redraw
    /// Copy the cursor row (the selected rows, with a header line) to the clipboard.
    case copyRow, copySelection
    /// A command line from config.json's `"keys"`, run as if typed (`line` as written, without `:`).
    case typed(Command, line: String)
    /// Stop Tabdeck as a shell's Ctrl-Z does (`fg` brings it back).
    case suspend
    case quit
}

extension Action {
    /// What the command line shows typed when this action opens it (nil: it does not).
    public var promptText: String? {
        switch self {
        case .command: ""
        case .filter: "filter "
        default: nil
        }
    }
}

/// Keys bound to one action, with the description help shows.
public struct KeyBinding: Hashable, Sendable {
    /// The keys (any of them triggers the action).
    public var keys: [Key]
    /// What they do.
    public var action: Action
    /// What help says about them.
    public var description: String

    /// Binds `keys` to `action`.
    public init(_ keys: [Key], _ action: Action, _ description: String) {
        self.keys = keys; self.action = action; self.description = description
    }
}

/// The workspace's keys, kept as data: the single source for dispatching keys and for help.
public struct KeyMap: Hashable, Sendable {
    /// The bindings, in the order help lists them (the first binding of a key wins).
    public var bindings: [KeyBinding]

    /// A key map made of these bindings.
    public init(bindings: [KeyBinding]) { self.bindings = bindings }

    /// The keys of issue 3.
    public static let standard = KeyMap(bindings: [
        KeyBinding([.down, .char("j")], .moveDown, "move down a row"),
        KeyBinding([.up, .char("k")], .moveUp, "move up a row"),
        KeyBinding([.pageDown], .pageDown, "next page"),
        KeyBinding([.pageUp], .pageUp, "previous page"),
        KeyBinding([.char("g"), .home], .top, "first row"),
        KeyBinding([.char("G"), .end], .bottom, "last row (when counted)"),
        KeyBinding([.left, .char("h")], .columnLeft, "column cursor left"),
        KeyBinding([.right, .char("l")], .columnRight, "column cursor right"),
        KeyBinding([.tab, .char("]")], .nextTab, "next tab"),
        KeyBinding([.backTab, .char("[")], .previousTab, "previous tab"),
    ] + (1...9).map { n in
        KeyBinding([.char(Character(String(n)))], .selectTab(n), "tab by position")
    } + [
        KeyBinding([.char("s")], .sort, "sort by the column under the cursor (again: reverse)"),
        KeyBinding([.char("S")], .clearSort, "clear the sort"),
        KeyBinding([.char(" ")], .toggleSelection, "select or unselect the row"),
        KeyBinding([.enter], .open, "open the row (drill down)"),
        KeyBinding([.char("o")], .expand, "expand or collapse the row's children in place (▸ ▾)"),
        KeyBinding([.backspace], .back, "back up one level"),
        KeyBinding([.char("d")], .detail, "detail view of the row"),
        KeyBinding([.char("v")], .detailLine, "show or hide the row's detail line under it"),
        KeyBinding([.char("/")], .find, "find in the whole table (Esc stops a long find)"),
        KeyBinding([.char("n")], .findNext, "find the next row"),
        KeyBinding([.char("N")], .findPrevious, "find the previous row"),
        KeyBinding([.char("<")], .moveColumnLeft, "move the column left"),
        KeyBinding([.char(">")], .moveColumnRight, "move the column right"),
        KeyBinding([.char("-")], .hideColumn, "hide the column (:column show COL shows it)"),
        KeyBinding([.char("{")], .narrowColumn, "narrow the column"),
        KeyBinding([.char("}")], .widenColumn, "widen the column"),
        KeyBinding([.char("=")], .resetColumns, "reset the columns: all shown, plugin's order and widths"),
        KeyBinding([.char("T")], .editTabs, "customize tabs: move, hide, reorder sections"),
        KeyBinding([.char("i")], .sectionIndex, "section index: type a section's first letters to jump there"),
        KeyBinding([.char("f")], .filter, "filter: keep only rows with a text (:filter clear shows all)"),
        KeyBinding([.char("F")], .frequency, "frequency view: rows per value of the column (Enter opens one)"),
        KeyBinding([.char("I")], .describe, "describe: statistics of every column (Enter: its frequency view)"),
        KeyBinding([.char(":")], .command, "command line"),
        KeyBinding([.char("?")], .help, "this help"),
        KeyBinding([.escape], .dismiss, "close help, detail, find or error; cancel a job"),
        KeyBinding([.char("r")], .refresh, "fetch the rows again (restarts the tab's plugin when it is down)"),
        KeyBinding([.ctrl("l")], .redraw, "redraw the screen"),
        KeyBinding([.char("a")], .actions, "actions menu for the row or the selection"),
        KeyBinding([.char("K")], .moveRowUp, "move the row up (where the plugin allows it)"),
        KeyBinding([.char("J")], .moveRowDown, "move the row down (where the plugin allows it)"),
        KeyBinding([.char("y")], .copyRow, "copy the row to the clipboard (tab-separated)"),
        KeyBinding([.char("Y")], .copySelection, "copy the selected rows to the clipboard, with a header line"),
        KeyBinding([.ctrl("z")], .suspend, "suspend to the shell (fg comes back)"),
        KeyBinding([.char("q"), .ctrl("c")], .quit, "quit"),
    ])

    /// The printable keys this map binds, each with what help says it does (the first binding
    /// of a key wins): an action's hotkey among them never reaches the action.
    public var printableKeys: [Character: String] {
        var out: [Character: String] = [:]
        for binding in bindings {
            for case .char(let c) in binding.keys where out[c] == nil { out[c] = binding.description }
        }
        return out
    }

    /// The action bound to `key`, if any.
    public func action(for key: Key) -> Action? {
        bindings.first { $0.keys.contains(key) }?.action
    }

    /// Help lines: key names, and the action's name with its description (`sort: sort by the
    /// column…`). Consecutive bindings with the same description share a line (`1–9`, named
    /// `tab-1…tab-9`). Bindings without keys (unbound in config.json) are left out.
    public var helpEntries: [(keys: String, description: String)] {
        var out: [(keys: [Key], names: [String], description: String)] = []
        for b in bindings where !b.keys.isEmpty {
            if let last = out.last, last.description == b.description {
                out[out.count - 1].keys += b.keys
                out[out.count - 1].names.append(b.action.name)
            } else {
                out.append((b.keys, [b.action.name], b.description))
            }
        }
        return out.map { e in
            let name = e.names.count > 1 ? "\(e.names.first!)…\(e.names.last!)" : e.names[0]
            return (Self.label(e.keys), name.hasPrefix(":") ? "\(name) (\(e.description))" : "\(name): \(e.description)")
        }
    }

    /// `↓ j`, or `1–9` for a run of digits.
    static func label(_ keys: [Key]) -> String {
        let digits = keys.compactMap { key -> Int? in
            if case .char(let c) = key { return c.wholeNumberValue } else { return nil }
        }
        if keys.count > 2, digits.count == keys.count, digits == Array(digits[0]...(digits[0] + digits.count - 1)) {
            return "\(digits.first!)–\(digits.last!)"
        }
        return keys.map(\.name).joined(separator: " ")
    }
}
