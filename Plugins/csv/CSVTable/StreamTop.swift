import Foundation

/// The first rows of a sort order read straight from the records as the indexer publishes
/// them (issue 28): the first sorted page of a big file, asked while it is being indexed.
///
/// ``TopRows`` needs every row's keys of every sort column first (``ColumnKeys``: a pass per
/// column, a few bytes a row kept for every row); the breakdown of the sort task showed that
/// extraction to be most of its time. Here each row's cell of the first sort column is read
/// (and parsed, for a typed column) and compared with the worst of the best rows kept so far;
/// only a row that goes before it, or ties with it, has its other sort cells read. The chunks
/// of the index are shared out between two threads, each keeping its own best rows; the two
/// are merged at the end. Nothing is kept per row.
///
/// The comparison is ``TopRows``' on ``ColumnKeys``' keys, so the rows are exactly its rows:
/// per sort column the class (empty, a value, a cell not of the column's type), then the value
/// (integers, dates, booleans and decimals as the keys map them; text and cells not of the type
/// by their bytes, doubled quotes collapsed), descending reversing both; ties by row number.
/// Where the cells read here could order otherwise than the keys would, ``first(_:)`` gives up
/// (nil) and the caller takes the keys' way: a column with a style (decimal comma, day-first
/// dates), a decimal cell with more digits than its column's sort scale (the keys would become
/// `Double`s), or two decimals whose `Double`s are equal while their exact values differ.
struct StreamTop: @unchecked Sendable {  // read-only while its threads run
    /// One sort column as read here.
    struct Column {
        var index: Int
        var type: CSVColumnType
        /// Decimals: the digits after the point the keys count in (nil: `Double` keys).
        var scale: Int?
        var descending: Bool
    }

    /// One cell as it sorts: its class (0 empty, 1 a value, 2 not of the column's type), the
    /// key of a typed value, the bytes of text and of cells not of the type.
    struct Cell {
        var cls: UInt8
        var key: UInt64 = 0
        var text: [UInt8] = []
    }

    /// A row kept: its number and its sort cells.
    struct Candidate {
        var row: UInt32
        var cells: [Cell]
    }

    /// Thrown (and turned into nil) where this way could order otherwise than the keys.
    struct GiveUp: Error {}

    let columns: [Column]
    let file: MappedFile
    let scanner: FieldScanner
    let rows: RowSource
    let isCancelled: () -> Bool
    /// Threads sharing the chunks out (chunk `i` goes to thread `i % threads`).
    var threads = 2

    /// The sort's columns as read here, or nil when a column has a style (its cells would
    /// need their standard form first: the keys' way does that).
    init?(sort: [CSVSortKey], table columns: [CSVColumn], file: MappedFile, scanner: FieldScanner, rows: RowSource,
          isCancelled: @escaping () -> Bool) {
        var out: [Column] = []
        for key in sort {
            let c = columns[key.column]
            guard c.style == .standard else { return nil }
            let scale = c.type == .decimal ? c.sortScale.flatMap { (0...15).contains($0) ? $0 : nil } : nil
            out.append(Column(index: key.column, type: c.type, scale: scale, descending: key.descending))
        }
        self.columns = out
        self.file = file; self.scanner = scanner; self.rows = rows; self.isCancelled = isCancelled
    }

