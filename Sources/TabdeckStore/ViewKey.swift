/// Identifies one table's saved view: a tab, and a table inside it.
public struct ViewKey: Hashable, Sendable, CustomStringConvertible {
    /// The tab id (config.json's customization id).
    public var tab: String
    /// "" for the tab's root table; for a drill-down table, the path key the app builds
    /// from the row ids it drilled through.
    public var table: String

    /// The key of `tab`'s root table (`table` "") or of one of its drill-down tables.
    public init(tab: String, table: String = "") { self.tab = tab; self.table = table }

    /// "tab" or "tab/table", for messages.
    public var description: String { table.isEmpty ? tab : "\(tab)/\(table)" }
}
