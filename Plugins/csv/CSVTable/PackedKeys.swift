#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The class and 64-bit key of every row of one column (see ``ColumnKeys``), in chunks of
/// ``RowOffsets/chunkSize`` rows, each chunk as small as its keys allow (issue 14: a compact
/// columnar layout for sort keys).
///
/// - A chunk whose rows are all empty (class 0) or values (class 1), with keys spanning less
///   than 2^57, keeps one code a row, bit-packed (``BitPacking``) at the width the span needs:
///   0 for empty, `key - base + 1` for a value. Ranks of a few thousand distinct names take
///   13 bits a row, amounts in cents 35, dates 25 to 40.
/// - Any other chunk (an unparseable cell, or keys spread over the whole 64-bit range like
///   text prefixes and `Double`s) keeps a class byte and the whole key: 9 bytes a row.
///
/// Built by a ``PackedKeys/Builder`` (chunks appended in order, every chunk but the last
/// full), then read-only: everything read while sorting is a constant.
final class PackedKeys: @unchecked Sendable {
    fileprivate struct Chunk {
        /// Where the chunk starts in the arena.
        var offset: Int
        /// The key of code 1 (packed chunks), or where the keys start (wide chunks).
        var base: UInt64
        var mask: UInt64
        /// Bits a code (0...57), or ``PackedKeys/wide``.
        var width: Int
    }

    /// The width of a chunk stored whole: the class bytes, then the keys (8-byte aligned).
    fileprivate static let wide = 64

    private let chunks: UnsafeMutablePointer<Chunk>
    private let chunkCount: Int
    private let arena: UnsafeMutableRawPointer
    /// Rows held.
    let count: Int
    /// Bytes held.
    let byteCount: Int

    fileprivate init(chunks: [Chunk], arena: UnsafeMutableRawPointer, arenaBytes: Int, count: Int) {
        self.chunks = .allocate(capacity: max(chunks.count, 1))
        self.chunks.initialize(from: chunks, count: chunks.count)
        chunkCount = chunks.count
        self.arena = arena
        self.count = count
        byteCount = arenaBytes + chunks.count * MemoryLayout<Chunk>.stride
    }

    /// No rows.
    convenience init() { self.init(chunks: [], arena: malloc(8)!, arenaBytes: 8, count: 0) }

    deinit { chunks.deallocate(); free(arena) }

    /// The same rows with every value's key replaced by `transform(key)` (classes kept).
    func mapped(_ transform: (UInt64) -> UInt64) -> PackedKeys {
        let builder = Builder()
        builder.append(contentsOf: self, mapping: transform)
        return builder.finish()
    }

    /// The class and key of `row`.
    @inline(__always) func entry(_ row: Int) -> (UInt8, UInt64) {
        let chunk = chunks[row >> RowOffsets.shift]
        let i = row & RowOffsets.mask
        let start = UnsafeRawPointer(arena) + chunk.offset
        if chunk.width != PackedKeys.wide {
            let code = BitPacking.read(start, i, width: chunk.width, mask: chunk.mask)
            return code == 0 ? (0, 0) : (1, chunk.base &+ code &- 1)
        }
        return (start.load(fromByteOffset: i, as: UInt8.self),
                start.loadUnaligned(fromByteOffset: Int(chunk.base) &+ i &* 8, as: UInt64.self))
    }

    /// The class of `row`: 0 empty, 1 a value, 2 unparseable.
    @inline(__always) func rowClass(_ row: Int) -> UInt8 { entry(row).0 }

    /// The key of `row` (0 for empty).
    @inline(__always) func key(_ row: Int) -> UInt64 { entry(row).1 }

    /// Packs chunks as they are extracted.
    final class Builder {
        private var chunks: [Chunk] = []
        private var arena: UnsafeMutableRawPointer?
        private var used = 0
        private var capacity = 0
        private var count = 0

        init() {}

        deinit { free(arena) }

        /// Appends the next chunk: `count` rows' classes (0, 1 or 2) and keys (0 for empty).
        func append(classes: UnsafePointer<UInt8>, keys: UnsafePointer<UInt64>, count n: Int) {
            precondition(count & RowOffsets.mask == 0 && n <= RowOffsets.chunkSize, "chunks are appended whole")
            var low = UInt64.max, high: UInt64 = 0, values = 0, unparseable = false
            for i in 0..<n {
                switch classes[i] {
                case 0: continue
                case 1:
                    values += 1
                    low = min(low, keys[i]); high = max(high, keys[i])
                default: unparseable = true
                }
            }
            let span = values == 0 ? 0 : high - low
            if !unparseable && span < (1 << BitPacking.maxWidth) - 1 {
                let width = BitPacking.width(ofMaxCode: values == 0 ? 0 : span + 1)
                let base = values == 0 ? 0 : low
                let at = reserve(BitPacking.byteCount(count: n, width: width))
                BitPacking.write(arena! + at, count: n, width: width) { i in classes[i] == 0 ? 0 : keys[i] &- base &+ 1 }
                chunks.append(Chunk(offset: at, base: base, mask: BitPacking.mask(width: width), width: width))
            } else {
                let keysAt = (n + 7) & ~7
                let at = reserve(keysAt + n * 8)
                (arena! + at).copyMemory(from: classes, byteCount: n)
                (arena! + at + keysAt).copyMemory(from: keys, byteCount: n * 8)
                chunks.append(Chunk(offset: at, base: UInt64(keysAt), mask: 0, width: PackedKeys.wide))
            }
            count += n
        }

        /// Appends the rows of `keys` (whole chunks: this builder must be empty or hold
        /// whole chunks), every value's key replaced by `transform(key)`.
        func append(contentsOf keys: PackedKeys, mapping transform: (UInt64) -> UInt64) {
            let classes = UnsafeMutablePointer<UInt8>.allocate(capacity: RowOffsets.chunkSize)
            let values = UnsafeMutablePointer<UInt64>.allocate(capacity: RowOffsets.chunkSize)
            defer { classes.deallocate(); values.deallocate() }
            var row = 0
            while row < keys.count {
                let n = min(RowOffsets.chunkSize, keys.count - row)
                for i in 0..<n {
                    let (c, k) = keys.entry(row + i)
                    classes[i] = c
                    values[i] = c == 1 ? transform(k) : k
                }
                append(classes: classes, keys: values, count: n)
                row += n
            }
        }

        /// The keys appended (the arena's unused capacity given back); the builder is then empty.
        func finish() -> PackedKeys {
            let bytes = max(used, 8)
            let arena = realloc(self.arena, bytes)!
            self.arena = nil
            let keys = PackedKeys(chunks: chunks, arena: arena, arenaBytes: bytes, count: count)
            chunks = []; used = 0; capacity = 0; count = 0
            return keys
        }

        /// Room for `bytes` more at the end of the arena; returns where it starts.
        private func reserve(_ bytes: Int) -> Int {
            let at = (used + 7) & ~7
            if at + bytes > capacity {
                var grown = max(capacity * 2, 1 << 20)
                while grown < at + bytes { grown *= 2 }
                guard let p = realloc(arena, grown) else { fatalError("out of memory for sort keys") }
                arena = p
                capacity = grown
            }
            used = at + bytes
            return at
        }
    }
}
