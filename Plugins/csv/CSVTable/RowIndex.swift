import Foundation

/// Up to 65,536 record offsets, bit-packed (``BitPacking``) as their distance from the
/// chunk's first one: a chunk of 65,536 rows of 100 bytes spans 6.5 MB, 23 bits a row.
/// Made once by the indexer, then read-only.
final class OffsetChunk: @unchecked Sendable {
    private let base: Int
    private let width: Int
    private let mask: UInt64
    private let bytes: UnsafeMutableRawPointer
    let count: Int

    /// Packs `count` ascending offsets.
    init(offsets: UnsafePointer<Int>, count: Int) {
        self.count = count
        base = count > 0 ? offsets[0] : 0
        width = BitPacking.width(ofMaxCode: count > 0 ? UInt64(offsets[count - 1] - base) : 0)
        mask = BitPacking.mask(width: width)
        bytes = .allocate(byteCount: BitPacking.byteCount(count: count, width: width), alignment: 8)
        let base = self.base
        BitPacking.write(bytes, count: count, width: width) { UInt64(offsets[$0] - base) }
    }

    deinit { bytes.deallocate() }

    @inline(__always) subscript(i: Int) -> Int { base &+ Int(BitPacking.read(bytes, i, width: width, mask: mask)) }

    /// Bytes held.
    var byteCount: Int { BitPacking.byteCount(count: count, width: width) }
}

/// Byte offsets of the data records, in chunks of 65,536 so that a background indexer
/// can publish rows while readers use the ones already found.
struct RowOffsets: Sendable {
    static let shift = 16
    static let chunkSize = 1 << shift
    static let mask = chunkSize - 1

    var chunks: [OffsetChunk] = []
    var count = 0
    var complete = false

    @inline(__always) subscript(row: Int) -> Int { chunks[row >> RowOffsets.shift][row & RowOffsets.mask] }
}

/// The record index of one file, filled by ``IndexBuilder``, read by anyone.
final class RowIndex: @unchecked Sendable {
    private let condition = NSCondition()
    private var offsets = RowOffsets()

    /// The rows found so far.
    func snapshot() -> RowOffsets {
        condition.lock(); defer { condition.unlock() }
        return offsets
    }

