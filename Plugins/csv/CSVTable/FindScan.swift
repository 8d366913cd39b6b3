import Foundation

/// The search of one `find`: reads the records of a view in look order (``LookOrder``), on
/// every core, and stops at the first one holding the text.
///
/// The look order is cut into pieces handed out in order; each thread reads its piece in
/// look order up to its first hit; the earliest piece with a hit wins, and pieces after it
/// are left (or stopped). Records are matched as the filter matches them (``RowFilter``):
/// read through the mapping in a natural order (stretches of the file), copied out one by one
/// along a sort (``RecordCopy``).
struct FindScan {
    let table: CSVTable
    let offsets: RowOffsets
    /// The view's rows by position; nil: the natural order (a position is a row).
    let order: [UInt32]?
    /// The order is a sort (rows all over the file), not a filtered natural order.
    let sorted: Bool
    let text: String
    let look: LookOrder
    let tuning: Tuning

    /// The sizes the search works in (small ones in tests, to take every path on small tables).
    struct Tuning {
        /// The first piece's positions (a near hit costs little).
        var firstPiece = 4096
        /// The longest piece (about 6 MB of a file of 100-byte rows: cheap to share out).
        var mostPiece = 65_536
        /// Rows read between two looks at whether to stop.
        var checkEvery = 4096
        /// Positions of a sorted view walked record by record (pages all over the file) before
        /// the rest is settled by one sequential pass over the file; nil: ``walkLimit(count:)``.
        var walk: Int? = nil

        /// The default walk: at least 16,384 positions, else 1/1024 of the view (a record read
        /// at random costs about 20 times one read in a pass: the walk costs 2% of the pass
        /// that may follow it, and finds a text that is not rare at once).
        static func walkLimit(count: Int) -> Int { max(16_384, count / 1024) }
    }

    init(table: CSVTable, offsets: RowOffsets, order: [UInt32]?, sorted: Bool, text: String, look: LookOrder,
         tuning: Tuning = Tuning()) {
        self.table = table; self.offsets = offsets; self.order = order; self.sorted = sorted
        self.text = text; self.look = look; self.tuning = tuning
    }

    /// The row at a position of the view.
    @inline(__always) func row(_ position: Int) -> Int { order.map { Int($0[position]) } ?? position }

    /// The first hit in look order.
    func run(isCancelled: () -> Bool, progress: (@Sendable (Int, Int) -> Void)?) throws -> CSVFindHit? {
        let pieces = look.pieces(first: tuning.firstPiece, most: tuning.mostPiece)
        let limit = sorted ? tuning.walk ?? Tuning.walkLimit(count: look.count) : Int.max
        let walked = pieces.prefix { $0.start < limit }
        let (hit, upTo) = try walk(Array(walked), isCancelled: isCancelled, progress: progress)
        if hit != nil || upTo >= look.count { return hit }
        // The rest of a sorted view: which rows hold the text, by one pass over the file in
        // its order (cached, like a filter's), then the view's order along them.
        let holding = try table.caches.computing(isCancelled: isCancelled) {
            try table.matches(Selection(filter: text, conditions: []), offsets: offsets, isCancelled: isCancelled)
        }
        return try settle(holding, from: upTo, isCancelled: isCancelled, progress: progress)
    }

    /// The first hit in look order from look index `from` on, given the rows holding the text.
    func settle(_ holding: RowSet, from: Int, isCancelled: () -> Bool, progress: (@Sendable (Int, Int) -> Void)?) throws -> CSVFindHit? {
        let identity = order == nil
        return try (order ?? []).withUnsafeBufferPointer { order in
            try holding.words.withUnsafeBufferPointer { words in
                var i = 0
                for (k, r) in look.ranges.enumerated() {
                    if i + r.count <= from { i += r.count; continue }
                    var j = max(0, from - i)
                    while j < r.count {
                        if isCancelled() { throw CancellationError() }
                        progress?(i + j, look.count)
                        let stop = min(r.count, j + 1 << 16)
                        while j < stop {
                            let p = look.backward ? r.upperBound - 1 - j : r.lowerBound + j
                            let row = identity ? p : Int(order[p])
                            if words[row >> 6] & (1 << UInt64(row & 63)) != 0 {
                                return CSVFindHit(position: p, row: row, wrapped: k > 0)
                            }
                            j += 1
                        }
                    }
                    i += r.count
                }
                progress?(look.count, look.count)
                return nil
            }
        }
    }

