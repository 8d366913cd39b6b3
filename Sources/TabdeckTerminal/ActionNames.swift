import TabdeckCore

/// Every action of the key map has a stable kebab-case name: help shows it, the `keys` command
/// lists it and config.json's `"keys"` binds keys to it.
extension Action {
    /// The actions a key can be bound to by name, in the order errors list them.
    public static let named: [Action] = [
        .moveDown, .moveUp, .pageDown, .pageUp, .top, .bottom, .columnLeft, .columnRight, .nextTab, .previousTab,
    ] + (1...9).map { Action.selectTab($0) } + [
        .sort, .clearSort, .toggleSelection, .open, .expand, .back, .detail, .detailLine, .find, .findNext, .findPrevious,
        .moveColumnLeft, .moveColumnRight, .hideColumn, .narrowColumn, .widenColumn, .resetColumns, .editTabs,
        .sectionIndex, .filter, .frequency, .describe, .command, .help, .dismiss, .refresh, .redraw, .actions, .moveRowUp, .moveRowDown,
        .copyRow, .copySelection, .suspend, .quit,
    ]

    /// The action's name (`sort`, `action-menu`, `tab-3`); a bound command line is `:` and the line.
    public var name: String {
        switch self {
        case .moveDown: "move-down"
        case .moveUp: "move-up"
        case .pageDown: "page-down"
        case .pageUp: "page-up"
        case .top: "top"
        case .bottom: "bottom"
        case .columnLeft: "column-left"
        case .columnRight: "column-right"
        case .nextTab: "next-tab"
        case .previousTab: "previous-tab"
        case .selectTab(let n): "tab-\(n)"
        case .sort: "sort"
        case .clearSort: "clear-sort"
        case .toggleSelection: "toggle-selection"
        case .open: "open"
        case .back: "back"
        case .detail: "detail"
        case .find: "find"
        case .findNext: "find-next"
        case .findPrevious: "find-previous"
        case .sectionIndex: "section-index"
        case .command: "command-line"
        case .filter: "filter"
        case .frequency: "frequency"
        case .describe: "describe"
        case .help: "help"
        case .dismiss: "dismiss"
        case .editTabs: "edit-tabs"
        case .moveColumnLeft: "move-column-left"
        case .moveColumnRight: "move-column-right"
        case .hideColumn: "hide-column"
        case .narrowColumn: "narrow-column"
        case .widenColumn: "widen-column"
        case .resetColumns: "reset-columns"
        case .actions: "action-menu"
        case .moveRowUp: "move-row-up"
        case .moveRowDown: "move-row-down"
        case .refresh: "refresh"
        case .expand: "expand"
        case .detailLine: "detail-line"
        case .redraw: "redraw"
        case .copyRow: "copy-row"
        case .copySelection: "copy-selection"
        case .suspend: "suspend"
        case .typed(_, let line): ":" + line
        case .quit: "quit"
        }
    }

    /// The action called `name`, nil if there is none.
    public init?(named name: String) {
        guard let a = Self.named.first(where: { $0.name == name }) else { return nil }
        self = a
    }
}
