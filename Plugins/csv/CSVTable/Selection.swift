import Foundation

/// An exact decimal number (or one of `-Infinity`, `Infinity`, `NaN`), for comparing cells
/// with the values of a structured filter exactly: `3.0` = `3.00`, `0.1` is not its binary
/// expansion. Finite values are kept as their significant digits and a power of ten.
public struct CSVNumber: Hashable, Sendable {
    public enum Kind: UInt8, Sendable { case negativeInfinity, finite, infinity, nan }
    public let kind: Kind
    let negative: Bool
    /// Significant digits (no leading or trailing zeros; empty for zero), value
    /// `0.d1d2d3… × 10^exponent`.
    let digits: [UInt8]
    let exponent: Int
    /// The nearest `Double` (correctly rounded), for a quick comparison first.
    let double: Double

    /// Parses `[+-]digits[.digits][e[+-]digits]`, `NaN`, `Infinity`, `-Infinity`.
    public init?(_ text: String) {
        switch text {
        case "NaN": self.init(kind: .nan); return
        case "Infinity", "+Infinity": self.init(kind: .infinity); return
        case "-Infinity": self.init(kind: .negativeInfinity); return
        default: break
        }
        let bytes = Array(text.utf8)
        guard let v = bytes.withUnsafeBufferPointer({ CSVNumber(bytes: $0) }) else { return nil }
        self = v
    }

    private init(kind: Kind) {
        self.kind = kind; negative = kind == .negativeInfinity; digits = []; exponent = 0
        double = kind == .nan ? .nan : (kind == .infinity ? .infinity : -.infinity)
    }

    /// Parses the bytes of a finite number (see ``init(_:)``).
    init?(bytes b: UnsafeBufferPointer<UInt8>) {
        var i = 0
        var negative = false
        if i < b.count && (b[i] == 0x2D || b[i] == 0x2B) { negative = b[i] == 0x2D; i += 1 }
        var digits: [UInt8] = []
        var pointAt: Int? = nil
        var seen = 0
        while i < b.count {
            let c = b[i]
            if c &- 0x30 < 10 { digits.append(c &- 0x30); seen += 1 } else if c == 0x2E && pointAt == nil { pointAt = digits.count } else { break }
            i += 1
        }
        guard seen > 0 else { return nil }
        var exp10 = 0
        if i < b.count && (b[i] == 0x65 || b[i] == 0x45) {
            i += 1
            var eneg = false
            if i < b.count && (b[i] == 0x2D || b[i] == 0x2B) { eneg = b[i] == 0x2D; i += 1 }
            let start = i
            while i < b.count, b[i] &- 0x30 < 10 { exp10 = min(exp10 * 10 + Int(b[i] &- 0x30), 1_000_000); i += 1 }
            guard i > start else { return nil }
            if eneg { exp10 = -exp10 }
        }
        guard i == b.count else { return nil }
        // value = 0.digits × 10^(intDigits + exp10), then strip leading and trailing zeros.
        var exponent = (pointAt ?? digits.count) + exp10
        var lead = 0
        while lead < digits.count && digits[lead] == 0 { lead += 1 }
        exponent -= lead
        var end = digits.count
        while end > lead && digits[end - 1] == 0 { end -= 1 }
        let significant = Array(digits[lead..<end])
        kind = .finite
        self.negative = negative && !significant.isEmpty
        self.digits = significant
        self.exponent = significant.isEmpty ? 0 : exponent
        double = ValueParser.decimal(b) ?? {
            var text = [CChar](repeating: 0, count: b.count + 1)
            for k in 0..<b.count { text[k] = CChar(bitPattern: b[k]) }
            return strtod(text, nil)
        }()
    }

    /// An integer.
    init(_ v: Int64) {
        let text = Array(String(v).utf8)
        self = text.withUnsafeBufferPointer { CSVNumber(bytes: $0)! }
    }