    /// The first `k` rows of the order, in order, once the index is complete; nil when this way
    /// gave up (see the type's comment). Throws `CancellationError` when cancelled.
    func first(_ k: Int) throws -> [UInt32]? {
        guard k > 0, !columns.isEmpty else { return [] }
        final class Parts: @unchecked Sendable {
            var parts: [[Candidate]]
            var error: Error?
            let lock = NSLock()
            init(_ n: Int) { parts = Array(repeating: [], count: n) }
        }
        let parts = Parts(threads)
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            do {
                let part = try heap(k, thread: t)
                parts.lock.lock(); parts.parts[t] = part; parts.lock.unlock()
            } catch {
                parts.lock.lock(); if parts.error == nil || error is CancellationError { parts.error = error }; parts.lock.unlock()
            }
        }
        if let error = parts.error {
            if error is GiveUp { return nil }
            throw error
        }
        var merged = parts.parts.flatMap { $0 }
        var gaveUp = false
        merged.sort { a, b in
            do { return try before(a, b) } catch { gaveUp = true; return a.row < b.row }
        }
        if gaveUp { return nil }
        return merged.prefix(k).map(\.row)
    }

    // MARK: One thread

    /// The best `k` rows of this thread's chunks, in no particular order.
    private func heap(_ k: Int, thread t: Int) throws -> [Candidate] {
        var heap: [Candidate] = []
        heap.reserveCapacity(k)
        let first = columns[0]
        // The first sort cell of the heap's top, at hand (no array access, no reference
        // counting in the loop over the rows): copied whenever the top changes.
        var topCls: UInt8 = 0, topKey: UInt64 = 0
        var topText = UnsafeMutablePointer<UInt8>.allocate(capacity: 64), topCapacity = 64, topCount = 0
        defer { topText.deallocate() }
        func setTop() {
            let cell = heap[0].cells[0]
            topCls = cell.cls; topKey = cell.key; topCount = cell.text.count
            if topCount > topCapacity {
                topText.deallocate()
                topCapacity = topCount
                topText = .allocate(capacity: topCapacity)
            }
            cell.text.withUnsafeBufferPointer { b in if let p = b.baseAddress { topText.update(from: p, count: b.count) } }
        }
        var chunkIndex = t
        while let chunk = try rows.chunk(chunkIndex, isCancelled: isCancelled) {
            let base = chunkIndex << RowOffsets.shift
            chunkIndex += threads
            if isCancelled() { throw CancellationError() }
            let start = chunk[0], end = chunk[chunk.count - 1]
            file.populate(start, end)
            for i in 0..<chunk.count {
                let record = chunk[i]
                let row = UInt32(base + i)
                if heap.count < k {
                    heap.append(try candidate(row, record: record))
                    try siftUp(&heap, heap.count - 1)
                    if heap.count == k { setTop() }
                    continue
                }
                // Most rows: the first sort cell alone says they go after the worst kept.
                let c = try compareFirst(record: record, cls: topCls, key: topKey,
                                         text: UnsafeBufferPointer(start: topText, count: topCount), column: first)
                if c != 0 && !(first.descending ? c > 0 : c < 0) { continue }
                let new = try candidate(row, record: record)
                guard try before(new, heap[0]) else { continue }
                heap[0] = new
                try siftDown(&heap)
                setTop()
            }
            file.release(start, end)
        }
        return heap
    }

    /// Sift up (the heap's top is the row that goes last).
    private func siftUp(_ heap: inout [Candidate], _ at: Int) throws {
        var i = at
        while i > 0 {
            let p = (i - 1) / 2
            if try before(heap[p], heap[i]) { heap.swapAt(p, i); i = p } else { break }
        }
    }

    private func siftDown(_ heap: inout [Candidate]) throws {
        var i = 0
        let n = heap.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < n, try before(heap[m], heap[l]) { m = l }
            if r < n, try before(heap[m], heap[r]) { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }

    // MARK: Cells

    /// All sort cells of a row.
    private func candidate(_ row: UInt32, record: Int) throws -> Candidate {
        var cells: [Cell] = []
        cells.reserveCapacity(columns.count)
        for c in columns { cells.append(try cell(record: record, column: c)) }
        return Candidate(row: row, cells: cells)
    }

    /// The cell of `column` in the record at `record`, as it sorts.
    private func cell(record: Int, column c: Column) throws -> Cell {
        guard let span = scanner.field(c.index, ofRecord: record), span.count > 0 else { return Cell(cls: 0) }
        let bytes = UnsafeBufferPointer(start: file.base + span.start, count: span.count)
        if !span.escaped, c.type != .text, let key = try key(bytes, c) { return Cell(cls: 1, key: key) }
        let text = span.escaped ? scanner.unescaped(span) : Array(bytes)
        return Cell(cls: c.type == .text ? 1 : 2, text: text)
    }

    /// A typed cell's key as ``ColumnKeys`` makes it, or nil when it is not of the type.
    @inline(__always) private func key(_ bytes: UnsafeBufferPointer<UInt8>, _ c: Column) throws -> UInt64? {
        switch c.type {
        case .text: return nil
        case .integer: return ValueParser.integer(bytes).map(ColumnKeys.key(int:))
        case .decimal:
            guard let s = c.scale else { return ValueParser.decimal(bytes).map(ColumnKeys.key(double:)) }
            switch ValueParser.decimal(bytes, scale: s) {
            case .scaled(let v): return ColumnKeys.key(int: v)
            case .invalid: return nil
            case .unscaled: throw GiveUp()  // the keys would become `Double`s
            }
        case .date: return ValueParser.date(bytes).map(ColumnKeys.key(int:))
        case .bool: return ValueParser.bool(bytes).map { $0 ? 1 : 0 }
        }
    }

    /// The record's first sort cell against the top's (its class, key and text; ascending:
    /// negative, zero or positive), without copying its bytes.
    @inline(__always) private func compareFirst(record: Int, cls topCls: UInt8, key topKey: UInt64,
                                                text topText: UnsafeBufferPointer<UInt8>, column c: Column) throws -> Int {
        guard let span = scanner.field(c.index, ofRecord: record), span.count > 0 else { return topCls == 0 ? 0 : -1 }
        if c.type != .text, !span.escaped, let key = try key(UnsafeBufferPointer(start: file.base + span.start, count: span.count), c) {
            if topCls != 1 { return topCls == 0 ? 1 : -1 }
            return try compareKeys(key, topKey, c)
        }
        let cls: UInt8 = c.type == .text ? 1 : 2
        if cls != topCls { return cls < topCls ? -1 : 1 }
        if span.escaped { return scanner.unescaped(span).withUnsafeBufferPointer { StreamTop.compareBytes($0, topText) } }
        return StreamTop.compareBytes(UnsafeBufferPointer(start: file.base + span.start, count: span.count), topText)
    }

    /// Ascending comparison of two cells of column `c`.
    @inline(__always) private func compare(_ a: Cell, _ b: Cell, _ c: Column) throws -> Int {
        if a.cls != b.cls { return a.cls < b.cls ? -1 : 1 }
        if a.cls == 0 { return 0 }
        if a.cls == 1 && c.type != .text { return try compareKeys(a.key, b.key, c) }
        return a.text.withUnsafeBufferPointer { x in b.text.withUnsafeBufferPointer { y in StreamTop.compareBytes(x, y) } }
    }

    /// Two keys of a typed column. Exact decimals whose `Double`s are equal give up: the
    /// keys would tie where their exact values do not if the column turned to `Double`s.
    @inline(__always) private func compareKeys(_ a: UInt64, _ b: UInt64, _ c: Column) throws -> Int {
        if a == b { return 0 }
        if let s = c.scale {
            // Two `Double`s of `v / 10^s` (|v| < 2^53) can be equal only when the values differ
            // by less than 2^-51 of the larger: look closer only then (no division per row).
            let va = ColumnKeys.int(key: a), vb = ColumnKeys.int(key: b)
            let near = max(va.magnitude, vb.magnitude) >> 50 + 1
            if va.subtractingReportingOverflow(vb).partialValue.magnitude <= near,
               ValueParser.scaledAsDouble(va, scale: s) == ValueParser.scaledAsDouble(vb, scale: s) {
                throw GiveUp()
            }
        }
        return a < b ? -1 : 1
    }

    /// Byte order (UTF-8 code points), the shorter first on a common prefix.
    @inline(__always) static func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        if n > 0 {
            // The first 8 bytes as big-endian numbers decide most pairs without a call.
            if n >= 8 {
                let x = UInt64(bigEndian: UnsafeRawPointer(a.baseAddress!).loadUnaligned(as: UInt64.self))
                let y = UInt64(bigEndian: UnsafeRawPointer(b.baseAddress!).loadUnaligned(as: UInt64.self))
                if x != y { return x < y ? -1 : 1 }
            }
            let c = memcmp(a.baseAddress!, b.baseAddress!, n)
            if c != 0 { return Int(c) }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// True if `a` goes before `b`: the sort columns in turn, then the row number.
    private func before(_ a: Candidate, _ b: Candidate) throws -> Bool {
        for (j, c) in columns.enumerated() {
            let r = try compare(a.cells[j], b.cells[j], c)
            if r != 0 { return c.descending ? r > 0 : r < 0 }
        }
        return a.row < b.row
    }
}
