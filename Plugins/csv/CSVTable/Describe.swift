import Foundation

/// The typed statistics of one column for `describe` (PROTOCOL.md 11.13), over the rows a
/// selection keeps, cells as ``CSVTable/values(row:)`` serves them.
public struct CSVColumnStats: Sendable {
    /// Non-null cells, and null ones (an empty cell of a typed column, a missing cell).
    public var count = 0
    public var nulls = 0
    /// Cells of a typed column not served as its type (served as text). When not 0 the other
    /// statistics below leave those cells out: describe such a column from its served cells.
    public var invalid = 0
    /// Distinct values (an estimate when `distinctEstimated`: text past the limit).
    public var distinct = 0
    public var distinctEstimated = false
    /// The smallest value (the first such cell in row order), the largest (the last such
    /// cell), and the most frequent (ties: the smallest), as served.
    public var min: CSVValue?
    public var max: CSVValue?
    public var top: CSVValue?
    public var topCount = 0
    /// Integer and decimal columns: every value, as a `Double`, sorted; date columns: every
    /// instant in milliseconds since 1970, sorted.
    public var sorted: [Double] = []
    /// Date columns: every date is a date alone (no time of day).
    public var dateOnly = true
}

/// A HyperLogLog estimate of distinct values (2^14 registers), mergeable; the same estimator
/// as the plugin kit's `DistinctSketch`.
struct CSVDistinctSketch: Sendable {
    private static let bits = 14
    private var registers = [UInt8](repeating: 0, count: 1 << bits)

    mutating func add(_ hash: UInt64) {
        var z = hash &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        let h = z ^ (z >> 31)
        let index = Int(h >> UInt64(64 - Self.bits))
        let rank = UInt8(Swift.min((h << UInt64(Self.bits)).leadingZeroBitCount, 64 - Self.bits) + 1)
        if rank > registers[index] { registers[index] = rank }
    }

    mutating func merge(_ other: CSVDistinctSketch) {
        for i in registers.indices where other.registers[i] > registers[i] { registers[i] = other.registers[i] }
    }

    var estimate: Int {
        let m = Double(registers.count)
        var sum = 0.0, zeros = 0
        for r in registers {
            sum += 1 / Double(UInt64(1) << UInt64(r))
            if r == 0 { zeros += 1 }
        }
        let raw = 0.7213 / (1 + 1.079 / m) * m * m / sum
        if raw <= 2.5 * m, zeros > 0 { return Int((m * log(m / Double(zeros))).rounded()) }
        return Int(raw.rounded())
    }
}

extension CSVTable {
    /// One column's accumulator in one part of the scan.
    struct DescribeAccumulator {
        var count = 0, nulls = 0, invalid = 0
        /// Integer values, or date instants.
        var ints: [Int64] = []
        var doubles: [Double] = []
        var trues = 0, falses = 0
        var dateOnly = true
        var minInstant = Int64.max, minRow = -1, maxInstant = Int64.min, maxRow = -1
        var texts: TextDictionary
        var textCounts: [Int] = []
        /// Texts past the dictionary's limit: their sketch, smallest and largest.
        var sketch: CSVDistinctSketch?
        var overflowMin: [UInt8]?, overflowMax: [UInt8]?

        init(textLimit: Int) { texts = TextDictionary(limit: textLimit) }
    }

