import Foundation
import TabdeckProtocol

/// One group of an aggregate: a value per group column (as ``CSVTable/values(row:)`` serves
/// the cells) and how many rows have them.
public struct CSVGroup: Equatable, Sendable {
    public var values: [CSVValue]
    public var count: Int
    public init(values: [CSVValue], count: Int) { self.values = values; self.count = count }
}

/// Too many distinct values to count groups of.
public struct CSVTooManyGroups: Error, CustomStringConvertible {
    public let limit: Int
    public var description: String { "more than \(limit) distinct values in a group column" }
}

extension CSVTable {
    /// Distinct texts a group column may have (per part of the scan).
    static let groupTextLimit = 16_000_000

    /// The value a group key stands for: cells that serve equal values are one group (`3.0`
    /// and `3.00`, one instant written two ways).
    enum GroupKey: Hashable {
        case null, int(Int64), double(UInt64), bool(Bool), date(Int64), text(String), invalid(String)
    }

    /// The groups of the rows `filter` and `conditions` keep, by the values of `columns`
    /// (cells as served: typed, an empty cell of a typed column or a missing cell null, a cell
    /// that does not parse as its type by its text; dates by instant). One pass over the
    /// records on every core, each part counting the distinct raw texts of each column; the
    /// texts are then parsed once each. `progress(rowsDone, rowsInAll)` is called every
    /// 65,536 rows or so, from any thread.
    public func groups(columns groupColumns: [Int], filter: String? = nil, where conditions: [CSVCondition] = [],
                       isCancelled: () -> Bool = { false },
                       progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> [CSVGroup] {
        try groups(columns: groupColumns, binning: [], filter: filter, where: conditions, isCancelled: isCancelled, progress: progress)
    }

    /// ``groups(columns:filter:where:isCancelled:progress:)`` with the cells of the columns
    /// that have a `binning` counted by their bin's start (a cell that is not of its column's
    /// type by its text, as there).
    func groups(columns groupColumns: [Int], binning: [Binning?], filter: String?, where conditions: [CSVCondition],
                isCancelled: () -> Bool, progress: (@Sendable (Int, Int) -> Void)?) throws -> [CSVGroup] {
        precondition(!groupColumns.isEmpty)
        let binning = binning.isEmpty ? [Binning?](repeating: nil, count: groupColumns.count) : binning
        precondition(binning.count == groupColumns.count)
        for c in groupColumns { precondition(c >= 0 && c < columns.count, "group column out of range") }
        let offsets = try index.waitComplete(isCancelled: isCancelled)
        let selection = Selection(filter: filter, conditions: conditions)
        let kept: RowSet? = selection.isEmpty ? nil
            : try caches.computing(isCancelled: isCancelled) { try matches(selection, offsets: offsets, isCancelled: isCancelled) }
        let rows = offsets.count
        let parts = SelectionScan.parts(rows: rows)
        let ranges = SelectionScan.ranges(rows: rows, parts: parts)
        let types = self.columns.map(\.type), styles = self.columns.map(\.style)
        let scanner = self.scanner, file = self.file
        let k = groupColumns.count
        let lastColumn = groupColumns.max()!

        /// One part's counts: per column the distinct raw texts; per combination of their ids
        /// (`nullID` for a null cell) the rows.
        final class Part: @unchecked Sendable {
            var dictionaries: [TextDictionary]
            /// Binned columns: per id a bin start (its bits) or a text of the dictionary.
            var entries: [[BinEntry]]
            var binIDs: [[UInt64: UInt32]]
            var otherIDs: [[UInt32]]
            var single: [Int] = []
            var singleNull = 0
            var pair: [UInt64: Int] = [:]
            var many: [[UInt32]: Int] = [:]
            init(columns: Int) {
                dictionaries = Array(repeating: TextDictionary(limit: CSVTable.groupTextLimit), count: columns)
                entries = Array(repeating: [], count: columns)
                binIDs = Array(repeating: [:], count: columns)
                otherIDs = Array(repeating: [], count: columns)
            }
        }
        final class Job: @unchecked Sendable {
            let lock = NSLock()
            var parts: [Part?]
            var failure: Error?
            var done = 0
            let isCancelled: () -> Bool
            init(parts: Int, isCancelled: @escaping () -> Bool) { self.parts = Array(repeating: nil, count: parts); self.isCancelled = isCancelled }
        }
        let nullID = UInt32.max
        // The job holds the non-escaping `isCancelled`: only its results leave the block.
        let (counted, failure) = withoutActuallyEscaping(isCancelled) { cancelled -> ([Part?], Error?) in
            let job = Job(parts: parts, isCancelled: cancelled)
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                let range = ranges[p]
                let part = Part(columns: k)
                defer { job.lock.lock(); job.parts[p] = part; job.lock.unlock() }
                guard !range.isEmpty else { return }
                let spans = UnsafeMutablePointer<FieldSpan?>.allocate(capacity: lastColumn + 1)
                defer { spans.deallocate() }
                var ids = [UInt32](repeating: 0, count: k)
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
                    if k == 1 {
                        spans[groupColumns[0]] = scanner.field(groupColumns[0], ofRecord: start)
                    } else {
                        for c in 0...lastColumn { spans[c] = nil }
                        _ = scanner.scan(record: start) { j, span in spans[j] = span; return j < lastColumn }
                    }
                    for g in 0..<k {
                        let column = groupColumns[g]
                        guard let span = spans[column], span.count > 0 || types[column] == .text else { ids[g] = nullID; continue }
                        if let bin = binning[g] {
                            let cell: BinCell = span.escaped
                                ? scanner.unescaped(span).withUnsafeBufferPointer { Self.binCell($0, type: types[column], style: styles[column], normal: &normal) }
                                : Self.binCell(UnsafeBufferPointer(start: scanner.base + span.start, count: span.count),
                                               type: types[column], style: styles[column], normal: &normal)
                            let key: UInt64
                            switch (cell, bin) {
                            case (.null, _): ids[g] = nullID; continue
                            case (.number(let d), .number(let width, _)): key = Self.zero(Bins.start(d, width: width)).bitPattern
                            case (.date(let ms, _), .date(let unit, _)): key = UInt64(bitPattern: Bins.startMillis(ms, unit))
                            default:
                                // Not of the column's type: a group of its text, as unbinned.
                                let text: UInt32? = span.escaped
                                    ? scanner.unescaped(span).withUnsafeBufferPointer { part.dictionaries[g].id(of: $0) }
                                    : part.dictionaries[g].id(of: UnsafeBufferPointer(start: scanner.base + span.start, count: span.count))
                                guard let text else {
                                    job.lock.lock(); job.failure = CSVTooManyGroups(limit: CSVTable.groupTextLimit); job.lock.unlock()
                                    return
                                }
                                if Int(text) >= part.otherIDs[g].count {
                                    part.otherIDs[g].append(UInt32(part.entries[g].count))
                                    part.entries[g].append(.text(text))
                                }
                                ids[g] = part.otherIDs[g][Int(text)]
                                continue
                            }
                            if let id = part.binIDs[g][key] { ids[g] = id; continue }
                            let id = UInt32(part.entries[g].count)
                            part.binIDs[g][key] = id
                            part.entries[g].append(.bin(key))
                            ids[g] = id
                            continue
                        }
                        let id: UInt32?
                        if span.escaped {
                            id = scanner.unescaped(span).withUnsafeBufferPointer { part.dictionaries[g].id(of: $0) }
                        } else {
                            id = part.dictionaries[g].id(of: UnsafeBufferPointer(start: scanner.base + span.start, count: span.count))
                        }
                        guard let id else {
                            job.lock.lock(); job.failure = CSVTooManyGroups(limit: CSVTable.groupTextLimit); job.lock.unlock()
                            return
                        }
                        ids[g] = id
                    }
                    switch k {
                    case 1:
                        let id = ids[0]
                        if id == nullID { part.singleNull += 1; continue }
                        if Int(id) >= part.single.count { part.single.append(contentsOf: repeatElement(0, count: Int(id) + 1 - part.single.count)) }
                        part.single[Int(id)] += 1
                    case 2: part.pair[UInt64(ids[0]) << 32 | UInt64(ids[1]), default: 0] += 1
                    default: part.many[ids, default: 0] += 1
                    }
                }
                file.release(released, range.upperBound < rows ? offsets[range.upperBound] : file.count)
            }
            return (job.parts, job.failure)
        }
        if let failure { throw failure }
        progress?(rows, rows)

