import TabdeckProtocol

/// Which rows a filtered view keeps: those with the text in a cell (``RowFilter``, PROTOCOL.md
/// 11.3) and meeting every condition of the exact filter (``Where``, 11.11). The spool's key
/// for a filtered view's rows and count.
public struct RowKeep: Hashable, Sendable {
    public var text: String?
    public var `where`: WhereClause

    public init(text: String? = nil, where clause: WhereClause = []) { self.text = text; self.where = clause }

    /// The filters of a `rows` request; nil when it keeps every row.
    public init?(_ request: RowsRequest) {
        guard request.filter != nil || !request.where.isEmpty else { return nil }
        self.init(text: request.filter, where: request.where)
    }

    /// The rows among `0..<count` that pass, ascending.
    func rows(base: UnsafeRawPointer?, offsets: UnsafePointer<UInt64>?, count: Int, columns: [ColumnSpec]) -> [Int] {
        guard let base, let offsets else { return [] }
        let candidates = text.map { RowFilter($0).rows(base: base, offsets: offsets, count: count, columns: columns.count) }
        guard !`where`.isEmpty else { return candidates ?? Array(0..<count) }
        var kept: [Int] = []
        for row in candidates ?? Array(0..<count) {
            guard case .array(let cells)? = RowRecord.row(base, at: Int(offsets[row]), columns: columns.count)["cells"] else { continue }
            if Where.matches(cells, columns: columns, `where`) { kept.append(row) }
        }
        return kept
    }
}
