import Foundation
import TabdeckProtocol

/// How a group column is cut into bins in the engine's count (PROTOCOL.md 11.12, by the
/// protocol's one rule, ``Bins``).
enum Binning: Sendable {
    /// Numbers: the width; `integer` for an integer column (its starts are integers).
    case number(width: Double, integer: Bool)
    /// Dates: the unit; `dateOnly` when every bin start is shown as a date.
    case date(unit: DateBinUnit, dateOnly: Bool)
}

/// An id of a binned column in one part of a count: a bin start (the bits of its double or
/// its milliseconds), or a cell not of the column's type (an id of the part's dictionary).
enum BinEntry: Sendable {
    case bin(UInt64)
    case text(UInt32)
}

/// A cell of a number or date column as binning sees it.
enum BinCell {
    case null
    /// A finite number (integers as doubles, as the protocol's rule takes them).
    case number(Double)
    case date(Int64, dateOnly: Bool)
    /// Not of the column's type (served as its text): not binned.
    case other
}

/// What the first pass learns of a column to bin: its range and whether it has more than
/// `limit` distinct non-null values.
struct BinStatistics {
    var lo = Double.infinity, hi = -Double.infinity
    var loMillis = Int64.max, hiMillis = Int64.min
    /// Distinct values (the bits of a number, the milliseconds of a date), up to `limit + 1`.
    var distinct = Set<UInt64>()
    /// A date with a time that no date-only text of the same instant stands for.
    var timedOffMidnight = false
    var midnightTimed = Set<Int64>()
    var dateOnlyInstants = Set<Int64>()

    mutating func merge(_ o: BinStatistics, limit: Int) {
        lo = min(lo, o.lo); hi = max(hi, o.hi)
        loMillis = min(loMillis, o.loMillis); hiMillis = max(hiMillis, o.hiMillis)
        for v in o.distinct where distinct.count <= limit { distinct.insert(v) }
        timedOffMidnight = timedOffMidnight || o.timedOffMidnight
        midnightTimed.formUnion(o.midnightTimed)
        dateOnlyInstants.formUnion(o.dateOnlyInstants)
    }

    /// A group's date shows as a date when every instant is written date-only somewhere (the
    /// shortest text of an instant stands for it, as in ``CSVTable/groups(columns:filter:where:isCancelled:progress:)``).
    var dateOnly: Bool { !timedOffMidnight && midnightTimed.isSubset(of: dateOnlyInstants) }
}

extension CSVTable {
    /// `0` for `-0`: one bin, one key.
    @inline(__always) static func zero(_ d: Double) -> Double { d == 0 ? 0 : d }

    /// A cell's (unescaped) bytes as binning sees them: typed as ``value(bytes:type:style:)``
    /// serves it, without building its text.
    @inline(__always)
    static func binCell(_ b: UnsafeBufferPointer<UInt8>, type: CSVColumnType, style: CellStyle, normal: inout [UInt8]) -> BinCell {
        if b.count == 0 { return .null }
        func date(_ b: UnsafeBufferPointer<UInt8>) -> BinCell {
            guard let ms = ValueParser.date(b) else { return .other }
            return .date(ms, dateOnly: b.count == 10)
        }
        if style != .standard, style.normalize(b, into: &normal) {
            if type == .date { return normal.withUnsafeBufferPointer { date($0) } }
            if type == .decimal, let v = normal.withUnsafeBufferPointer({ ValueParser.decimal($0) }) {
                return v.isFinite ? .number(zero(v)) : .other
            }
        }
        switch type {
        case .integer: if let v = ValueParser.integer(b) { return .number(Double(v)) }
        case .decimal: if let v = ValueParser.decimal(b), v.isFinite { return .number(zero(v)) }
        case .date: return date(b)
        case .bool, .text: break
        }
        return .other
    }

