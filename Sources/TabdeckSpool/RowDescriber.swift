import TabdeckPluginKit
import TabdeckProtocol

/// Feeds a spooled table's rows that pass the filters of a view (``RowKeep``) to the kit's
/// ``TableSummary`` for `describe` (PROTOCOL.md 11.13): one pass over the records, one row's
/// cells at a time, memory bounded by the summary's limits, never for the rows.
struct RowDescriber {
    let columns: [ColumnSpec]
    let keep: RowKeep?
    let limits: ColumnSummary.Limits

    func summarize(base: UnsafeRawPointer?, offsets: UnsafePointer<UInt64>?, count n: Int) -> TableSummary {
        var summary = TableSummary(columns: columns, limits: limits)
        guard let base, let offsets, n > 0 else { return summary }
        let text = keep?.text.flatMap { $0.isEmpty ? nil : RowFilter($0) }
        let clause = keep?.where ?? []
        var cells = [JSONValue](repeating: .null, count: columns.count)
        var scratch: [UInt8] = []
        for row in 0..<n {
            var r = RecordReader(base: base, at: Int(offsets[row]))
            r.skipHeader()
            let start = r
            if let text, !text.passes(&r, columns: columns.count, scratch: &scratch) { continue }
            r = start
            for position in 0..<columns.count { cells[position] = GroupCounter.value(r.cell(), r) }
            if !clause.isEmpty, !Where.matches(cells, columns: columns, clause) { continue }
            summary.add(cells)
        }
        return summary
    }
}
