import Foundation
import TabdeckProtocol

/// An aggregate's table of groups (PROTOCOL.md 11.12), kept in memory and served with sort,
/// filter and `where` by the protocol's own rules (``Where``): the group columns, then `count`,
/// `percent` and `cumulative`; natural order count descending, then the group cells ascending.
public final class CountTable: @unchecked Sendable {
    public let columns: [ColumnSpec]
    /// The rows in the natural order (ids `g0`, `g1`, …).
    public let rows: [Row]
    public let counted: Int
    public let largest: Int
    private let lock = NSLock()
    private var lastView: (sort: [SortKey], filter: String?, clause: WhereClause, order: [Int])?

    /// The most groups an aggregate keeps (in memory): past this, bins are needed.
    public static let maxGroups = 1_000_000

    public init(groupColumns: [ColumnSpec], groups: [Group]) throws {
        guard groups.count <= Self.maxGroups else {
            throw RPCError(code: RPCError.internalError,
                           message: "more than \(Self.maxGroups) groups: group by fewer columns, or use bins")
        }
        let specs = groupColumns.map { ColumnSpec(id: $0.id, title: $0.title, type: $0.type) }
        columns = specs + AggregateResult.countColumns
        let natural = groups.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            for (k, spec) in specs.enumerated() {
                let c = Self.compare(a.cells[k], b.cells[k], spec)
                if c != 0 { return c < 0 }
            }
            return false
        }
        let total = natural.reduce(0) { $0 + $1.count }
        counted = total
        largest = natural.first?.count ?? 0
        var running = 0
        rows = natural.enumerated().map { i, g in
            running += g.count
            let percent = total == 0 ? 0 : Double(g.count) * 100 / Double(total)
            let cumulative = total == 0 ? 0 : Double(running) * 100 / Double(total)
            return Row(id: "g\(i)", cells: g.cells + [.int(Int64(g.count)), .double(percent), .double(cumulative)])
        }
    }

    public func description(handle: String, title: String, sizes: [String: BinSize]) -> AggregateResult {
        AggregateResult(description: TableDescription(table: handle, title: title, columns: columns, total: rows.count),
                        rows: counted, largest: largest, bins: sizes)
    }

    /// Two cells of a column by the protocol's sort order: nulls smallest, then ``Where/compare``
    /// (cells that do not fit the type after those that do, by their JSON text).
    public static func compare(_ a: JSONValue, _ b: JSONValue, _ spec: ColumnSpec) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default:
            if let c = Where.compare(a, b, type: spec.type) { return c }
            let fa = Where.compare(a, a, type: spec.type) != nil, fb = Where.compare(b, b, type: spec.type) != nil
            if fa != fb { return fa ? -1 : 1 }
            let x = JSONWriter.string(a), y = JSONWriter.string(b)
            return x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        }
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
        lock.lock()
        if let v = lastView, v.sort == sort, v.filter == filter, v.clause == clause { lock.unlock(); return v.order }
        lock.unlock()
        let needle = filter.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        var order = rows.indices.filter { i in
            (needle.map { Self.contains(rows[i].cells, $0) } ?? true) && Where.matches(rows[i].cells, columns: columns, clause)
        }
        if !keys.isEmpty {
            order.sort { i, j in
                for (c, descending) in keys {
                    let x = Self.compare(rows[i].cells[c], rows[j].cells[c], columns[c])
                    if x != 0 { return descending ? x > 0 : x < 0 }
                }
                return i < j
            }
        }
        lock.lock(); lastView = (sort, filter, clause, order); lock.unlock()
        return order
    }

    public func page(_ request: RowsRequest) throws -> RowsResult {
        let order = try order(sort: request.sort, filter: request.filter, clause: request.where)
        let start = min(request.offset, order.count), end = min(request.offset + request.limit, order.count)
        return request.result(order[start..<end].map { rows[$0] }, total: order.count)
    }

    /// The cells of every row (an aggregate of this table).
    public var allCells: [[JSONValue]] { rows.map(\.cells) }
}
