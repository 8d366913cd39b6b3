import TabdeckProtocol

/// How `describe` (PROTOCOL.md 11.13) writes its statistics: cells as text, computed numbers,
/// dates, percentiles and the histogram. Shared by every plugin and the host's spool.
public enum SummaryTexts {
    /// Bins of the histogram.
    public static let histogramBins = 8

    /// Two cells by the column's sort order (11.3, its `order` for text): nulls first, cells
    /// that do not fit the type after those that do (by their JSON text).
    public static func compare(_ a: JSONValue, _ b: JSONValue, _ spec: ColumnSpec) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default:
            if let c = Where.compare(a, b, type: spec.type, order: spec.order) { return c }
            return GroupTable.compare(a, b, spec)
        }
    }

    /// A cell as text: a string as it is, a number as written; nil for null.
    public static func text(_ cell: JSONValue) -> String? {
        switch cell {
        case .null: return nil
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        default: return JSONWriter.string(cell)
        }
    }

    /// A number cell as a double (nil for a cell that is not a finite number).
    public static func number(_ cell: JSONValue) -> Double? {
        switch cell {
        case .int(let i): return Double(i)
        case .double(let d): return d.isFinite ? d : nil
        case .string(let s): return ExactNumber(s, type: .decimal) != nil ? Double(s).flatMap { $0.isFinite ? $0 : nil } : nil
        default: return nil
        }
    }

    /// A computed number as text: whole numbers without a fraction, else the shortest form.
    public static func numberText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// An instant as a date text: `YYYY-MM-DD` at midnight when the column's values are dates
    /// alone, else an ISO 8601 timestamp in UTC (milliseconds when there are any).
    public static func dateText(_ millis: Double, dateOnly: Bool) -> String {
        CivilDate.isoText(millis: Int64(millis.rounded()), dateOnly: dateOnly)
    }

    /// The value at fraction `p` of sorted values, interpolated between the two nearest.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let pos = p * Double(sorted.count - 1)
        let lo = Int(pos.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - Double(lo))
    }

    /// Counts of up to 8 equal-width bins from min to max (one bin when all are equal), each
    /// multiplied by `scale` (a sample's counts scaled to the whole column).
    public static func histogram(_ values: [Double], min lo: Double, max hi: Double, scale: Double = 1) -> String {
        func scaled(_ n: Int) -> String { scale == 1 ? String(n) : String(Int((Double(n) * scale).rounded())) }
        guard hi > lo else { return scaled(values.count) }
        var counts = [Int](repeating: 0, count: histogramBins)
        let width = (hi - lo) / Double(histogramBins)
        for v in values { counts[Swift.min(histogramBins - 1, Swift.max(0, Int(((v - lo) / width).rounded(.down))))] += 1 }
        return counts.map(scaled).joined(separator: " ")
    }
}