    /// The `describe` statistics of every column over the rows `filter` and `conditions` keep:
    /// one pass over the records on every core (typed values parsed in place, texts counted
    /// in a dictionary per part up to `textLimit` distinct, past it a sketch), then the parts
    /// merged and the numbers sorted. `progress(rowsDone, rowsInAll)` as in ``groups(columns:filter:where:isCancelled:progress:)``.
    public func describe(filter: String? = nil, where conditions: [CSVCondition] = [], textLimit: Int = 100_000,
                         isCancelled: () -> Bool = { false },
                         progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> [CSVColumnStats] {
        let offsets = try index.waitComplete(isCancelled: isCancelled)
        let selection = Selection(filter: filter, conditions: conditions)
        let kept: RowSet? = selection.isEmpty ? nil
            : try caches.computing(isCancelled: isCancelled) { try matches(selection, offsets: offsets, isCancelled: isCancelled) }
        let rows = offsets.count
        let parts = SelectionScan.parts(rows: rows)
        let ranges = SelectionScan.ranges(rows: rows, parts: parts)
        let columns = self.columns
        let scanner = self.scanner, file = self.file
        let n = columns.count
        if n == 0 { return [] }

        final class Job: @unchecked Sendable {
            let lock = NSLock()
            var parts: [[DescribeAccumulator]?]
            var failure: Error?
            var done = 0
            let isCancelled: () -> Bool
            init(parts: Int, isCancelled: @escaping () -> Bool) { self.parts = Array(repeating: nil, count: parts); self.isCancelled = isCancelled }
        }
        let (scanned, failure) = withoutActuallyEscaping(isCancelled) { cancelled -> ([[DescribeAccumulator]?], Error?) in
            let job = Job(parts: parts, isCancelled: cancelled)
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                let range = ranges[p]
                var acc = [DescribeAccumulator](repeating: DescribeAccumulator(textLimit: textLimit), count: n)
                defer { job.lock.lock(); job.parts[p] = acc; job.lock.unlock() }
                guard !range.isEmpty else { return }
                let spans = UnsafeMutablePointer<FieldSpan?>.allocate(capacity: n)
                defer { spans.deallocate() }
                var normal: [UInt8] = []
                var released = offsets[range.lowerBound]
                var sinceReport = 0
                for row in range {
                    let start = offsets[row]
                    if row & 0xFFFF == 0 {
                        if job.isCancelled() { job.lock.lock(); job.failure = CancellationError(); job.lock.unlock(); return }
                        file.passed(start, released: &released)
                    }
                    sinceReport += 1
                    if sinceReport == 65_536 {
                        job.lock.lock(); job.done += sinceReport; let done = job.done; job.lock.unlock()
                        sinceReport = 0
                        progress?(done, rows)
                    }
                    if let kept, !kept.contains(row) { continue }
                    for c in 0..<n { spans[c] = nil }
                    _ = scanner.scan(record: start) { j, span in
                        guard j < n else { return false }
                        spans[j] = span
                        return j < n - 1
                    }
                    for c in 0..<n {
                        let type = columns[c].type, style = columns[c].style
                        guard let span = spans[c] else { acc[c].nulls += 1; continue }
                        if span.count == 0 {
                            if type == .text { Self.addText(&acc[c], UnsafeBufferPointer(start: nil, count: 0)) } else { acc[c].nulls += 1 }
                            continue
                        }
                        if span.escaped {
                            // Typed cells in quotes are served as text; dates are text anyway.
                            switch type {
                            case .text: scanner.unescaped(span).withUnsafeBufferPointer { Self.addText(&acc[c], $0) }
                            case .date: scanner.unescaped(span).withUnsafeBufferPointer { Self.addDate(&acc[c], $0, row: row) }
                            default: acc[c].count += 1; acc[c].invalid += 1
                            }
                            continue
                        }
                        let b = UnsafeBufferPointer(start: scanner.base + span.start, count: span.count)
                        switch type {
                        case .text: Self.addText(&acc[c], b)
                        case .integer:
                            acc[c].count += 1
                            if let v = ValueParser.integer(b) { acc[c].ints.append(v) } else { acc[c].invalid += 1 }
                        case .decimal:
                            acc[c].count += 1
                            var v: Double?
                            if style != .standard, style.normalize(b, into: &normal) { v = normal.withUnsafeBufferPointer { ValueParser.decimal($0) } }
                            if v == nil { v = ValueParser.decimal(b) }
                            if let v { acc[c].doubles.append(v) } else { acc[c].invalid += 1 }
                        case .bool:
                            acc[c].count += 1
                            switch ValueParser.bool(b) {
                            case true?: acc[c].trues += 1
                            case false?: acc[c].falses += 1
                            case nil: acc[c].invalid += 1
                            }
                        case .date:
                            if style != .standard, style.normalize(b, into: &normal) {
                                normal.withUnsafeBufferPointer { Self.addDate(&acc[c], $0, row: row) }
                            } else {
                                Self.addDate(&acc[c], b, row: row)
                            }
                        }
                    }
                }
                job.lock.lock(); job.done += sinceReport; job.lock.unlock()
                file.release(released, range.upperBound < rows ? offsets[range.upperBound] : file.count)
                // Each part sorts its own numbers (both cores); the merge is linear.
                for c in 0..<n {
                    switch columns[c].type {
                    case .integer, .date: acc[c].ints.sort()
                    case .decimal: acc[c].doubles.sort()
                    default: break
                    }
                }
            }
            return (job.parts, job.failure)
        }
        if let failure { throw failure }
        progress?(rows, rows)
        let done = scanned.compactMap { $0 }
        return try (0..<n).map { c in
            try mergeDescribed(done.map { $0[c] }, column: c, kept: kept, offsets: offsets, isCancelled: isCancelled)
        }
    }

