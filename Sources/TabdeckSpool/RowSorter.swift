/// Orders a spooled table's rows by a sort order: the first rows alone (a bounded heap, for the
/// first screens: memory for `k` rows' keys), or all of them (for a materialized order: 24 bytes
/// of key per row and sort column while it runs, 4 bytes per row kept). Ties keep arrival order.
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
            for j in slots[position] { out[j] = SortCell.key(cell, columns[j].keying, base: base) }
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
