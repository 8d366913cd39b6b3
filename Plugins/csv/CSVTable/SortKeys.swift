#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sort key: a column and a direction.
public struct CSVSortKey: Hashable, Sendable {
    public var column: Int
    public var descending: Bool
    public init(column: Int, descending: Bool = false) { self.column = column; self.descending = descending }
}

/// The compact sort keys of one column, extracted once per column and shared by every
/// sort order that uses it (in either direction).
///
/// Each row has a class (0 empty, 1 a value, 2 a value that does not parse as the
/// column's type) and a 64-bit key whose unsigned order is the ascending order:
/// numbers, dates and booleans map to it exactly; text keeps its first 8 bytes
/// (big-endian), and the full bytes are compared from the mapped file only when those tie.
final class ColumnKeys: @unchecked Sendable {
    static let arenaBit: UInt32 = 1 << 31

    let column: Int
    let isText: Bool
    let count: Int
    let fileBase: UnsafePointer<UInt8>
    private(set) var cls: [UInt8]
    private(set) var val: [UInt64]
    /// For text cells (and unparseable cells of typed columns): where the bytes are.
    private(set) var textStart: [Int] = []
    /// Their length; `arenaBit` set when they are in `arena` (fields with doubled quotes).
    private(set) var textLen: [UInt32] = []
    private var arena: UnsafeMutableBufferPointer<UInt8>

    /// Roughly how many bytes this object holds.
    var memoryFootprint: Int { count * 9 + textStart.count * 12 + arena.count }

    init(column: Int, type: CSVColumnType, file: MappedFile, scanner: FieldScanner, offsets: RowOffsets,
         isCancelled: () -> Bool) throws {
        self.column = column
        self.isText = type == .text
        self.count = offsets.count
        self.fileBase = file.base
        let n = offsets.count
        var cls = [UInt8](repeating: 0, count: n)
        var val = [UInt64](repeating: 0, count: n)
        var textStart: [Int] = isText ? [Int](repeating: 0, count: n) : []
        var textLen: [UInt32] = isText ? [UInt32](repeating: 0, count: n) : []
        var arena: [UInt8] = []
        let isText = self.isText
        var row = 0
        for chunk in offsets.chunks {
            if isCancelled() { throw CancellationError() }
            for start in chunk {
                defer { row += 1 }
                guard let span = scanner.field(column, ofRecord: start), span.count > 0 else { continue }
                let bytes = UnsafeBufferPointer(start: file.base + span.start, count: span.count)
                var key: UInt64? = nil
                if !span.escaped {
                    switch type {
                    case .text: break
                    case .integer: key = ValueParser.integer(bytes).map(ColumnKeys.key(int:))
                    case .decimal: key = ValueParser.decimal(bytes).map(ColumnKeys.key(double:))
                    case .date: key = ValueParser.date(bytes).map(ColumnKeys.key(int:))
                    case .bool: key = ValueParser.bool(bytes).map { $0 ? 1 : 0 }
                    }
                }
                if let key {
                    cls[row] = 1
                    val[row] = key
                    continue
                }
                // Text, or a cell that does not parse as the column's type.
                cls[row] = isText ? 1 : 2
                if textStart.isEmpty {
                    textStart = [Int](repeating: 0, count: n)
                    textLen = [UInt32](repeating: 0, count: n)
                }
                if span.escaped {
                    let unescaped = scanner.unescaped(span)
                    textStart[row] = arena.count
                    textLen[row] = UInt32(unescaped.count) | ColumnKeys.arenaBit
                    arena.append(contentsOf: unescaped)
                    val[row] = unescaped.withUnsafeBufferPointer { ColumnKeys.prefix($0, from: 0) }
                } else {
                    textStart[row] = span.start
                    textLen[row] = UInt32(span.count)
                    val[row] = ColumnKeys.prefix(bytes, from: 0)
                }
            }
        }
        self.cls = cls
        self.val = val
        self.textStart = textStart
        self.textLen = textLen
        self.arena = .allocate(capacity: max(arena.count, 1))
        _ = self.arena.initialize(from: arena)
    }

    deinit { arena.deallocate() }

    // MARK: Keys

    /// Order-preserving map of a signed integer onto UInt64.
    @inline(__always) static func key(int v: Int64) -> UInt64 { UInt64(bitPattern: v) ^ (1 << 63) }

    /// Order-preserving map of a double onto UInt64 (-0 and +0 are equal).
    @inline(__always) static func key(double d: Double) -> UInt64 {
        let bits = (d == 0 ? 0.0 : d).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    /// Eight bytes of `b` from `from` as a big-endian number, zero-padded.
    @inline(__always) static func prefix(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> UInt64 {
        let available = b.count - from
        if available >= 8 {
            return UInt64(bigEndian: UnsafeRawPointer(b.baseAddress! + from).loadUnaligned(as: UInt64.self))
        }
        var v: UInt64 = 0
        var i = 0
        while i < 8 {
            v <<= 8
            if i < available { v |= UInt64(b[from + i]) }
            i += 1
        }
        return v
    }

    // MARK: Access

    @inline(__always) func textBytes(_ row: Int) -> UnsafeBufferPointer<UInt8> {
        let len = textLen[row]
        if len & ColumnKeys.arenaBit != 0 {
            return UnsafeBufferPointer(start: arena.baseAddress! + textStart[row], count: Int(len & ~ColumnKeys.arenaBit))
        }
        return UnsafeBufferPointer(start: fileBase + textStart[row], count: Int(len))
    }

    @inline(__always) func textLength(_ row: Int) -> Int { Int(textLen[row] & ~ColumnKeys.arenaBit) }

    @inline(__always) func rowClass(_ row: Int) -> UInt8 { cls[row] }
    @inline(__always) func key(_ row: Int) -> UInt64 { val[row] }

    /// Eight bytes of a text cell starting at byte `depth`, big-endian, zero-padded.
    @inline(__always) func textChunk(_ row: Int, depth: Int) -> UInt64 {
        let b = textBytes(row)
        return depth >= b.count ? 0 : ColumnKeys.prefix(b, from: depth)
    }

    /// Ascending comparison of two rows: negative, zero or positive.
    @inline(__always) func compare(_ a: Int, _ b: Int) -> Int {
        let ca = cls[a], cb = cls[b]
        if ca != cb { return ca < cb ? -1 : 1 }
        if ca == 0 { return 0 }
        let va = val[a], vb = val[b]
        if va != vb { return va < vb ? -1 : 1 }
        if ca == 1 && !isText { return 0 }
        let ta = textBytes(a), tb = textBytes(b)
        let common = min(ta.count, tb.count)
        if common > 8 {
            let c = memcmp(ta.baseAddress! + 8, tb.baseAddress! + 8, common - 8)
            if c != 0 { return Int(c) }
        }
        return ta.count == tb.count ? 0 : (ta.count < tb.count ? -1 : 1)
    }
}