    /// -1, 0 or 1: the exact order (`-Infinity` < numbers < `Infinity` < `NaN`).
    static func compare(_ a: CSVNumber, _ b: CSVNumber) -> Int {
        if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue ? -1 : 1 }
        if a.kind != .finite { return 0 }
        if a.double != b.double { return a.double < b.double ? -1 : 1 }
        if a.negative != b.negative { return a.negative ? -1 : 1 }
        let m = magnitude(a, b)
        return a.negative ? -m : m
    }

    private static func magnitude(_ a: CSVNumber, _ b: CSVNumber) -> Int {
        if a.digits.isEmpty || b.digits.isEmpty { return a.digits.isEmpty == b.digits.isEmpty ? 0 : (a.digits.isEmpty ? -1 : 1) }
        if a.exponent != b.exponent { return a.exponent < b.exponent ? -1 : 1 }
        for (x, y) in zip(a.digits, b.digits) where x != y { return x < y ? -1 : 1 }
        return a.digits.count == b.digits.count ? 0 : (a.digits.count < b.digits.count ? -1 : 1)
    }
}

/// The operators of a structured filter condition (PROTOCOL.md 11.11).
public enum CSVWhereOp: String, Hashable, Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, between, oneOf, null, notNull
}

/// A value to compare cells with, of the column's type.
public enum CSVWhereValue: Hashable, Sendable {
    /// For integer and decimal columns.
    case number(CSVNumber)
    /// For date columns: milliseconds since 1970-01-01T00:00Z.
    case date(Int64)
    case bool(Bool)
    case text(String)
}

/// One condition of a structured filter on a column of the table (by index). Cells compare
/// as the column sorts: numbers exactly, dates by instant, `false` < `true`, text by bytes
/// (Unicode scalars; `=`, `!=` and `oneOf` exact). A null cell (an empty cell of a typed
/// column, a missing cell of a short row) meets only `null`; an empty text cell is the text
/// `""`. A cell that does not parse as its column's type meets only `notNull`.
public struct CSVCondition: Hashable, Sendable {
    public var column: Int
    public var op: CSVWhereOp
    public var values: [CSVWhereValue]

    public init(column: Int, op: CSVWhereOp, values: [CSVWhereValue] = []) {
        self.column = column; self.op = op; self.values = values
    }
}

/// The rows kept by a text filter and a structured filter together (both apply).
struct Selection: Hashable {
    var filter: String?
    var conditions: [CSVCondition]

    init(filter: String?, conditions: [CSVCondition]) {
        self.filter = filter.flatMap { $0.isEmpty ? nil : $0 }
        self.conditions = conditions
    }

    var isEmpty: Bool { filter == nil && conditions.isEmpty }
}

/// What a cell is, for a condition.
enum CellClass { case null, value, invalid }

/// Evaluates conditions on the cells of a record (compiled once per scan).
struct ConditionEvaluator {
    let conditions: [CSVCondition]
    let types: [CSVColumnType]
    let styles: [CellStyle]
    /// The highest column a condition reads.
    let lastColumn: Int

    init(_ conditions: [CSVCondition], columns: [CSVColumn]) {
        self.conditions = conditions
        types = columns.map(\.type)
        styles = columns.map(\.style)
        lastColumn = conditions.map(\.column).max() ?? -1
    }

    /// Whether the record at `start` meets every condition. `spans` is scratch space of at
    /// least `lastColumn + 1` entries; `normal` scratch for styled cells.
    func matches(record start: Int, scanner: FieldScanner, spans: UnsafeMutablePointer<FieldSpan?>,
                 normal: inout [UInt8]) -> Bool {
        if conditions.isEmpty { return true }
        let last = lastColumn
        for k in 0...last { spans[k] = nil }
        _ = scanner.scan(record: start) { j, span in
            spans[j] = span
            return j < last
        }
        for c in conditions {
            if !holds(c, spans[c.column], scanner: scanner, normal: &normal) { return false }
        }
        return true
    }