        // Each part's text ids to indexes of the column's distinct values.
        var keyIndex = [[GroupKey: Int]](repeating: [:], count: k)
        var values = [[CSVValue]](repeating: [], count: k)
        func slot(_ g: Int, _ key: GroupKey, _ value: CSVValue) -> Int {
            if let i = keyIndex[g][key] {
                // One instant written two ways: the smallest text stands for it (whatever the parts).
                if case .date = key, case .text(let new) = value, case .text(let old) = values[g][i],
                   new.utf8.lexicographicallyPrecedes(old.utf8) { values[g][i] = value }
                return i
            }
            keyIndex[g][key] = values[g].count
            values[g].append(value)
            return values[g].count - 1
        }
        let nullIndex = (0..<k).map { slot($0, .null, .null) }
        var counts: [[Int]: Int] = [:]
        var singleCounts: [Int] = []
        for part in counted.compactMap({ $0 }) {
            var maps: [[Int]] = []
            for g in 0..<k {
                let column = groupColumns[g], dictionary = part.dictionaries[g]
                let type = types[column], style = self.columns[column].style
                if let bin = binning[g] {
                    maps.append(part.entries[g].map { entry in
                        switch entry {
                        case .text(let id):
                            let (key, value) = dictionary.withText(Int(id)) { Self.groupKey($0, type: type, style: style) }
                            return slot(g, key, value)
                        case .bin(let bits):
                            switch bin {
                            case .number(_, let integer):
                                let start = Double(bitPattern: bits)
                                return slot(g, .double(bits), integer && abs(start) < 9e18 ? .integer(Int64(start)) : .text(Bins.text(start)))
                            case .date(let unit, let dateOnly):
                                let ms = Int64(bitPattern: bits)
                                return slot(g, .date(ms), .text(Bins.text(ms, unit, dateOnly: dateOnly)))
                            }
                        }
                    })
                    continue
                }
                maps.append((0..<dictionary.count).map { id in
                    let (key, value) = dictionary.withText(id) { Self.groupKey($0, type: type, style: style) }
                    return slot(g, key, value)
                })
            }
            func global(_ g: Int, _ id: UInt32) -> Int { id == nullID ? nullIndex[g] : maps[g][Int(id)] }
            switch k {
            case 1:
                if singleCounts.count < values[0].count { singleCounts.append(contentsOf: repeatElement(0, count: values[0].count - singleCounts.count)) }
                singleCounts[nullIndex[0]] += part.singleNull
                for (id, n) in part.single.enumerated() where n > 0 { singleCounts[maps[0][id]] += n }
            case 2:
                for (key, n) in part.pair { counts[[global(0, UInt32(key >> 32)), global(1, UInt32(key & 0xFFFF_FFFF))], default: 0] += n }
            default:
                for (key, n) in part.many { counts[key.enumerated().map { global($0, $1) }, default: 0] += n }
            }
        }
        if k == 1 {
            return singleCounts.enumerated().compactMap { i, n in n > 0 ? CSVGroup(values: [values[0][i]], count: n) : nil }
        }
        return counts.map { key, n in CSVGroup(values: key.enumerated().map { values[$0][$1] }, count: n) }
    }

    /// The group key and served value of a cell's (unescaped) text.
    static func groupKey(_ b: UnsafeBufferPointer<UInt8>, type: CSVColumnType, style: CellStyle) -> (GroupKey, CSVValue) {
        let value = Self.value(bytes: b, type: type, style: style)
        switch (type, value) {
        case (_, .null): return (.null, value)
        case (.integer, .integer(let v)): return (.int(v), value)
        case (.decimal, .decimal(let d)): return (.double((d == 0 ? 0 : d).bitPattern), value)
        case (.bool, .bool(let v)): return (.bool(v), value)
        case (.text, .text(let s)): return (.text(s), value)
        case (.date, .text(let s)):
            var s = s
            if let ms = s.withUTF8({ ValueParser.date($0) }) { return (.date(ms), value) }
            return (.invalid(s), value)
        case (_, .text(let s)): return (.invalid(s), value)
        default: return (.invalid("\(value)"), value)
        }
    }

    /// A cell's value from its unescaped bytes (as ``value(_:type:style:scanner:)``).
    static func value(bytes b: UnsafeBufferPointer<UInt8>, type: CSVColumnType, style: CellStyle) -> CSVValue {
        if b.count == 0 { return type == .text ? .text("") : .null }
        var normal: [UInt8] = []
        if style != .standard, style.normalize(b, into: &normal) {
            if type == .date { return .text(String(decoding: normal, as: UTF8.self)) }
            if type == .decimal, let v = normal.withUnsafeBufferPointer({ ValueParser.decimal($0) }) { return .decimal(v) }
        }
        switch type {
        case .integer: if let v = ValueParser.integer(b) { return .integer(v) }
        case .decimal: if let v = ValueParser.decimal(b) { return .decimal(v) }
        case .bool: if let v = ValueParser.bool(b) { return .bool(v) }
        case .date, .text: break
        }
        return .text(String(decoding: b, as: UTF8.self))
    }
}
