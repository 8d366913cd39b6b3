import Foundation

/// The first rows of a sort order without sorting the whole table (issue 14, point 2): a
/// bounded max-heap over every row, on two threads (each takes half the rows, the two heaps
/// are merged). Gives exactly the first `k` rows of ``Sorter/sortedOrder(count:)``: the
/// comparison is the sort's (keys in turn, then the row number).
struct TopRows: @unchecked Sendable {  // read-only while its threads run
    let specs: [Sorter.Spec]
    let isCancelled: () -> Bool
    /// Tables of at least this many rows are split between two threads (tests make it small).
    var splitRows = 1 << 16

    /// True if row `a` goes before row `b` in the order.
    @inline(__always) func before(_ a: UInt32, _ b: UInt32) -> Bool {
        for spec in specs {
            let c = spec.keys.compare(Int(a), Int(b))
            if c != 0 { return spec.descending ? c > 0 : c < 0 }
        }
        return a < b
    }

    /// The first `k` rows (in order) of the `count` rows.
    func first(_ k: Int, count n: Int) throws -> [UInt32] {
        let k = min(k, n)
        if k <= 0 { return [] }
        let half = n / 2
        final class Halves: @unchecked Sendable {
            var parts: [[UInt32]] = [[], []]
            var error: Error?
            let lock = NSLock()
        }
        let halves = Halves()
        let ranges = n >= max(2, splitRows) ? [0..<half, half..<n] : [0..<n]
        withoutActuallyEscaping(isCancelled) { cancelled in
            let me = TopRows(specs: specs, isCancelled: cancelled, splitRows: splitRows)
            DispatchQueue.concurrentPerform(iterations: ranges.count) { i in
                do {
                    let part = try me.heap(k, ranges[i])
                    halves.lock.lock(); halves.parts[i] = part; halves.lock.unlock()
                } catch {
                    halves.lock.lock(); halves.error = error; halves.lock.unlock()
                }
            }
        }
        if let error = halves.error { throw error }
        let merged = (halves.parts[0] + halves.parts[1]).sorted(by: before)
        return Array(merged.prefix(k))
    }

    /// The first `k` rows of `range`, in no particular order.
    ///
    /// Most rows go after the heap's top: each is first compared by the class and key of the
    /// first sort key alone (one decode), against the top's, kept at hand; only a tie there
    /// takes the full comparison.
    private func heap(_ k: Int, _ range: Range<Int>) throws -> [UInt32] {
        var heap: [UInt32] = []
        heap.reserveCapacity(k)
        let firstKeys = specs[0].keys, descending = specs[0].descending
        var top: (UInt8, UInt64) = (0, 0)
        for row in range {
            if row & 0xFFFF == 0 && isCancelled() { throw CancellationError() }
            let r = UInt32(row)
            if heap.count < k {
                // Sift up: the heap's top is the row that goes last.
                heap.append(r)
                var i = heap.count - 1
                while i > 0 {
                    let p = (i - 1) / 2
                    if before(heap[p], heap[i]) { heap.swapAt(p, i); i = p } else { break }
                }
                if heap.count == k { top = firstKeys.entry(Int(heap[0])) }
                continue
            }
            let entry = firstKeys.entry(row)
            let goesFirst = entry == top ? before(r, heap[0]) : descending ? entry > top : entry < top
            if goesFirst {
                heap[0] = r
                var i = 0
                while true {
                    let l = 2 * i + 1, rr = l + 1
                    var m = i
                    if l < k && before(heap[m], heap[l]) { m = l }
                    if rr < k && before(heap[m], heap[rr]) { m = rr }
                    if m == i { break }
                    heap.swapAt(i, m); i = m
                }
                top = firstKeys.entry(Int(heap[0]))
            }
        }
        return heap
    }
}
