/// Orders a spooled table's rows by a sort order: the first rows alone (a bounded heap, for the
/// first screens: memory for `k` rows' keys), or all of them (in memory: 24 bytes of key per row
/// and sort column while it runs, 4 bytes per row kept; or, for a materialized order, into a
/// file, in sorted runs of ``runRows`` rows merged: memory for one run). Ties keep arrival order.
struct RowSorter {
    /// The mapped records and each row's offset in them.
    let base: UnsafeRawPointer
    let offsets: UnsafePointer<UInt64>
    let columns: [SortColumn]
    /// For each cell position up to the last sorted one: the sort keys it feeds.
    private let slots: [[Int]]

    init(base: UnsafeRawPointer, offsets: UnsafePointer<UInt64>, columns: [SortColumn]) {
        self.base = base
        self.offsets = offsets
        self.columns = columns
        var slots = [[Int]](repeating: [], count: (columns.map(\.index).max() ?? -1) + 1)
        for (j, column) in columns.enumerated() { slots[column.index].append(j) }
        self.slots = slots
    }

    /// Writes row `row`'s keys (one per sort column) at `out[at...]`.
    @inline(__always)
    func keys(of row: Int, into out: UnsafeMutablePointer<SortCell>) {
        var r = RecordReader(base: base, at: Int(offsets[row]))
        r.skipHeader()
        for position in slots.indices {
            let cell = r.cell()
            for j in slots[position] { out[j] = SortCell.key(cell, columns[j].keying, nullsLargest: columns[j].nullsLargest, base: base) }
        }
    }

    /// Whether keys `a` (of row `ra`) sort before keys `b` (of row `rb`).
    @inline(__always)
    func less(_ a: UnsafePointer<SortCell>, _ ra: Int, _ b: UnsafePointer<SortCell>, _ rb: Int) -> Bool {
        for j in columns.indices {
            let c = SortCell.compare(a[j], b[j], base: base)
            if c != 0 { return columns[j].descending ? c > 0 : c < 0 }
        }
        return ra < rb
    }