    /// Publishes a chunk of record offsets (full, or the last one).
    func publish(_ chunk: OffsetChunk, complete: Bool) {
        condition.lock()
        if chunk.count > 0 {
            offsets.chunks.append(chunk)
            offsets.count += chunk.count
        }
        offsets.complete = complete
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until at least `rows` rows are indexed or the index is complete.
    func wait(forRows rows: Int, isCancelled: () -> Bool) throws -> RowOffsets {
        condition.lock(); defer { condition.unlock() }
        while offsets.count < rows && !offsets.complete {
            if isCancelled() { throw CancellationError() }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        if isCancelled() { throw CancellationError() }
        return offsets
    }

    /// Chunk `i` of the index, waiting until the indexer published it; nil when the index
    /// is complete with fewer chunks. (Chunks are published full, except the last one.)
    func chunk(_ i: Int, isCancelled: () -> Bool) throws -> OffsetChunk? {
        condition.lock(); defer { condition.unlock() }
        while offsets.chunks.count <= i && !offsets.complete {
            if isCancelled() { throw CancellationError() }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        return i < offsets.chunks.count ? offsets.chunks[i] : nil
    }

    /// Whether the whole file is indexed.
    var isComplete: Bool { snapshot().complete }

    /// Waits until the whole file is indexed.
    func waitComplete(isCancelled: () -> Bool) throws -> RowOffsets {
        try wait(forRows: .max, isCancelled: isCancelled)
    }
}

/// Finds the start of every record, one pass over the mapped bytes.
///
/// Lines without a quote (most of them) are found with two `memchr` calls; lines with
/// a quote run the same state machine as ``FieldScanner`` so that both agree on where a
/// record ends. Blank lines (empty or a lone `\r`) are skipped.
final class IndexBuilder: @unchecked Sendable {
    let file: MappedFile
    let delimiter: UInt8
    let index: RowIndex
    private(set) var position: Int
    /// The offsets found since the last chunk was published.
    private let pending = UnsafeMutablePointer<Int>.allocate(capacity: RowOffsets.chunkSize)
    private var pendingCount = 0
    /// File bytes before this offset were given back to the kernel (see ``MappedFile/release``).
    private var released = 0
    private var rowsPublished = 0
    /// Set to stop a background run (the table was closed).
    nonisolated(unsafe) var stopped = false

    init(file: MappedFile, delimiter: UInt8, dataStart: Int, index: RowIndex) {
        self.file = file; self.delimiter = delimiter; self.index = index; self.position = dataStart
    }

    deinit { pending.deallocate() }

    var finished: Bool { position >= file.count }

    /// Publishes the pending offsets as a chunk.
    private func publishPending(complete: Bool) {
        index.publish(OffsetChunk(offsets: pending, count: pendingCount), complete: complete)
        rowsPublished += pendingCount
        pendingCount = 0
    }

    /// Indexes up to `maxChunks` chunks; publishes each one and reports (bytes done, bytes in
    /// all, rows so far). Returns true when the file is done.
    func run(maxChunks: Int, progress: ((Int, Int, Int) -> Void)? = nil) -> Bool {
        let base = file.base, limit = file.count
        var published = 0
        // Where the next quote is: lines that end before it need no look for quotes (most
        // files have none, and then this is one `memchr` over the whole file).
        var nextQuote = -1
        while position < limit {
            if stopped {
                // Closed: release anyone waiting for rows (they get what was found).
                publishPending(complete: true)
                return false
            }
            let start = position
            if nextQuote < start { nextQuote = IndexBuilder.find(Byte.quote, base: base, from: start, limit: limit) }
            let end: Int
            let lineEnd = IndexBuilder.find(Byte.newline, base: base, from: start, limit: limit)
            if lineEnd < nextQuote {
                end = lineEnd < limit ? lineEnd + 1 : limit
            } else {
                // Parse from the start of the field holding the quote: the fields before it
                // hold no quote, so they end at the next delimiter.
                var fieldStart = nextQuote
                while fieldStart > start && base[fieldStart - 1] != delimiter { fieldStart -= 1 }
                end = IndexBuilder.slowRecordEnd(base: base, from: fieldStart, limit: limit, delimiter: delimiter)
            }
            position = end
            let length = end - start
            if (length == 1 && (base[start] == Byte.newline || base[start] == Byte.cr))
                || (length == 2 && base[start] == Byte.cr && base[start + 1] == Byte.newline) { continue }
            pending[pendingCount] = start
            pendingCount += 1
            if pendingCount == RowOffsets.chunkSize {
                publishPending(complete: position >= limit)
                published += 1
                // The bytes read so far are in the page cache; keep them out of this process's RSS.
                file.passed(position, released: &released)
                progress?(position, limit, rowsPublished)
                if published >= maxChunks && position < limit { return false }
            }
        }
        publishPending(complete: true)
        file.release(released, limit)
        released = limit
        progress?(limit, limit, rowsPublished)
        return true
    }

    /// The offset just past the record that starts at `start` (past its `\n`, or `limit`).
    @inline(__always)
    static func recordEnd(base: UnsafePointer<UInt8>, from start: Int, limit: Int, delimiter: UInt8) -> Int {
        let lineEnd = find(Byte.newline, base: base, from: start, limit: limit)
        if find(Byte.quote, base: base, from: start, limit: lineEnd) == lineEnd {
            return lineEnd < limit ? lineEnd + 1 : limit
        }
        return slowRecordEnd(base: base, from: start, limit: limit, delimiter: delimiter)
    }

    /// The offset of the first `byte` at or after `from`, or `limit`.
    @inline(__always)
    static func find(_ byte: UInt8, base: UnsafePointer<UInt8>, from: Int, limit: Int) -> Int {
        guard from < limit, let p = memchr(base + from, Int32(byte), limit - from) else { return limit }
        return UnsafeRawPointer(p) - UnsafeRawPointer(base)
    }

    /// The end of the record holding the field that starts at `start` (a record's start,
    /// or just past a delimiter), parsing quoted fields.
    static func slowRecordEnd(base: UnsafePointer<UInt8>, from start: Int, limit: Int, delimiter: UInt8) -> Int {
        var i = start
        while true {
            if i >= limit { return limit }
            if base[i] == Byte.quote {
                i += 1
                while true {
                    guard let q = memchr(base + i, Int32(Byte.quote), limit - i) else { return limit }
                    let qi = UnsafeRawPointer(q) - UnsafeRawPointer(base)
                    if qi + 1 < limit && base[qi + 1] == Byte.quote { i = qi + 2; continue }
                    i = qi + 1
                    break
                }
            }
            i = FieldScanner.stop(base: base, from: i, limit: limit, delimiter: delimiter)
            if i >= limit { return limit }
            if base[i] == Byte.newline { return i + 1 }
            i += 1
        }
    }
}

/// The chunks of record offsets a pass reads: a complete snapshot, or an index still being
/// built (each chunk waited for as it is published).
struct RowSource {
    private let offsets: RowOffsets?
    private let index: RowIndex?

    init(offsets: RowOffsets) { self.offsets = offsets; index = nil }
    init(index: RowIndex) { self.index = index; offsets = nil }

    /// Chunk `i`, or nil past the last one.
    func chunk(_ i: Int, isCancelled: () -> Bool) throws -> OffsetChunk? {
        if let offsets { return i < offsets.chunks.count ? offsets.chunks[i] : nil }
        return try index!.chunk(i, isCancelled: isCancelled)
    }

    /// The number of rows, or a guess from the rows indexed so far (for reserving memory).
    func estimatedRows(fileSize: Int) -> Int {
        let s = offsets ?? index!.snapshot()
        if s.complete || s.count == 0 { return s.count }
        let last = s[s.count - 1]
        return Int(Double(s.count) * Double(fileSize) / Double(max(last, 1)) * 1.02) + RowOffsets.chunkSize
    }
}
