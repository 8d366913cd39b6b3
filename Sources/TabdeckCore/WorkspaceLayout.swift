import TabdeckProtocol

/// How the user arranged the workspace: the order of sections and tabs, which tab is in
/// which section, which are hidden, and which is selected. This is what the store keeps
/// and what is merged with config.json on start.
public struct WorkspaceLayout: Hashable, Sendable, Codable {
    /// One tab's place: its id and its section (nil = no section).
    public struct Entry: Hashable, Sendable, Codable {
        public var tab: String
        public var section: String?
        public init(tab: String, section: String?) { self.tab = tab; self.section = section }
    }

    /// Section ids in display order.
    public var sections: [String]
    /// Tabs in display order. Tabs of a section are shown in the order they appear here.
    public var tabs: [Entry]
    /// Hidden tab ids.
    public var hidden: Set<String>
    /// The selected tab id.
    public var selected: String?

    public init(sections: [String] = [], tabs: [Entry] = [], hidden: Set<String> = [], selected: String? = nil) {
        self.sections = sections; self.tabs = tabs; self.hidden = hidden; self.selected = selected
    }
}

/// The user's customization of one column of a table.
public struct ColumnCustomization: Hashable, Sendable, Codable {
    public var id: String
    public var hidden: Bool
    /// A width set by the user, overriding the plugin's hint.
    public var width: Int?
    public init(id: String, hidden: Bool = false, width: Int? = nil) { self.id = id; self.hidden = hidden; self.width = width }
}

/// The per-table view state that survives restarts: sort, columns, scroll and selection.
public struct TableViewState: Hashable, Sendable, Codable {
    public var sort: [SortKey]
    /// Columns in the user's order (columns the plugin adds later go at the end).
    public var columns: [ColumnCustomization]
    /// The first row shown.
    public var scrollOffset: Int
    /// The row under the cursor.
    public var cursor: Int
    /// The selected rows: explicit ids, or all rows (matching ``filter``) but some.
    public var selection: RowSelection
    /// The filter: only rows with this text in a cell (case-insensitive), as the plugin
    /// filters; nil for every row.
    public var filter: String?
    /// The exact filter (`where`): conditions on columns that every row shown meets, applied
    /// together with ``filter``; empty for none.
    public var `where`: WhereClause = []
    /// The expanded rows (`o`), each as the path of row ids from a row of this table down to
    /// it, oldest first; at most ``maxExpanded`` are kept.
    public var expanded: [[String]]

    /// Whether a filter (text or exact) keeps only some rows.
    public var isFiltered: Bool { filter != nil || !`where`.isEmpty }

    /// The most expanded rows a table keeps (the oldest expansions go first).
    public static let maxExpanded = 200

    public init(sort: [SortKey] = [], columns: [ColumnCustomization] = [], scrollOffset: Int = 0, cursor: Int = 0,
                selection: RowSelection = [], filter: String? = nil, expanded: [[String]] = []) {
        self.sort = sort; self.columns = columns; self.scrollOffset = scrollOffset; self.cursor = cursor; self.selection = selection
        self.filter = filter; self.expanded = expanded
    }
}