    /// Whether one condition holds for a cell (nil span: the record has no such field).
    func holds(_ c: CSVCondition, _ span: FieldSpan?, scanner: FieldScanner, normal: inout [UInt8]) -> Bool {
        let type = types[c.column], style = styles[c.column]
        guard let span, span.count > 0 || type == .text else { return c.op == .null }
        if c.op == .null { return false }
        if c.op == .notNull { return true }
        if span.escaped {
            // Doubled quotes: never a number, a date or a bool.
            guard type == .text else { return false }
            let bytes = scanner.unescaped(span)
            return bytes.withUnsafeBufferPointer { b in evaluate(c) { ConditionEvaluator.compareText(b, $0) } }
        }
        var bytes = UnsafeBufferPointer(start: scanner.base + span.start, count: span.count)
        if type == .text { return evaluate(c) { ConditionEvaluator.compareText(bytes, $0) } }
        if style != .standard, style.normalize(bytes, into: &normal) {
            return normal.withUnsafeBufferPointer { b in typed(c, type: type, b) }
        }
        bytes = UnsafeBufferPointer(start: scanner.base + span.start, count: span.count)
        return typed(c, type: type, bytes)
    }

    private func typed(_ c: CSVCondition, type: CSVColumnType, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        switch type {
        case .integer:
            guard let v = ValueParser.integer(b) else { return false }
            return evaluate(c) { value in
                guard case .number(let n) = value else { return nil }
                return ConditionEvaluator.compareInteger(v, b, n)
            }
        case .decimal:
            guard let d = ValueParser.decimal(b) else { return false }
            return evaluate(c) { value in
                guard case .number(let n) = value else { return nil }
                if n.kind != .finite { return n.kind == .negativeInfinity ? 1 : -1 }
                if d != n.double { return d < n.double ? -1 : 1 }
                guard let exact = CSVNumber(bytes: b) else { return nil }
                return CSVNumber.compare(exact, n)
            }
        case .date:
            guard let ms = ValueParser.date(b) else { return false }
            return evaluate(c) { value in
                guard case .date(let t) = value else { return nil }
                return ms < t ? -1 : (ms == t ? 0 : 1)
            }
        case .bool:
            guard let v = ValueParser.bool(b) else { return false }
            return evaluate(c) { value in
                guard case .bool(let x) = value else { return nil }
                return v == x ? 0 : (v ? 1 : -1)
            }
        case .text:
            return evaluate(c) { ConditionEvaluator.compareText(b, $0) }
        }
    }

    /// Applies the operator given how the cell compares with each value (nil: not comparable).
    @inline(__always) private func evaluate(_ c: CSVCondition, _ cmp: (CSVWhereValue) -> Int?) -> Bool {
        switch c.op {
        case .equal: return cmp(c.values[0]) == 0
        case .notEqual: return cmp(c.values[0]).map { $0 != 0 } ?? false
        case .less: return cmp(c.values[0]).map { $0 < 0 } ?? false
        case .lessOrEqual: return cmp(c.values[0]).map { $0 <= 0 } ?? false
        case .greater: return cmp(c.values[0]).map { $0 > 0 } ?? false
        case .greaterOrEqual: return cmp(c.values[0]).map { $0 >= 0 } ?? false
        case .between:
            guard let low = cmp(c.values[0]), let high = cmp(c.values[1]) else { return false }
            return low >= 0 && high <= 0
        case .oneOf: return c.values.contains { cmp($0) == 0 }
        case .null, .notNull: return false
        }
    }

    static func compareInteger(_ v: Int64, _ b: UnsafeBufferPointer<UInt8>, _ n: CSVNumber) -> Int {
        if n.kind != .finite { return n.kind == .negativeInfinity ? 1 : -1 }
        let d = Double(v)
        if d != n.double { return d < n.double ? -1 : 1 }
        return CSVNumber.compare(CSVNumber(v), n)
    }

