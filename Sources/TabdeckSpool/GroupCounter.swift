import TabdeckProtocol

/// Counts a spooled table's rows by the cells of its group columns (PROTOCOL.md 11.12), under
/// the filters of the view (``RowKeep``): one pass over the records, decoding only the cells
/// that the groups and the `where` conditions need. Memory for the distinct groups only, never
/// for the rows.
struct GroupCounter {
    /// The most distinct value combinations a count keeps (before bins merge them).
    static let maxGroups = 1_000_000

    let columns: [ColumnSpec]
    /// The positions of the group columns among `columns`, in the order asked.
    let indexes: [Int]
    let keep: RowKeep?
    var limit = GroupCounter.maxGroups

    /// The groups (cells of the group columns, in first-seen order) and how many rows passed.
    /// Nil when more than `limit` groups were found.
    func count(base: UnsafeRawPointer?, offsets: UnsafePointer<UInt64>?, count n: Int) -> (groups: [Group], rows: Int)? {
        guard let base, let offsets, n > 0 else { return ([], 0) }
        let text = keep?.text.flatMap { $0.isEmpty ? nil : RowFilter($0) }
        let clause = keep?.where ?? []
        var needed = [Bool](repeating: false, count: columns.count)
        for i in indexes { needed[i] = true }
        for c in clause { if let i = columns.firstIndex(where: { $0.id == c.column }) { needed[i] = true } }
        let last = needed.lastIndex(of: true) ?? -1
        var cells = [JSONValue](repeating: .null, count: columns.count)
        var scratch: [UInt8] = []
        var index: [[GroupKey]: Int] = [:]
        let types = indexes.map { columns[$0].type }
        var groups: [Group] = []
        var passed = 0
        for row in 0..<n {
            var r = RecordReader(base: base, at: Int(offsets[row]))
            r.skipHeader()
            let start = r
            if let text, !text.passes(&r, columns: columns.count, scratch: &scratch) { continue }
            r = start
            var position = 0
            while position <= last {
                let cell = r.cell()
                if needed[position] { cells[position] = Self.value(cell, r) }
                position += 1
            }
            if !clause.isEmpty, !Where.matches(cells, columns: columns, clause) { continue }
            passed += 1
            let key = indexes.indices.map { GroupKey(cells[indexes[$0]], type: types[$0]) }
            if let g = index[key] {
                groups[g].count += 1
            } else {
                guard groups.count < limit else { return nil }
                index[key] = groups.count
                groups.append(Group(cells: indexes.map { cells[$0] }, count: 1))
            }
        }
        return (groups, passed)
    }

    /// A stored cell as the wire's value (as ``RowRecord/row(_:at:columns:)`` decodes it).
    static func value(_ cell: RecordCell, _ r: RecordReader) -> JSONValue {
        switch cell.tag {
        case .null: return .null
        case .no: return .bool(false)
        case .yes: return .bool(true)
        case .int: return .int(Int64(bitPattern: cell.word))
        case .double: return .double(Double(bitPattern: cell.word))
        case .text: return .string(r.string(cell.text))
        case .json:
            let text = r.bytes(cell.text).assumingMemoryBound(to: UInt8.self)
            return (try? JSONParser.parse(text)) ?? .string(r.string(cell.text))
        }
    }

    /// Two cells of a group column in the natural order of an aggregate table: nulls smallest,
    /// then the column's sort order (``Where/compare(_:_:type:order:)``); cells that do not fit
    /// the type after those that do, by their JSON text.
    static func compare(_ a: JSONValue, _ b: JSONValue, _ spec: ColumnSpec) -> Int {
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

    /// The rows of an aggregate table from its groups: natural order (count descending, then the
    /// group cells ascending), ids `g0`, `g1`, …, cells the group cells, `count`, `percent`
    /// (count × 100 / rows) and `cumulative`.
    static func table(_ groups: [Group], groupColumns: [ColumnSpec]) -> (rows: [Row], counted: Int, largest: Int) {
        let natural = groups.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            for (k, spec) in groupColumns.enumerated() {
                let c = compare(a.cells[k], b.cells[k], spec)
                if c != 0 { return c < 0 }
            }
            return false
        }
        let total = natural.reduce(0) { $0 + $1.count }
        var running = 0
        let rows = natural.enumerated().map { i, g in
            running += g.count
            let percent = total == 0 ? 0 : Double(g.count) * 100 / Double(total)
            let cumulative = total == 0 ? 0 : Double(running) * 100 / Double(total)
            return Row(id: "g\(i)", cells: g.cells + [.int(Int64(g.count)), .double(percent), .double(cumulative)])
        }
        return (rows, total, natural.first?.count ?? 0)
    }
}

/// A group column's cell as a count tells groups apart: numbers of an integer or decimal
/// column by their value (`3`, `3.0` and `"3.00"` are one group, shown as the first seen; a
/// double by its shortest text, as `where` compares it: ``Where/number(_:_:)``), every other
/// cell as it is.
enum GroupKey: Hashable {
    case number(ExactNumber)
    case cell(JSONValue)

    init(_ cell: JSONValue, type: ColumnType) {
        if type == .integer || type == .decimal, let n = Where.number(cell, type) {
            self = .number(n)
        } else {
            self = .cell(cell)
        }
    }
}