    /// A text cell's bytes counted (in the dictionary, or past its limit in the sketch).
    @inline(__always) static func addText(_ acc: inout DescribeAccumulator, _ b: UnsafeBufferPointer<UInt8>) {
        acc.count += 1
        if let id = acc.texts.id(of: b) {
            if Int(id) == acc.textCounts.count { acc.textCounts.append(1) } else { acc.textCounts[Int(id)] += 1 }
            return
        }
        if acc.sketch == nil { acc.sketch = CSVDistinctSketch() }
        acc.sketch!.add(TextDictionary.hash(b))
        if acc.overflowMin.map({ b.lexicographicallyPrecedes($0) }) ?? true { acc.overflowMin = Array(b) }
        if acc.overflowMax.map({ !b.lexicographicallyPrecedes($0) }) ?? true { acc.overflowMax = Array(b) }
    }

    /// A date cell's (served) bytes: its instant, or an invalid cell.
    @inline(__always) static func addDate(_ acc: inout DescribeAccumulator, _ b: UnsafeBufferPointer<UInt8>, row: Int) {
        acc.count += 1
        guard let ms = ValueParser.date(b) else { acc.invalid += 1; return }
        acc.ints.append(ms)
        if b.count != 10 { acc.dateOnly = false }
        if ms < acc.minInstant { acc.minInstant = ms; acc.minRow = row }
        if ms >= acc.maxInstant { acc.maxInstant = ms; acc.maxRow = row }
    }

    /// Two sorted arrays merged, pairwise until one is left.
    static func mergeSorted<T: Comparable>(_ arrays: [[T]]) -> [T] {
        var level = arrays.filter { !$0.isEmpty }
        if level.isEmpty { return [] }
        while level.count > 1 {
            var next: [[T]] = []
            var i = 0
            while i < level.count {
                if i + 1 == level.count { next.append(level[i]); break }
                let a = level[i], b = level[i + 1]
                var out = [T](); out.reserveCapacity(a.count + b.count)
                var x = 0, y = 0
                while x < a.count && y < b.count {
                    if b[y] < a[x] { out.append(b[y]); y += 1 } else { out.append(a[x]); x += 1 }
                }
                out.append(contentsOf: a[x...]); out.append(contentsOf: b[y...])
                next.append(out)
                i += 2
            }
            level = next
        }
        return level[0]
    }

    /// Distinct values and the most frequent one (ties: the first, smallest) of sorted values.
    static func runs<T: Equatable>(_ sorted: [T]) -> (distinct: Int, top: T?, topCount: Int) {
        var distinct = 0, top: T?, topCount = 0
        var i = 0
        while i < sorted.count {
            var j = i + 1
            while j < sorted.count && sorted[j] == sorted[i] { j += 1 }
            distinct += 1
            if j - i > topCount { top = sorted[i]; topCount = j - i }
            i = j
        }
        return (distinct, top, topCount)
    }

