/// What can go wrong in a spool: always names the place (file, table, column, plugin).
public enum SpoolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A spool file could not be created, written or mapped; `path` names it.
    case file(path: String, message: String)
    /// A sort key names a column the table does not have.
    case unknownColumn(String, table: String)
    /// A sort key names a column in its source's own order (`order: source`), which only the
    /// plugin can sort by.
    case sourceOrder(String, table: String)
    /// The plugin's rows could not be read (a bad `rows/chunk` or `rows` result).
    case badRows(tab: String, table: String, reason: String)
    /// An `aggregate` found more groups than the spool keeps (``GroupCounter/maxGroups``).
    case tooManyGroups(Int, table: String)
    /// The core cancelled the request (`$/cancel`) while the spool worked on it.
    case cancelled(table: String)

    public var description: String {
        switch self {
        case .file(let path, let message): "spool \(path): \(message)"
        case .unknownColumn(let column, let table): "no column \"\(column)\" in spooled table \(table)"
        case .sourceOrder(let column, let table):
            "column \"\(column)\" of spooled table \(table) is in its source's own order (\"order\": \"source\"), which only the plugin can sort by"
        case .badRows(let tab, let table, let reason): "plugin \(tab), table \(table): bad rows: \(reason)"
        case .tooManyGroups(let limit, let table):
            "spooled table \(table) has more than \(limit) groups: group by fewer columns, or use bins"
        case .cancelled(let table): "spooled table \(table): cancelled"
        }
    }
}