    /// Reads `pieces` (the look order's first ones) on every core: the first hit in look
    /// order, and the look index up to which there is none when there is no hit.
    func walk(_ pieces: [LookOrder.Piece], isCancelled: () -> Bool,
              progress: (@Sendable (Int, Int) -> Void)?) throws -> (CSVFindHit?, Int) {
        guard let last = pieces.last else { return (nil, 0) }
        /// What the threads share: the next piece, the earliest hit, what was read.
        final class Job: @unchecked Sendable {
            let lock = NSLock()
            var next = 0
            /// The earliest piece with a hit (Int.max: none yet) and the hit's position.
            var best = Int.max
            var position = 0
            var cancelled = false
            var done = 0
            let isCancelled: () -> Bool
            init(isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }

            /// Whether piece `k` is still worth reading.
            func wanted(_ k: Int) -> Bool {
                lock.lock(); defer { lock.unlock() }
                return k < best && !cancelled
            }
        }
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, pieces.count, 16))
        let all = look.count
        return try withoutActuallyEscaping(isCancelled) { cancelled in
            let job = Job(isCancelled: cancelled)
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                while true {
                    job.lock.lock()
                    let k = job.next
                    job.next += 1
                    let go = k < pieces.count && k < job.best && !job.cancelled
                    job.lock.unlock()
                    guard go else { return }
                    if job.isCancelled() { job.lock.lock(); job.cancelled = true; job.lock.unlock(); return }
                    let found = read(pieces[k], k, job.wanted)
                    job.lock.lock()
                    if let found, k < job.best { job.best = k; job.position = found }
                    job.done += pieces[k].positions.count
                    let done = job.done
                    job.lock.unlock()
                    progress?(done, all)
                }
            }
            if job.cancelled { throw CancellationError() }
            if job.best < pieces.count {
                let p = job.position
                return (CSVFindHit(position: p, row: row(p), wrapped: pieces[job.best].range > 0), 0)
            }
            return (nil, last.start + last.positions.count)
        }
    }

    /// The first position of a piece (in look order) whose record holds the text; nil when
    /// none does, or when `wanted(k)` says to stop (checked every ``Tuning/checkEvery`` rows).
    func read(_ piece: LookOrder.Piece, _ k: Int, _ wanted: (Int) -> Bool) -> Int? {
        let filter = RowFilter(needle: text)
        let file = table.file, scanner = table.scanner, columns = table.columns.count
        let offsets = self.offsets, rows = offsets.count, backward = look.backward
        let positions = piece.positions, n = positions.count
        if sorted {
            // Rows all over the file: each record copied out with pread(2), as a sorted page's
            // rows are, so the walk maps no page (and the kernel no neighbours of it).
            var copy = RecordCopy()
            defer { copy.free() }
            var i = 0
            while i < n {
                if i > 0 && !wanted(k) { return nil }
                let stop = min(n, i + tuning.checkEvery)
                while i < stop {
                    let p = backward ? positions.upperBound - 1 - i : positions.lowerBound + i
                    let row = self.row(p)
                    let local = copy.read(file, offsets[row], row + 1 < rows ? offsets[row + 1] : file.count, delimiter: scanner.delimiter)
                    if filter.matches(record: 0, end: local.limit, scanner: local, columns: columns) { return p }
                    i += 1
                }
            }
            return nil
        }
        // A piece of a natural order lies in one stretch of the file: mapped in one call (the
        // whole file when there is no filter), given back after.
        let a = row(positions.lowerBound), b = row(positions.upperBound - 1)
        let bytes = (offsets[a], b + 1 < rows ? offsets[b + 1] : file.count)
        if order == nil { file.populate(bytes.0, bytes.1) }
        defer { file.release(bytes.0, bytes.1) }
        var i = 0
        while i < n {
            if i > 0 && !wanted(k) { return nil }
            let stop = min(n, i + tuning.checkEvery)
            while i < stop {
                let p = backward ? positions.upperBound - 1 - i : positions.lowerBound + i
                let row = self.row(p)
                let end = row + 1 < rows ? offsets[row + 1] : file.count
                if filter.matches(record: offsets[row], end: end, scanner: scanner, columns: columns) { return p }
                i += 1
            }
        }
        return nil
    }
}

/// A buffer records are copied into with pread(2), grown to the longest one, and a scanner
/// of the copy.
struct RecordCopy {
    private var buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
    private var capacity = 4096

    /// Copies the record at bytes `start..<end` of `file`; a scanner of the copy (the record
    /// at 0, `limit` its bytes read).
    mutating func read(_ file: MappedFile, _ start: Int, _ end: Int, delimiter: UInt8) -> FieldScanner {
        if end - start > capacity {
            buffer.deallocate()
            capacity = max(end - start, capacity * 2)
            buffer = .allocate(byteCount: capacity, alignment: 8)
        }
        let n = file.read(start, count: end - start, into: buffer)
        return FieldScanner(base: UnsafePointer(buffer.assumingMemoryBound(to: UInt8.self)), limit: n, delimiter: delimiter)
    }

    func free() { buffer.deallocate() }
}
