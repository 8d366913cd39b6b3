import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// The statistics of `describe` (PROTOCOL.md 11.13), computed over the cells of a column.
public enum ColumnStats {
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
            return CountTable.compare(a, b, spec)
        }
    }

    /// A cell as text: a string as it is, a number as written.
    public static func text(_ cell: JSONValue) -> String? {
        switch cell {
        case .null: return nil
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        default: return JSONWriter.string(cell)
        }
    }

    /// A number cell as a double (nil for a cell that is not a number).
    static func number(_ cell: JSONValue) -> Double? {
        switch cell {
        case .int(let i): return Double(i)
        case .double(let d): return d.isFinite ? d : nil
        case .string(let s): return ExactNumber(s, type: .decimal) != nil ? Double(s).flatMap { $0.isFinite ? $0 : nil } : nil
        default: return nil
        }
    }

    /// A computed number as text: whole numbers without a fraction, else the shortest form.
    static func numberText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// An instant as a date text: `YYYY-MM-DD` at midnight when the column's values are dates alone.
    static func dateText(_ millis: Double, dateOnly: Bool) -> String {
        let ms = millis.rounded()
        let text = Cells.isoDate(unixSeconds: ms / 1000)
        if dateOnly, ms.truncatingRemainder(dividingBy: 86_400_000) == 0 { return String(text.prefix(10)) }
        return text
    }

    /// The value at fraction `p` of sorted values, interpolated between the two nearest.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let pos = p * Double(sorted.count - 1)
        let lo = Int(pos.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - Double(lo))
    }

    /// Counts of up to 8 equal-width bins from min to max (one bin when all are equal).
    static func histogram(_ values: [Double], min lo: Double, max hi: Double) -> String {
        guard hi > lo else { return String(values.count) }
        var counts = [Int](repeating: 0, count: histogramBins)
        let width = (hi - lo) / Double(histogramBins)
        for v in values { counts[Swift.min(histogramBins - 1, Swift.max(0, Int(((v - lo) / width).rounded(.down))))] += 1 }
        return counts.map(String.init).joined(separator: " ")
    }

    /// The describe row of one column over its cells.
    public static func row(_ spec: ColumnSpec, _ cells: [JSONValue]) -> Row {
        let values = cells.filter { $0 != .null }
        let sorted = values.sorted { compare($0, $1, spec) < 0 }
        var distinct = 0, top: JSONValue?, topCount = 0
        var i = 0
        while i < sorted.count {
            var j = i + 1
            while j < sorted.count, compare(sorted[i], sorted[j], spec) == 0 { j += 1 }
            distinct += 1
            if j - i > topCount { top = sorted[i]; topCount = j - i }  // strictly more: the smallest of ties stays
            i = j
        }
        var mean: JSONValue = .null, stddev: JSONValue = .null
        var p25: JSONValue = .null, median: JSONValue = .null, p75: JSONValue = .null, histogram: JSONValue = .null
        switch spec.type {
        case .integer, .decimal:
            let xs = values.compactMap(number).sorted()
            if !xs.isEmpty {
                let m = xs.reduce(0, +) / Double(xs.count)
                mean = .double(m)
                if xs.count > 1 {
                    stddev = .double((xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(xs.count - 1)).squareRoot())
                }
                p25 = .string(numberText(percentile(xs, 0.25)))
                median = .string(numberText(percentile(xs, 0.5)))
                p75 = .string(numberText(percentile(xs, 0.75)))
                histogram = .string(Self.histogram(xs, min: xs[0], max: xs[xs.count - 1]))
            }
        case .date:
            let parsed = values.compactMap { cell -> ISODateTime? in
                if case .string(let s) = cell { return ISODateTime(s) }
                return nil
            }
            let ts = parsed.map { Double($0.millis) }.sorted()
            if !ts.isEmpty {
                let dateOnly = parsed.allSatisfy(\.dateOnly)
                p25 = .string(dateText(percentile(ts, 0.25), dateOnly: dateOnly))
                median = .string(dateText(percentile(ts, 0.5), dateOnly: dateOnly))
                p75 = .string(dateText(percentile(ts, 0.75), dateOnly: dateOnly))
                histogram = .string(Self.histogram(ts, min: ts[0], max: ts[ts.count - 1]))
            }
        default:
            break
        }
        func textCell(_ v: JSONValue?) -> JSONValue { v.flatMap(text).map { .string($0) } ?? .null }
        let cellsOut: [JSONValue] = [
            .string(spec.title ?? spec.id), .string(spec.type.name),
            .int(Int64(values.count)), .int(Int64(cells.count - values.count)), .int(Int64(distinct)),
            textCell(sorted.first), textCell(sorted.last), mean, stddev, p25, median, p75,
            textCell(top), top == nil ? .null : .int(Int64(topCount)), histogram,
        ]
        return Row(id: spec.id, cells: cellsOut)
    }

    /// The describe table of a table's columns over the rows kept.
    public static func table(columns: [ColumnSpec], rows: [[JSONValue]]) -> MemoryTable {
        let out = columns.enumerated().map { k, spec in row(spec, rows.map { k < $0.count ? $0[k] : .null }) }
        return MemoryTable(columns: DescribeRequest.columns, rows: out)
    }
}
