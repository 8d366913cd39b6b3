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
