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
/// column's type) and a 64-bit key whose unsigned order is the ascending order, kept in
/// ``PackedKeys`` (a few bytes a row where the keys allow): integers, dates and booleans
/// map to it exactly; decimals as exact whole numbers of their smallest sampled unit (cents
/// for money), or as `Double`s once a cell has more digits; text with few distinct values
/// as the rank of its text; other text keeps its first 8 bytes (big-endian, zero-padded)
/// there, its length, and the bytes after the first 8 in an arena of this object. Sorting
/// never reads the mapped file, so its pages need not stay resident (the extraction pass
/// gives them back behind itself).
final class ColumnKeys: @unchecked Sendable {
    /// A text column with at most this many distinct values is keyed by their ranks.
    static let dictionaryLimit = 1 << 17

    let column: Int
    let isText: Bool
    /// Whether equal keys of value cells (class 1) mean equal cells: typed columns, and text
    /// columns keyed by the rank of their text in the column's dictionary.
    let isExact: Bool
    /// Rows with keys (all rows of the index the keys were extracted from).
    var count: Int { keys.count }
    private var keys = PackedKeys()
    /// For text cells (and unparseable cells of typed columns), one word (one memory read
    /// when sorting): the length in bytes (doubled quotes collapsed) in the top 24 bits, and
    /// where the bytes after the first 8 start in `arena` in the low 40 bits.
    private var textRef: [UInt64] = []
    /// Lengths of 16 MiB or more (the top 24 bits of `textRef` then hold `longLength`).
    private var longLengths: [Int: Int] = [:]
    private static let longLength = 0xFF_FFFF
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount = 0
    private var arenaCapacity = 0

    /// Roughly how many bytes this object holds.
    var memoryFootprint: Int { keys.byteCount + textRef.count * 8 + arenaCapacity }

    /// Extracts the keys of `column` in one pass over the rows (giving the file's pages back
    /// behind it). Text columns with at most `dictionaryLimit` distinct values get exact
    /// rank keys; others (and unparseable cells of typed columns) prefixes and suffixes.
    /// `scale`: for a decimal column, the digits after the point its keys count in (nil:
    /// `Double` keys from the start).
    convenience init(column: Int, type: CSVColumnType, scale: Int? = nil, style: CellStyle = .standard, file: MappedFile,
                     scanner: FieldScanner, offsets: RowOffsets, dictionaryLimit: Int = ColumnKeys.dictionaryLimit,
                     isCancelled: () -> Bool) throws {
        try self.init(column: column, type: type, scale: scale, style: style, file: file, scanner: scanner,
                      rows: RowSource(offsets: offsets), dictionaryLimit: dictionaryLimit, isCancelled: isCancelled)
    }

    /// The same, from an index that may still be growing: each chunk is read as soon as the
    /// indexer publishes it, so extraction runs alongside indexing.
    /// Bytes of a styled cell's standard form that are keyed (longer ones are keyed as text).
    static let scratchSize = 64