    /// The first `k` of `rows` (all rows `0..<count` when nil), in order.
    func first(_ k: Int, count: Int, of rows: [Int]? = nil) -> [Int] {
        let n = rows?.count ?? count
        if k <= 0 || n == 0 { return [] }
        if k * 4 >= n { return Array(all(count: count, of: rows).prefix(k).map(Int.init)) }
        let m = columns.count
        // A max-heap of the best k so far: its root is the worst of them.
        let heapKeys = UnsafeMutablePointer<SortCell>.allocate(capacity: (k + 1) * m)
        defer { heapKeys.deallocate() }
        var heapRows: [Int] = []
        heapRows.reserveCapacity(k)
        let candidate = heapKeys + k * m
        func keysAt(_ i: Int) -> UnsafeMutablePointer<SortCell> { heapKeys + i * m }
        func swapEntries(_ i: Int, _ j: Int) {
            heapRows.swapAt(i, j)
            for c in 0..<m { swap(&heapKeys[i * m + c], &heapKeys[j * m + c]) }
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var worst = i
                if l < heapRows.count && less(keysAt(worst), heapRows[worst], keysAt(l), heapRows[l]) { worst = l }
                if r < heapRows.count && less(keysAt(worst), heapRows[worst], keysAt(r), heapRows[r]) { worst = r }
                if worst == i { return }
                swapEntries(i, worst)
                i = worst
            }
        }
        for i in 0..<n {
            let row = rows?[i] ?? i
            if heapRows.count < k {
                let at = heapRows.count
                keys(of: row, into: keysAt(at))
                heapRows.append(row)
                var c = at
                while c > 0 {
                    let p = (c - 1) / 2
                    if !less(keysAt(p), heapRows[p], keysAt(c), heapRows[c]) { break }
                    swapEntries(p, c)
                    c = p
                }
                continue
            }
            keys(of: row, into: candidate)
            if less(candidate, row, keysAt(0), heapRows[0]) {
                heapRows[0] = row
                for c in 0..<m { heapKeys[c] = candidate[c] }
                siftDown(0)
            }
        }
        // Emptied from the worst: the order, backwards.
        var result = [Int](repeating: 0, count: heapRows.count)
        for slot in stride(from: heapRows.count - 1, through: 0, by: -1) {
            result[slot] = heapRows[0]
            let last = heapRows.count - 1
            swapEntries(0, last)
            heapRows.removeLast()
            siftDown(0)
        }
        return result
    }

    /// Rows sorted in memory at once by ``write(count:into:runs:)``: a bigger table is sorted in
    /// runs of this many rows, each kept in a file of its own, then merged.
    static let runRows = 1 << 21

    /// Every row `0..<count`, in order, appended to `out` as 4-byte row numbers. Past
    /// ``runRows`` rows the runs go to files made by `runs(i)` (deleted once merged).
    func write(count: Int, into out: AppendFile, runs makeRun: (Int) throws(SpoolError) -> AppendFile,
               runRows: Int = RowSorter.runRows) throws(SpoolError) {
        if count <= runRows {
            try append(all(count: count), to: out)
            return
        }
        var runs: [AppendFile] = []
        defer { for run in runs { run.close() } }
        var bounds: [Range<Int>] = []
        for start in stride(from: 0, to: count, by: runRows) {
            let range = start..<min(count, start + runRows)
            let run = try makeRun(runs.count)
            runs.append(run)
            try append(all(count: count, of: Array(range)), to: run)
            bounds.append(0..<range.count)
        }
        // A k-way merge: a heap of each run's next row, with its keys.
        let m = columns.count, k = runs.count
        var heads: [UnsafePointer<Int32>] = []
        for run in runs {
            guard let p = try run.mappedBytes() else { return }
            heads.append(p.assumingMemoryBound(to: Int32.self))
        }
        let keys = UnsafeMutablePointer<SortCell>.allocate(capacity: k * m)
        defer { keys.deallocate() }
        var heap: [(run: Int, at: Int, row: Int)] = []
        func keysOf(_ slot: Int) -> UnsafeMutablePointer<SortCell> { keys + slot * m }
        // Each heap entry owns the key slot of its run.
        func before(_ a: (run: Int, at: Int, row: Int), _ b: (run: Int, at: Int, row: Int)) -> Bool {
            less(keysOf(a.run), a.row, keysOf(b.run), b.row)
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var best = i
                if l < heap.count && before(heap[l], heap[best]) { best = l }
                if r < heap.count && before(heap[r], heap[best]) { best = r }
                if best == i { return }
                heap.swapAt(i, best)
                i = best
            }
        }
        for run in 0..<k where !bounds[run].isEmpty {
            let row = Int(heads[run][0])
            self.keys(of: row, into: keysOf(run))
            heap.append((run, 0, row))
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        var batch: [Int32] = []
        batch.reserveCapacity(1 << 16)
        while let top = heap.first {
            batch.append(Int32(top.row))
            if batch.count == batch.capacity { try append(batch, to: out); batch.removeAll(keepingCapacity: true) }
            let next = top.at + 1
            if next < bounds[top.run].upperBound {
                let row = Int(heads[top.run][next])
                self.keys(of: row, into: keysOf(top.run))
                heap[0] = (top.run, next, row)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
        }
        try append(batch, to: out)
    }

    private func append(_ rows: [Int32], to file: AppendFile) throws(SpoolError) {
        try file.append { out in rows.withUnsafeBytes { out.append(contentsOf: $0) } }
    }

    /// Every one of `rows` (all rows `0..<count` when nil), in order.
    func all(count: Int, of rows: [Int]? = nil) -> [Int32] {
        let n = rows?.count ?? count
        let m = columns.count
        let keys = UnsafeMutablePointer<SortCell>.allocate(capacity: max(n * m, 1))
        defer { keys.deallocate() }
        var order = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let row = rows?[i] ?? i
            self.keys(of: row, into: keys + i * m)
            order[i] = Int32(i)
        }
        // Sorts positions in `rows` (arrival order too: `rows` is ascending), then maps them back.
        order.sort { a, b in less(keys + Int(a) * m, Int(a), keys + Int(b) * m, Int(b)) }
        if let rows { for i in order.indices { order[i] = Int32(rows[Int(order[i])]) } }
        return order
    }
}
