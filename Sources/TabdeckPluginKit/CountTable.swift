import Foundation
import TabdeckProtocol

/// An aggregate's table of groups (PROTOCOL.md 11.12), kept in memory and served with sort,
/// filter and `where` by the protocol's own rules (``Where``): the group columns, then `count`,
/// `percent` and `cumulative`; natural order count descending, then the group cells ascending.
public final class CountTable: @unchecked Sendable {
    /// The group columns, then `count`, `percent` and `cumulative`, rows in the natural order
    /// (``GroupTable``), served like any table in memory.
    public let table: MemoryTable
    public var columns: [ColumnSpec] { table.columns }
    /// The rows in the natural order (ids `g0`, `g1`, …).
    public var rows: [Row] { table.rows }
    public let counted: Int
    public let largest: Int

    /// The most groups an aggregate keeps (in memory): past this, bins are needed.
    public static let maxGroups = 1_000_000

    public init(groupColumns: [ColumnSpec], groups: [Group]) throws {
        guard groups.count <= Self.maxGroups else {
            throw RPCError(code: RPCError.internalError,
                           message: "more than \(Self.maxGroups) groups: group by fewer columns, or use bins")
        }
        let specs = groupColumns.map { ColumnSpec(id: $0.id, title: $0.title, type: $0.type) }
        let made = GroupTable.rows(groups, groupColumns: specs)
        table = MemoryTable(columns: specs + AggregateResult.countColumns, rows: made.rows)
        counted = made.counted
        largest = made.largest
    }

    public func description(handle: String, title: String, sizes: [String: BinSize]) -> AggregateResult {
        AggregateResult(description: TableDescription(table: handle, title: title, columns: columns, total: rows.count),
                        rows: counted, largest: largest, bins: sizes)
    }

    /// The row positions (in the natural order) of a sort, filter and `where`.
    public func order(sort: [SortKey], filter: String?, clause: WhereClause) throws -> [Int] {
        try table.order(sort: sort, filter: filter, clause: clause)
    }

    public func page(_ request: RowsRequest) throws -> RowsResult { try table.page(request) }

    /// The cells of every row (an aggregate of this table).
    public var allCells: [[JSONValue]] { rows.map(\.cells) }
}
