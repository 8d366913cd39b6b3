import TabdeckProtocol

/// The statistics of `describe` (PROTOCOL.md 11.13) of one column, accumulated one cell at a time
/// in bounded memory: count, nulls, min, max, mean and standard deviation are always exact;
/// distinct values and the most frequent one are exact while the distinct values stay within
/// ``Limits/distinct``, percentiles and the histogram while the numbers stay within
/// ``Limits/numbers`` (then a fixed-seed reservoir sample). ``estimates`` names what is not exact.
public struct ColumnSummary {
    /// The memory bounds of a summary.
    public struct Limits: Sendable {
        /// Distinct values counted exactly (with their counts); past it, an estimate.
        public var distinct: Int
        /// Numbers (or instants) kept for percentiles and the histogram; past it, a sample.
        public var numbers: Int

        public init(distinct: Int = 100_000, numbers: Int = 1_000_000) {
            self.distinct = distinct; self.numbers = numbers
        }

        public static let standard = Limits()
    }

    public let spec: ColumnSpec
    public let limits: Limits
    private(set) var count = 0
    private(set) var nulls = 0
    private var minCell: JSONValue?, maxCell: JSONValue?
    /// Each distinct value: its count and its first cell (what a stable sort puts first).
    private var groups: [SummaryKey: (count: Int, cell: JSONValue)] = [:]
    private var sketch: DistinctSketch?
    private var kept: [Double] = []
    private var seen = 0
    private var random: UInt64 = 0x5DEE_CE66_D1CE_5EED
    private var lowest = Double.infinity, highest = -Double.infinity
    private var mean = 0.0, squares = 0.0
    private var allDateOnly = true
    private let isNumber: Bool, isDate: Bool

    public init(spec: ColumnSpec, limits: Limits = .standard) {
        self.spec = spec; self.limits = limits
        switch spec.type {
        case .integer, .decimal: isNumber = true; isDate = false
        case .date: isNumber = false; isDate = true
        default: isNumber = false; isDate = false
        }
    }

    /// Adds one cell of the column.
    public mutating func add(_ cell: JSONValue) {
        if cell == .null { nulls += 1; return }
        count += 1
        if let lo = minCell { if SummaryTexts.compare(cell, lo, spec) < 0 { minCell = cell } } else { minCell = cell }
        if let hi = maxCell { if SummaryTexts.compare(cell, hi, spec) >= 0 { maxCell = cell } } else { maxCell = cell }
        countDistinct(cell)
        if isNumber, let x = SummaryTexts.number(cell) {
            addNumber(x)
        } else if isDate, case .string(let s) = cell, let t = ISODateTime(s) {
            if !t.dateOnly { allDateOnly = false }
            addNumber(Double(t.millis))
        }
    }

    private mutating func countDistinct(_ cell: JSONValue) {
        let key = SummaryKey(cell, spec)
        if sketch != nil {
            // Past the cap: every value feeds the estimate; the values already kept keep counting.
            sketch!.add(key.stableHash)
            groups[key]?.count += 1
            return
        }
        if let old = groups[key] { groups[key] = (old.count + 1, old.cell); return }
        if groups.count < limits.distinct { groups[key] = (1, cell); return }
        var fresh = DistinctSketch()
        for k in groups.keys { fresh.add(k.stableHash) }
        fresh.add(key.stableHash)
        sketch = fresh
    }

    private mutating func addNumber(_ x: Double) {
        seen += 1
        lowest = Swift.min(lowest, x); highest = Swift.max(highest, x)
        let delta = x - mean
        mean += delta / Double(seen)
        squares += delta * (x - mean)
        if kept.count < limits.numbers { kept.append(x); return }
        // Algorithm R: the seen-th number replaces a kept one with probability numbers/seen.
        random = SummaryKey.mix(random)
        let slot = Int(random % UInt64(seen))
        if slot < kept.count { kept[slot] = x }
    }

    /// The column ids of ``DescribeRequest/columns`` whose values are estimates.
    public var estimates: [String] {
        var out: [String] = []
        if sketch != nil { out += ["distinct", "top", "topCount"] }
        if seen > kept.count { out += ["p25", "median", "p75", "histogram"] }
        return out
    }