    /// The groups of the rows `filter` and `conditions` keep, by the values of `columns`, with
    /// the columns that have a `bins` (integer, decimal or date columns) cut into bins where
    /// they have more than `bins` distinct non-null values under the filters: the protocol's
    /// rule (PROTOCOL.md 11.12, ``Bins``), counted in the scan without a group per distinct
    /// value. A first pass finds the range of each such column and whether it has more than
    /// `bins` values; the second counts each cell by its bin's start. A binned column's values
    /// are its bins' starts (an integer on an integer column, a decimal text, a date text).
    /// Returns the groups and, by position in `columns`, how each binned column was cut.
    /// `progress(done, all)` covers both passes.
    public func binnedGroups(columns groupColumns: [Int], bins: [Int?], filter: String? = nil, where conditions: [CSVCondition] = [],
                             isCancelled: () -> Bool = { false },
                             progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> (groups: [CSVGroup], sizes: [Int: BinSize]) {
        precondition(bins.count == groupColumns.count)
        for (g, b) in bins.enumerated() where b != nil {
            precondition([.integer, .decimal, .date].contains(columns[groupColumns[g]].type), "bins on a column of another type")
        }
        let binned = bins.indices.filter { bins[$0] != nil }
        if binned.isEmpty {
            return (try groups(columns: groupColumns, filter: filter, where: conditions, isCancelled: isCancelled, progress: progress), [:])
        }
        let stats = try binStatistics(columns: binned.map { groupColumns[$0] }, limits: binned.map { bins[$0]! },
                                      filter: filter, where: conditions, isCancelled: isCancelled,
                                      progress: { done, all in progress?(done, 2 * all) })
        var binning = [Binning?](repeating: nil, count: groupColumns.count)
        var sizes: [Int: BinSize] = [:]
        for (i, g) in binned.enumerated() {
            let s = stats[i], count = bins[g]!
            guard s.distinct.count > count else { continue }
            if columns[groupColumns[g]].type == .date {
                let unit = Bins.unit(minMillis: s.loMillis, maxMillis: s.hiMillis, count: count)
                binning[g] = .date(unit: unit, dateOnly: s.dateOnly)
                sizes[g] = .unit(unit)
            } else {
                let integer = columns[groupColumns[g]].type == .integer
                let width = Bins.width(min: s.lo, max: s.hi, count: count, integer: integer)
                binning[g] = .number(width: width, integer: integer)
                sizes[g] = .width(Bins.text(width))
            }
        }
        let found = try groups(columns: groupColumns, binning: binning, filter: filter, where: conditions, isCancelled: isCancelled,
                               progress: { done, all in progress?(all + done, 2 * all) })
        return (found, sizes)
    }

    /// The first pass of ``binnedGroups(columns:bins:filter:where:isCancelled:progress:)``:
    /// for each of `columns` (integer, decimal or date) its range and up to `limit + 1` of its
    /// distinct values, on every core.
    func binStatistics(columns binColumns: [Int], limits: [Int], filter: String?, where conditions: [CSVCondition],
                       isCancelled: () -> Bool, progress: (@Sendable (Int, Int) -> Void)?) throws -> [BinStatistics] {
        let offsets = try index.waitComplete(isCancelled: isCancelled)
        let selection = Selection(filter: filter, conditions: conditions)
        let kept: RowSet? = selection.isEmpty ? nil
            : try caches.computing(isCancelled: isCancelled) { try matches(selection, offsets: offsets, isCancelled: isCancelled) }
        let rows = offsets.count
        let parts = SelectionScan.parts(rows: rows)
        let ranges = SelectionScan.ranges(rows: rows, parts: parts)
        let types = self.columns.map(\.type), styles = self.columns.map(\.style)
        let scanner = self.scanner, file = self.file
        let k = binColumns.count
        let lastColumn = binColumns.max()!

        final class Job: @unchecked Sendable {
            let lock = NSLock()
            var parts: [[BinStatistics]?]
            var failure: Error?
            var done = 0
            let isCancelled: () -> Bool
            init(parts: Int, isCancelled: @escaping () -> Bool) { self.parts = Array(repeating: nil, count: parts); self.isCancelled = isCancelled }
        }
        let (scanned, failure) = withoutActuallyEscaping(isCancelled) { cancelled -> ([[BinStatistics]?], Error?) in
            let job = Job(parts: parts, isCancelled: cancelled)
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                let range = ranges[p]
                var stats = [BinStatistics](repeating: BinStatistics(), count: k)
                defer { job.lock.lock(); job.parts[p] = stats; job.lock.unlock() }
                guard !range.isEmpty else { return }
                let spans = UnsafeMutablePointer<FieldSpan?>.allocate(capacity: lastColumn + 1)
                defer { spans.deallocate() }
                var normal: [UInt8] = []
                var lastDateOnly = [Int64?](repeating: nil, count: k)
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
                    if k == 1 {
                        spans[binColumns[0]] = scanner.field(binColumns[0], ofRecord: start)
                    } else {
                        for c in 0...lastColumn { spans[c] = nil }
                        _ = scanner.scan(record: start) { j, span in spans[j] = span; return j < lastColumn }
                    }
                    for g in 0..<k {
                        let column = binColumns[g]
                        guard let span = spans[column], span.count > 0 else { continue }
                        let cell: BinCell = span.escaped
                            ? scanner.unescaped(span).withUnsafeBufferPointer { Self.binCell($0, type: types[column], style: styles[column], normal: &normal) }
                            : Self.binCell(UnsafeBufferPointer(start: scanner.base + span.start, count: span.count),
                                           type: types[column], style: styles[column], normal: &normal)
                        switch cell {
                        case .number(let d):
                            if d < stats[g].lo { stats[g].lo = d }
                            if d > stats[g].hi { stats[g].hi = d }
                            if stats[g].distinct.count <= limits[g] { stats[g].distinct.insert(d.bitPattern) }
                        case .date(let ms, let dateOnly):
                            if ms < stats[g].loMillis { stats[g].loMillis = ms }
                            if ms > stats[g].hiMillis { stats[g].hiMillis = ms }
                            if stats[g].distinct.count <= limits[g] { stats[g].distinct.insert(UInt64(bitPattern: ms)) }
                            if dateOnly {
                                if lastDateOnly[g] != ms { stats[g].dateOnlyInstants.insert(ms); lastDateOnly[g] = ms }
                            } else if ms % 86_400_000 == 0 {
                                stats[g].midnightTimed.insert(ms)
                            } else {
                                stats[g].timedOffMidnight = true
                            }
                        case .null, .other: break
                        }
                    }
                }
                file.release(released, range.upperBound < rows ? offsets[range.upperBound] : file.count)
            }
            return (job.parts, job.failure)
        }
        if let failure { throw failure }
        var out = [BinStatistics](repeating: BinStatistics(), count: k)
        for part in scanned.compactMap({ $0 }) {
            for g in 0..<k { out[g].merge(part[g], limit: limits[g]) }
        }
        return out
    }
}