    static func compareText(_ b: UnsafeBufferPointer<UInt8>, _ value: CSVWhereValue) -> Int? {
        guard case .text(let text) = value else { return nil }
        var s = text
        return s.withUTF8 { t in
            let n = min(b.count, t.count)
            let c = n == 0 ? 0 : memcmp(b.baseAddress!, t.baseAddress!, n)
            if c != 0 { return c < 0 ? -1 : 1 }
            return b.count == t.count ? 0 : (b.count < t.count ? -1 : 1)
        }
    }
}

/// Finds the rows a ``Selection`` keeps: one pass over the records, split over the cores
/// (each part fills whole 64-bit words of the result, so the parts never share one).
struct SelectionScan {
    let selection: Selection
    let table: CSVTable

    /// How many parts a pass over `rows` rows is split into.
    static func parts(rows: Int) -> Int {
        max(1, min(ProcessInfo.processInfo.activeProcessorCount, rows / 65_536 + 1, 16))
    }

    /// Row ranges for `parts` parts, bounds multiples of 64.
    static func ranges(rows: Int, parts: Int) -> [Range<Int>] {
        let words = (rows + 63) / 64
        return (0..<parts).map { p in
            let from = min(rows, words * p / parts * 64), to = min(rows, words * (p + 1) / parts * 64)
            return from..<to
        }
    }

    func run(offsets: RowOffsets, isCancelled: () -> Bool) throws -> RowSet {
        let rows = offsets.count
        var set = RowSet(rows: rows)
        let parts = Self.parts(rows: rows)
        let ranges = Self.ranges(rows: rows, parts: parts)
        let filter = selection.filter.map { RowFilter(needle: $0) }
        let evaluator = ConditionEvaluator(selection.conditions, columns: table.columns)
        let scanner = table.scanner, file = table.file, columns = table.columns.count
        /// What the parts share: the bitmap's words (each part writes its own), the counts.
        final class Job: @unchecked Sendable {
            let lock = NSLock()
            var counts: [Int]
            var cancelled = false
            let words: UnsafeMutablePointer<UInt64>
            let isCancelled: () -> Bool
            init(parts: Int, words: Int, isCancelled: @escaping () -> Bool) {
                counts = Array(repeating: 0, count: parts)
                self.words = .allocate(capacity: max(words, 1))
                self.words.initialize(repeating: 0, count: max(words, 1))
                self.isCancelled = isCancelled
            }
            deinit { words.deallocate() }
        }
        let wordCount = set.words.count
        try withoutActuallyEscaping(isCancelled) { cancelled in
                let job = Job(parts: parts, words: wordCount, isCancelled: cancelled)
                DispatchQueue.concurrentPerform(iterations: parts) { p in
                    let range = ranges[p]
                    guard !range.isEmpty else { return }
                    let spans = UnsafeMutablePointer<FieldSpan?>.allocate(capacity: max(1, evaluator.lastColumn + 1))
                    defer { spans.deallocate() }
                    var normal: [UInt8] = []
                    var released = offsets[range.lowerBound]
                    var count = 0
                    for row in range {
                        let start = offsets[row]
                        if row & 0xFFFF == 0 {
                            if job.isCancelled() { job.lock.lock(); job.cancelled = true; job.lock.unlock(); return }
                            file.passed(start, released: &released)
                        }
                        if let filter {
                            let end = row + 1 < rows ? offsets[row + 1] : file.count
                            if !filter.matches(record: start, end: end, scanner: scanner, columns: columns) { continue }
                        }
                        if !evaluator.matches(record: start, scanner: scanner, spans: spans, normal: &normal) { continue }
                        job.words[row >> 6] |= 1 << UInt64(row & 63)
                        count += 1
                    }
                    file.release(released, range.upperBound < rows ? offsets[range.upperBound] : file.count)
                    job.lock.lock(); job.counts[p] = count; job.lock.unlock()
                }
                if job.cancelled { throw CancellationError() }
                set.words = Array(UnsafeBufferPointer(start: job.words, count: wordCount))
                set.count = job.counts.reduce(0, +)
        }
        return set
    }
}