    /// The describe row of the column.
    public func row() -> Row {
        var top: JSONValue?, topCount = 0
        for (_, g) in groups where g.count > topCount || (g.count == topCount && top.map { SummaryTexts.compare(g.cell, $0, spec) < 0 } == true) {
            top = g.cell; topCount = g.count
        }
        var s = Statistics()
        s.count = count; s.nulls = nulls
        s.distinct = sketch.map { Swift.max($0.estimate, groups.count) } ?? groups.count
        s.min = minCell; s.max = maxCell; s.top = top; s.topCount = topCount
        s.sorted = kept.sorted(); s.seen = seen
        s.lowest = lowest; s.highest = highest; s.mean = mean; s.squares = squares
        s.dateOnly = allDateOnly
        return Self.row(spec: spec, s)
    }

    /// What a describe row is written from: a column's statistics, computed by a summary or
    /// by a plugin's own typed scan (which then writes exactly what a summary would).
    public struct Statistics: Sendable {
        /// Non-null and null cells; distinct values.
        public var count = 0, nulls = 0, distinct = 0
        /// The smallest cell (the first in row order), the largest (the last), the most
        /// frequent (ties: the smallest; its first cell) and its count.
        public var min: JSONValue?, max: JSONValue?, top: JSONValue?
        public var topCount = 0
        /// The numbers (instants of a date column, in milliseconds) kept, sorted: all of them
        /// when `seen` is their count, else a sample of the `seen` ones.
        public var sorted: [Double] = []
        public var seen = 0
        /// For a sample: the smallest and largest number seen, and their mean and sum of
        /// squared deviations (Welford).
        public var lowest = Double.infinity, highest = -Double.infinity, mean = 0.0, squares = 0.0
        /// Every date is a date alone.
        public var dateOnly = true

        public init() {}
    }

    /// The describe row of a column with these statistics.
    public static func row(spec: ColumnSpec, _ s: Statistics) -> Row {
        let isNumber = spec.type == .integer || spec.type == .decimal, isDate = spec.type == .date
        var mean: JSONValue = .null, stddev: JSONValue = .null
        var p25: JSONValue = .null, median: JSONValue = .null, p75: JSONValue = .null, histogram: JSONValue = .null
        let seen = s.seen
        if seen > 0 && (isNumber || isDate) {
            let xs = s.sorted
            let exact = seen == xs.count
            let lo = exact ? xs[0] : s.lowest, hi = exact ? xs[xs.count - 1] : s.highest
            let dateOnly = s.dateOnly
            func text(_ d: Double) -> String {
                isDate ? SummaryTexts.dateText(d, dateOnly: dateOnly) : SummaryTexts.numberText(d)
            }
            p25 = .string(text(SummaryTexts.percentile(xs, 0.25)))
            median = .string(text(SummaryTexts.percentile(xs, 0.5)))
            p75 = .string(text(SummaryTexts.percentile(xs, 0.75)))
            histogram = .string(SummaryTexts.histogram(xs, min: lo, max: hi, scale: Double(seen) / Double(xs.count)))
            if isNumber {
                // All numbers kept: two passes over the sorted values, as exact as a double allows.
                let m = exact ? xs.reduce(0, +) / Double(xs.count) : s.mean
                mean = .double(m)
                if seen > 1 {
                    let sum: Double = exact ? xs.reduce(0.0) { $0 + ($1 - m) * ($1 - m) } : s.squares
                    stddev = .double((sum / Double(seen - 1)).squareRoot())
                }
            }
        }
        func textCell(_ v: JSONValue?) -> JSONValue { v.flatMap(SummaryTexts.text).map { .string($0) } ?? .null }
        let cells: [JSONValue] = [
            .string(spec.title ?? spec.id), .string(spec.type.name),
            .int(Int64(s.count)), .int(Int64(s.nulls)), .int(Int64(s.distinct)),
            textCell(s.min), textCell(s.max), mean, stddev, p25, median, p75,
            textCell(s.top), s.top == nil ? .null : .int(Int64(s.topCount)), histogram,
        ]
        return Row(id: spec.id, cells: cells)
    }
}
