import TabdeckProtocol

/// The `describe` statistics (PROTOCOL.md 11.13) of every column of a table, fed one row at a
/// time: one ``ColumnSummary`` per column.
public struct TableSummary {
    public private(set) var columns: [ColumnSummary]

    public init(columns: [ColumnSpec], limits: ColumnSummary.Limits = .standard) {
        self.columns = columns.map { ColumnSummary(spec: $0, limits: limits) }
    }

    /// Adds a row's cells (missing cells are null).
    public mutating func add(_ cells: [JSONValue]) {
        for k in columns.indices { columns[k].add(k < cells.count ? cells[k] : .null) }
    }

    /// The describe rows, one per column, with ``DescribeRequest/columns``.
    public var rows: [Row] { columns.map { $0.row() } }

    /// The describe columns whose values are estimates in some row, in their order.
    public var estimates: [String] {
        let flagged = Set(columns.flatMap(\.estimates))
        return DescribeRequest.columns.map(\.id).filter(flagged.contains)
    }
}
