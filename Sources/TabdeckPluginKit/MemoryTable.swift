import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// A table held in memory (a `query` result, a `describe` table), served with sort, filter
/// and `where` by the protocol's own rules (an aggregate's ``CountTable`` too): natural order = the rows'
/// order as made.
public final class MemoryTable: @unchecked Sendable {
    public let columns: [ColumnSpec]
    public let rows: [Row]
    private let lock = NSLock()
    private var lastView: (sort: [SortKey], filter: String?, clause: WhereClause, order: [Int])?

    public init(columns: [ColumnSpec], rows: [Row]) {
        self.columns = columns; self.rows = rows
    }

    /// The row positions (in the natural order) of a sort, filter and `where`.
    public func order(sort: [SortKey], filter: String?, clause: WhereClause) throws -> [Int] {
        try Where.check(clause, columns: columns)
        var keys: [(Int, Bool)] = []
        for (i, key) in sort.enumerated() {
            guard let c = columns.firstIndex(where: { $0.id == key.column }) else {
                throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
            }
            keys.append((c, key.direction == .descending))
        }
        let needle = filter.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        lock.lock()
        if let v = lastView, v.sort == sort, v.filter == needle, v.clause == clause { lock.unlock(); return v.order }
        lock.unlock()
        var order = rows.indices.filter { i in
            (needle.map { Self.contains(rows[i].cells, $0) } ?? true) && Where.matches(rows[i].cells, columns: columns, clause)
        }
        if !keys.isEmpty {
            order.sort { i, j in
                for (c, descending) in keys {
                    let x = SummaryTexts.compare(rows[i].cells[c], rows[j].cells[c], columns[c])
                    if x != 0 { return descending ? x > 0 : x < 0 }
                }
                return i < j
            }
        }
        lock.lock(); lastView = (sort, needle, clause, order); lock.unlock()
        return order
    }

    /// Whether a filter text is in some cell (ASCII case folded, PROTOCOL.md 11.3).
    public static func contains(_ cells: [JSONValue], _ needle: String) -> Bool {
        cells.contains { cell in
            let text: String
            switch cell {
            case .null: return false
            case .string(let s): text = s
            default: text = JSONWriter.string(cell)
            }
            return text.lowercased().contains(needle)
        }
    }

    public func page(_ request: RowsRequest) throws -> RowsResult {
        let order = try order(sort: request.sort, filter: request.filter, clause: request.where)
        let start = min(request.offset, order.count), end = min(request.offset + request.limit, order.count)
        return request.result(order[start..<end].map { rows[$0] }, total: order.count)
    }

    /// The cells of the rows a filter and `where` keep.
    public func cells(filter: String?, clause: WhereClause) throws -> [[JSONValue]] {
        try order(sort: [], filter: filter, clause: clause).map { rows[$0].cells }
    }
}