    init(column: Int, type: CSVColumnType, scale: Int? = nil, style: CellStyle = .standard, file: MappedFile,
         scanner: FieldScanner, rows source: RowSource, dictionaryLimit: Int = ColumnKeys.dictionaryLimit, isCancelled: () -> Bool) throws {
        self.column = column
        self.isText = type == .text
        arena = malloc(1)!.assumingMemoryBound(to: UInt8.self)
        if isText, let ranked = try ColumnKeys.rankedTexts(column: column, file: file, scanner: scanner, source: source,
                                                           limit: dictionaryLimit, isCancelled: isCancelled) {
            keys = ranked
            isExact = true
            return
        }
        isExact = !isText
        var extracted = PackedKeys.Builder()
        let chunkClasses = UnsafeMutablePointer<UInt8>.allocate(capacity: RowOffsets.chunkSize)
        let chunkKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: RowOffsets.chunkSize)
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.scratchSize)
        var normal: [UInt8] = []
        defer { chunkClasses.deallocate(); chunkKeys.deallocate(); scratch.deallocate() }
        if isText { textRef.reserveCapacity(source.estimatedRows(fileSize: file.count)) }
        let isText = self.isText
        // Decimals count in whole units of 10^-scale until a cell needs more digits.
        var scale = type == .decimal ? scale.flatMap { (0...15).contains($0) ? $0 : nil } : nil
        var row = 0
        var released = -1
        var chunkIndex = 0
        while let chunk = try source.chunk(chunkIndex, isCancelled: isCancelled) {
            chunkIndex += 1
            if isCancelled() { throw CancellationError() }
            if isText || !textRef.isEmpty { textRef.append(contentsOf: repeatElement(0, count: chunk.count)) }
            let first = chunk[0]
            if released < 0 { released = first }
            file.passed(first, released: &released)
            for i in 0..<chunk.count {
                defer { row += 1 }
                chunkClasses[i] = 0
                chunkKeys[i] = 0
                guard let span = scanner.field(column, ofRecord: chunk[i]), span.count > 0 else { continue }
                var bytes = UnsafeBufferPointer(start: file.base + span.start, count: span.count)
                var key: UInt64? = nil
                // A styled cell (decimal comma, day-first date) is keyed on its standard form.
                if style != .standard, !span.escaped, style.normalize(bytes, into: &normal), normal.count <= Self.scratchSize {
                    for k in normal.indices { scratch[k] = normal[k] }
                    bytes = UnsafeBufferPointer(start: scratch, count: normal.count)
                }
                if !span.escaped {
                    switch type {
                    case .text: break
                    case .integer: key = ValueParser.integer(bytes).map(ColumnKeys.key(int:))
                    case .decimal:
                        guard let s = scale else { key = ValueParser.decimal(bytes).map(ColumnKeys.key(double:)); break }
                        switch ValueParser.decimal(bytes, scale: s) {
                        case .scaled(let v): key = ColumnKeys.key(int: v)
                        case .invalid: break
                        case .unscaled(let d):
                            // More digits than the unit: every key so far becomes its `Double`'s.
                            let toDouble = { (k: UInt64) in ColumnKeys.key(double: ValueParser.scaledAsDouble(ColumnKeys.int(key: k), scale: s)) }
                            let converted = PackedKeys.Builder()
                            converted.append(contentsOf: extracted.finish(), mapping: toDouble)
                            extracted = converted
                            for j in 0..<i where chunkClasses[j] == 1 { chunkKeys[j] = toDouble(chunkKeys[j]) }
                            scale = nil
                            key = ColumnKeys.key(double: d)
                        }
                    case .date: key = ValueParser.date(bytes).map(ColumnKeys.key(int:))
                    case .bool: key = ValueParser.bool(bytes).map { $0 ? 1 : 0 }
                    }
                }
                if let key {
                    chunkClasses[i] = 1
                    chunkKeys[i] = key
                    continue
                }
                // Text, or a cell that does not parse as the column's type.
                chunkClasses[i] = isText ? 1 : 2
                if textRef.isEmpty { textRef = [UInt64](repeating: 0, count: row - i + chunk.count) }
                if span.escaped {
                    let unescaped = scanner.unescaped(span)
                    chunkKeys[i] = unescaped.withUnsafeBufferPointer { storeText($0, row: row) }
                } else {
                    chunkKeys[i] = storeText(bytes, row: row)
                }
            }
            extracted.append(classes: chunkClasses, keys: chunkKeys, count: chunk.count)
        }
        file.release(max(released, 0), file.count)
        keys = extracted.finish()
        if arenaCapacity > arenaCount, let shrunk = realloc(arena, max(arenaCount, 1)) {
            arena = shrunk.assumingMemoryBound(to: UInt8.self)
            arenaCapacity = max(arenaCount, 1)
        }
    }

    deinit { free(arena) }

    /// Classes and keys of a text column keyed by ranks in its dictionary of distinct texts,
    /// or nil when it has more than `limit` of them (found early: the pass stops).
    private static func rankedTexts(column: Int, file: MappedFile, scanner: FieldScanner, source: RowSource,
                                    limit: Int, isCancelled: () -> Bool) throws -> PackedKeys? {
        var dictionary = TextDictionary(limit: limit)
        let ids = PackedKeys.Builder()
        let chunkClasses = UnsafeMutablePointer<UInt8>.allocate(capacity: RowOffsets.chunkSize)
        let chunkKeys = UnsafeMutablePointer<UInt64>.allocate(capacity: RowOffsets.chunkSize)
        defer { chunkClasses.deallocate(); chunkKeys.deallocate() }
        var released = -1
        var chunkIndex = 0
        while let chunk = try source.chunk(chunkIndex, isCancelled: isCancelled) {
            chunkIndex += 1
            if isCancelled() { throw CancellationError() }
            let first = chunk[0]
            if released < 0 { released = first }
            file.passed(first, released: &released)
            for i in 0..<chunk.count {
                chunkClasses[i] = 0
                chunkKeys[i] = 0
                guard let span = scanner.field(column, ofRecord: chunk[i]), span.count > 0 else { continue }
                let id: UInt32?
                if span.escaped {
                    id = scanner.unescaped(span).withUnsafeBufferPointer { dictionary.id(of: $0) }
                } else {
                    id = dictionary.id(of: UnsafeBufferPointer(start: file.base + span.start, count: span.count))
                }
                guard let id else { return nil }
                chunkClasses[i] = 1
                chunkKeys[i] = UInt64(id)
            }
            ids.append(classes: chunkClasses, keys: chunkKeys, count: chunk.count)
        }
        file.release(max(released, 0), file.count)
        let rank = dictionary.ranks()
        return ids.finish().mapped { UInt64(rank[Int($0)]) }
    }

    /// Records a text cell's length and suffix; returns its 8-byte prefix key.
    private func storeText(_ b: UnsafeBufferPointer<UInt8>, row: Int) -> UInt64 {
        let length = b.count
        var ref = UInt64(min(length, ColumnKeys.longLength)) << 40
        if length >= ColumnKeys.longLength { longLengths[row] = length }
        if length > 8 {
            let rest = length - 8
            if arenaCount + rest > arenaCapacity {
                var capacity = max(arenaCapacity * 2, 1 << 20)
                while capacity < arenaCount + rest { capacity *= 2 }
                guard let grown = realloc(arena, capacity) else { fatalError("out of memory for sort keys of column \(column)") }
                arena = grown.assumingMemoryBound(to: UInt8.self)
                arenaCapacity = capacity
            }
            (arena + arenaCount).update(from: b.baseAddress! + 8, count: rest)
            ref |= UInt64(arenaCount)
            arenaCount += rest
        }
        textRef[row] = ref
        return ColumnKeys.prefix(b, from: 0)
    }

    // MARK: Keys

    /// Order-preserving map of a signed integer onto UInt64.
    @inline(__always) static func key(int v: Int64) -> UInt64 { UInt64(bitPattern: v) ^ (1 << 63) }

    /// The integer of a ``key(int:)``.
    @inline(__always) static func int(key k: UInt64) -> Int64 { Int64(bitPattern: k ^ (1 << 63)) }

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

    /// The bytes of a text cell after its first 8 (empty when it has 8 or fewer).
    @inline(__always) func suffix(_ row: Int) -> UnsafeBufferPointer<UInt8> {
        let ref = textRef[row]
        let len = length(ref, row: row)
        if len <= 8 { return UnsafeBufferPointer(start: arena, count: 0) }
        return UnsafeBufferPointer(start: arena + Int(ref & 0xFF_FFFF_FFFF), count: len - 8)
    }

    @inline(__always) func length(_ ref: UInt64, row: Int) -> Int {
        let len = Int(ref >> 40)
        return len == ColumnKeys.longLength ? longLength(row) : len
    }

    @inline(never) private func longLength(_ row: Int) -> Int { longLengths[row]! }

    @inline(__always) func textLength(_ row: Int) -> Int { length(textRef[row], row: row) }

    /// The class and key of `row` (one decode).
    @inline(__always) func entry(_ row: Int) -> (UInt8, UInt64) { keys.entry(row) }
    @inline(__always) func rowClass(_ row: Int) -> UInt8 { keys.rowClass(row) }
    @inline(__always) func key(_ row: Int) -> UInt64 { keys.key(row) }

    /// Eight bytes of a text cell starting at byte `depth` (8 or more), big-endian, zero-padded.
    @inline(__always) func textChunk(_ row: Int, depth: Int) -> UInt64 {
        let b = suffix(row)
        let from = depth - 8
        return from >= b.count ? 0 : ColumnKeys.prefix(b, from: from)
    }

    /// Ascending comparison of two rows: negative, zero or positive.
    @inline(__always) func compare(_ a: Int, _ b: Int) -> Int {
        let (ca, va) = keys.entry(a), (cb, vb) = keys.entry(b)
        if ca != cb { return ca < cb ? -1 : 1 }
        if ca == 0 { return 0 }
        if va != vb { return va < vb ? -1 : 1 }
        if ca == 1 && isExact { return 0 }
        let la = textLength(a), lb = textLength(b)
        if la > 8 && lb > 8 {
            let c = memcmp(suffix(a).baseAddress!, suffix(b).baseAddress!, min(la, lb) - 8)
            if c != 0 { return Int(c) }
        }
        return la == lb ? 0 : (la < lb ? -1 : 1)
    }
}