    /// One column's parts merged into its statistics.
    func mergeDescribed(_ parts: [DescribeAccumulator], column c: Int, kept: RowSet?, offsets: RowOffsets,
                        isCancelled: () -> Bool) throws -> CSVColumnStats {
        var s = CSVColumnStats()
        for p in parts { s.count += p.count; s.nulls += p.nulls; s.invalid += p.invalid }
        switch columns[c].type {
        case .integer:
            let all = Self.mergeSorted(parts.map(\.ints))
            let r = Self.runs(all)
            s.distinct = r.distinct
            s.min = all.first.map { .integer($0) }; s.max = all.last.map { .integer($0) }
            s.top = r.top.map { .integer($0) }; s.topCount = r.topCount
            s.sorted = all.map(Double.init)
        case .decimal:
            let all = Self.mergeSorted(parts.map(\.doubles))
            let r = Self.runs(all)
            s.distinct = r.distinct
            s.min = all.first.map { .decimal($0) }; s.max = all.last.map { .decimal($0) }
            s.top = r.top.map { .decimal($0) }; s.topCount = r.topCount
            s.sorted = all
        case .date:
            let all = Self.mergeSorted(parts.map(\.ints))
            let r = Self.runs(all)
            s.distinct = r.distinct
            s.dateOnly = parts.allSatisfy(\.dateOnly)
            s.sorted = all.map(Double.init)
            // The cells as served: the first row with the smallest instant, the last with the
            // largest (parts are in row order), the first with the most frequent.
            var minRow = -1, minInstant = Int64.max, maxRow = -1, maxInstant = Int64.min
            for p in parts {
                if p.minRow >= 0, p.minInstant < minInstant { minInstant = p.minInstant; minRow = p.minRow }
                if p.maxRow >= 0, p.maxInstant >= maxInstant { maxInstant = p.maxInstant; maxRow = p.maxRow }
            }
            if minRow >= 0 { s.min = values(rows: [minRow])[0][c] }
            if maxRow >= 0 { s.max = values(rows: [maxRow])[0][c] }
            if let t = r.top, let row = try firstRow(withInstant: t, column: c, kept: kept, offsets: offsets, isCancelled: isCancelled) {
                s.top = values(rows: [row])[0][c]; s.topCount = r.topCount
            }
        case .bool:
            let t = parts.reduce(0) { $0 + $1.trues }, f = parts.reduce(0) { $0 + $1.falses }
            s.distinct = (t > 0 ? 1 : 0) + (f > 0 ? 1 : 0)
            if t + f > 0 {
                s.min = .bool(f == 0); s.max = .bool(t > 0)
                s.top = .bool(t > f); s.topCount = Swift.max(t, f)
            }
        case .text:
            var all = TextDictionary(limit: Int.max)
            var counts: [Int] = []
            for p in parts {
                for id in 0..<p.texts.count {
                    let g = Int(p.texts.withText(id) { all.id(of: $0)! })
                    if g == counts.count { counts.append(p.textCounts[id]) } else { counts[g] += p.textCounts[id] }
                }
            }
            var lo: [UInt8]?, hi: [UInt8]?, top: [UInt8]?, topCount = 0
            for g in 0..<all.count {
                all.withText(g) { b in
                    if lo.map({ b.lexicographicallyPrecedes($0) }) ?? true { lo = Array(b) }
                    if hi.map({ $0.lexicographicallyPrecedes(b) }) ?? true { hi = Array(b) }
                    if counts[g] > topCount || (counts[g] == topCount && top.map({ b.lexicographicallyPrecedes($0) }) == true) {
                        top = Array(b); topCount = counts[g]
                    }
                }
            }
            s.distinct = all.count
            if parts.contains(where: { $0.sketch != nil }) {
                var sketch = CSVDistinctSketch()
                for p in parts {
                    if let ps = p.sketch { sketch.merge(ps) }
                    if let m = p.overflowMin, lo.map({ m.lexicographicallyPrecedes($0) }) ?? true { lo = m }
                    if let m = p.overflowMax, hi.map({ $0.lexicographicallyPrecedes(m) }) ?? true { hi = m }
                }
                for g in 0..<all.count { all.withText(g) { sketch.add(TextDictionary.hash($0)) } }
                s.distinct = Swift.max(sketch.estimate, all.count)
                s.distinctEstimated = true
            }
            func text(_ b: [UInt8]?) -> CSVValue? { b.map { .text(String(decoding: $0, as: UTF8.self)) } }
            s.min = text(lo); s.max = text(hi); s.top = text(top); s.topCount = topCount
        }
        return s
    }

    /// The first kept row whose date cell in column `c` is the instant `t`.
    func firstRow(withInstant t: Int64, column c: Int, kept: RowSet?, offsets: RowOffsets, isCancelled: () -> Bool) throws -> Int? {
        let style = columns[c].style
        var normal: [UInt8] = []
        for row in 0..<offsets.count {
            if row & 0xFFFF == 0, isCancelled() { throw CancellationError() }
            if let kept, !kept.contains(row) { continue }
            guard let span = scanner.field(c, ofRecord: offsets[row]), span.count > 0 else { continue }
            let ms: Int64?
            if span.escaped {
                ms = scanner.unescaped(span).withUnsafeBufferPointer { ValueParser.date($0) }
            } else {
                let b = UnsafeBufferPointer(start: scanner.base + span.start, count: span.count)
                if style != .standard, style.normalize(b, into: &normal) {
                    ms = normal.withUnsafeBufferPointer { ValueParser.date($0) }
                } else {
                    ms = ValueParser.date(b)
                }
            }
            if ms == t { return row }
        }
        return nil
    }
}
