import Foundation

/// Sorts row indices by a list of keys: a most-significant-key-first radix sort.
///
/// For each key, the rows of a range are split by class (empty first when ascending),
/// then radix-sorted (LSD, 8 bits a pass, passes where all keys agree are skipped) on
/// the 64-bit key. Runs of equal keys are then sorted by the next key. A text key whose
/// 8 bytes tie goes on with the next 8 bytes of the same column (an MSD string sort).
/// Every step is stable and the start is the identity, so rows that tie on all keys
/// stay in file order: the order is deterministic.
struct Sorter {
    struct Spec {
        let keys: ColumnKeys
        let descending: Bool
    }

    let specs: [Spec]
    let isCancelled: () -> Bool
    /// Ranges up to this many rows are radix-sorted in one go (tests make it small).
    var scratchRows = Sorter.scratchRows

    /// Sorts of at least this many rows split by the first key and use two threads.
    var parallelRows = 1 << 18

    init(specs: [Spec], isCancelled: @escaping () -> Bool, scratchRows: Int = Sorter.scratchRows,
         parallelRows: Int = 1 << 18) {
        self.specs = specs; self.isCancelled = isCancelled; self.scratchRows = max(2, scratchRows)
        self.parallelRows = max(2, parallelRows)
    }

    /// Below this many rows a range is sorted by insertion with the full comparison.
    static let smallRange = 24
    /// Ranges up to this many rows are radix-sorted in one go (two 64-bit key buffers of this
    /// size); larger ones are first split by their most significant differing bits (4 to 16 of them,
    /// for parts of about `Work.partRows` rows).
    static let scratchRows = 1 << 20

    func sortedOrder(count n: Int) throws -> [UInt32] {
        var perm = [UInt32](unsafeUninitializedCapacity: n) { buf, initialized in
            for i in 0..<n { buf[i] = UInt32(i) }
            initialized = n
        }
        if specs.isEmpty || n < 2 { return perm }
        let tmp = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: n)
        let scratch = min(n, scratchRows)
        let keysA = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: scratch)
        let keysB = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: scratch)
        let keysC = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: scratch)
        let keysD = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: scratch)
        let runs = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: n + 8)
        runs.initialize(repeating: 0)
        defer {
            tmp.deallocate(); keysA.deallocate(); keysB.deallocate(); keysC.deallocate(); keysD.deallocate()
            runs.deallocate()
        }
        try perm.withUnsafeMutableBufferPointer { p in
            let helper = Work(perm: p, tmp: tmp, keys: keysC, keysTmp: keysD, runs: runs, specs: specs, isCancelled: isCancelled,
                              helpers: [], parallelRows: parallelRows)
            let work = Work(perm: p, tmp: tmp, keys: keysA, keysTmp: keysB, runs: runs, specs: specs, isCancelled: isCancelled,
                            helpers: [helper], parallelRows: parallelRows)
            try work.sortRange(0, n, key: 0, depth: 0)
        }
        return perm
    }
}

/// Carries a value into concurrently run code that only reads it.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

private struct Work {
    let perm: UnsafeMutableBufferPointer<UInt32>
    let tmp: UnsafeMutableBufferPointer<UInt32>
    /// Scratch keys of the range being radix-sorted, indexed from 0 (`Sorter.scratchRows`).
    let keys: UnsafeMutableBufferPointer<UInt64>
    let keysTmp: UnsafeMutableBufferPointer<UInt64>
    /// One byte per position of `perm`: 1 where a run of equal keys starts. A range's marks
    /// are written after its radix pass and read while its runs are sorted by the next key;
    /// nested sorts only write marks inside the run they sort. (Bytes, not bits: two threads
    /// sort neighbouring ranges.)
    let runs: UnsafeMutableBufferPointer<UInt8>
    let specs: [Sorter.Spec]
    let isCancelled: () -> Bool
    /// A second worker with its own scratch keys: the parts of the first key's split are
    /// sorted on two threads.
    let helpers: [Work]
    /// Work on at least this many rows is split by the first key and shared with the helper.
    let parallelRows: Int

    /// True if row `a` goes before row `b`, comparing keys from `k` on, then row numbers.
    @inline(__always) func before(_ a: UInt32, _ b: UInt32, from k: Int) -> Bool {
        var i = k
        while i < specs.count {
            let c = specs[i].keys.compare(Int(a), Int(b))
            if c != 0 { return specs[i].descending ? c > 0 : c < 0 }
            i += 1
        }
        return a < b
    }

    func insertionSort(_ lo: Int, _ hi: Int, from k: Int) {
        var i = lo + 1
        while i < hi {
            let x = perm[i]
            var j = i
            while j > lo && before(x, perm[j - 1], from: k) { perm[j] = perm[j - 1]; j -= 1 }
            perm[j] = x
            i += 1
        }
    }

    func sortRange(_ lo: Int, _ hi: Int, key k: Int, depth: Int) throws {
        let n = hi - lo
        if n < 2 || k >= specs.count { return }
        if n <= Sorter.smallRange { insertionSort(lo, hi, from: k); return }
        if n > 100_000 && isCancelled() { throw CancellationError() }
        let spec = specs[k]
        let col = spec.keys
        let desc = spec.descending

        if depth > 0 {
            // A text key whose first `depth` bytes tie: every row here is a non-empty value.
            try sortTextChunk(lo, hi, key: k, depth: depth)
            return
        }

        // 1. Split by class, stably: empty, value, unparseable (reversed when descending).
        var counts = (0, 0, 0)
        for i in lo..<hi {
            switch col.rowClass(Int(perm[i])) {
            case 0: counts.0 += 1
            case 1: counts.1 += 1
            default: counts.2 += 1
            }
        }
        let order: [UInt8] = desc ? [2, 1, 0] : [0, 1, 2]
        let sizes = [counts.0, counts.1, counts.2]
        var bucketStart = [0, 0, 0]
        var pos = lo
        for c in order { bucketStart[Int(c)] = pos; pos += sizes[Int(c)] }
        if sizes.filter({ $0 > 0 }).count > 1 {
            var next = bucketStart
            for i in lo..<hi {
                let r = perm[i]
                let c = Int(col.rowClass(Int(r)))
                tmp[next[c]] = r
                next[c] += 1
            }
            for i in lo..<hi { perm[i] = tmp[i] }
        }

        for c in order {
            let s = bucketStart[Int(c)], e = s + sizes[Int(c)]
            if e - s == 0 { continue }
            switch c {
            case 0:
                try sortRange(s, e, key: k + 1, depth: 0)
            case 1 where col.isExact:
                try sortByKey(s, e, top: k == 0, fetch: { desc ? ~col.key($0) : col.key($0) }) { w, i, j in
                    try w.sortRange(i, j, key: k + 1, depth: 0)
                }
            case 1:
                try sortTextChunk(s, e, key: k, depth: 0)
            default:
                // Unparseable cells of a typed column: rare, compared as text.
                sortByComparison(s, e, from: k)
            }
        }
    }

    /// Sorts non-empty text cells that tie on their first `depth` bytes by the next 8.
    func sortTextChunk(_ lo: Int, _ hi: Int, key k: Int, depth: Int) throws {
        let n = hi - lo
        if n <= Sorter.smallRange { insertionSort(lo, hi, from: k); return }
        let spec = specs[k]
        let col = spec.keys
        let desc = spec.descending
        let fetch: (Int) -> UInt64 = depth == 0
            ? { desc ? ~col.key($0) : col.key($0) }
            : { desc ? ~col.textChunk($0, depth: depth) : col.textChunk($0, depth: depth) }
        try sortByKey(lo, hi, top: k == 0 && depth == 0, fetch: fetch) { w, i, j in try w.splitEnded(i, j, key: k, depth: depth) }
    }

    /// Sorts `perm[lo..<hi]` stably by the 64-bit key `fetch(row)`, then calls `ties` for
    /// each run of more than one equal key. Up to `Sorter.scratchRows` rows: one LSD radix
    /// sort. Larger: a stable split by the most significant bits (4 to 16) in which the keys
    /// differ, and each part sorted the same way.
    ///
    /// `top`: the first key of the whole sort; a large range is then split even if it fits
    /// the scratch, and its parts are shared with the helper thread.
    func sortByKey(_ lo: Int, _ hi: Int, top: Bool = false, fetch: (Int) -> UInt64,
                   ties: (Work, Int, Int) throws -> Void) throws {
        let n = hi - lo
        if n < 2 { return }
        let parallel = top && !helpers.isEmpty && n >= parallelRows
        if n <= keys.count && !parallel {
            for i in 0..<n { keys[i] = fetch(Int(perm[lo + i])) }
            radix(lo, n)
            setBit(lo)
            for i in 1..<n {
                if keys[i] != keys[i - 1] { setBit(lo + i) } else { clearBit(lo + i) }
            }
            var i = lo
            while i < hi {
                let j = nextRun(after: i, before: hi)
                if j - i > 1 { try ties(self, i, j) }
                i = j
            }
            return
        }
        if isCancelled() { throw CancellationError() }
        guard var parts = split(lo, hi, fetch: fetch) else { try ties(self, lo, hi); return }
        guard parallel, let helper = helpers.first else {
            for part in parts { try sortByKey(part.0, part.1, fetch: fetch, ties: ties) }
            return
        }
        // Skewed keys (most amounts small, a few large) leave a few big parts: split those
        // again, so that both threads have work to the end.
        var i = 0
        while i < parts.count {
            let (s, e) = parts[i]
            if e - s > n / 16, let finer = split(s, e, fetch: fetch) {
                parts.replaceSubrange(i...i, with: finer)
            } else {
                i += 1
            }
        }
        try Work.share(parts, between: self, helper) { w, part in
            try w.sortByKey(part.0, part.1, fetch: fetch, ties: ties)
        }
    }

    /// Splits `perm[lo..<hi]` stably by the most significant bits in which the keys differ
    /// (4 to 16 of them: parts of about ``partRows`` rows, whose rows stay in file order, so
    /// that reading their keys goes forward through memory); returns the parts of more than
    /// one row, in order, or nil when all keys are equal.
    func split(_ lo: Int, _ hi: Int, fetch: (Int) -> UInt64) -> [(Int, Int)]? {
        let n = hi - lo
        let first = fetch(Int(perm[lo]))
        var diff: UInt64 = 0
        for i in lo..<hi { diff |= fetch(Int(perm[i])) ^ first }
        if diff == 0 { return nil }
        let bits = min(16, max(4, Int.bitWidth - (n / Work.partRows).leadingZeroBitCount))
        let buckets = 1 << bits, mask = UInt64(buckets - 1)
        let shift = UInt64(max(0, 64 - diff.leadingZeroBitCount - bits))
        var counts = [Int](repeating: 0, count: buckets)
        var parts: [(Int, Int)] = []
        counts.withUnsafeMutableBufferPointer { c in
            for i in lo..<hi { c[Int((fetch(Int(perm[i])) >> shift) & mask)] += 1 }
            var next = [Int](repeating: 0, count: buckets)
            var pos = lo
            for b in 0..<buckets { next[b] = pos; pos += c[b] }
            next.withUnsafeMutableBufferPointer { next in
                for i in lo..<hi {
                    let r = perm[i]
                    let b = Int((fetch(Int(r)) >> shift) & mask)
                    tmp[next[b]] = r
                    next[b] += 1
                }
                for i in lo..<hi { perm[i] = tmp[i] }
                // `next[b]` is now the end of bucket b.
                var s = lo
                for b in 0..<buckets where c[b] > 0 {
                    let e = next[b]
                    if e - s > 1 { parts.append((s, e)) }
                    s = e
                }
            }
        }
        return parts
    }

    /// The rows a part of a split aims at: their keys and row numbers fit the L2 cache.
    static let partRows = 1 << 15

    @inline(__always) func setBit(_ i: Int) { runs[i] = 1 }
    @inline(__always) func clearBit(_ i: Int) { runs[i] = 0 }

    /// The first position after `i` that starts a run, or `hi`.
    @inline(__always) func nextRun(after i: Int, before hi: Int) -> Int {
        var p = i + 1
        let base = UnsafeRawPointer(runs.baseAddress!)
        while p + 8 <= hi && base.loadUnaligned(fromByteOffset: p, as: UInt64.self) == 0 { p += 8 }
        while p < hi && runs[p] == 0 { p += 1 }
        return p
    }

    /// Runs `body` on every part, the parts taken in turn by two threads (`a` and `b`).
    static func share(_ parts: [(Int, Int)], between a: Work, _ b: Work,
                      _ body: (Work, (Int, Int)) throws -> Void) throws {
        final class Queue: @unchecked Sendable {
            let lock = NSLock()
            var next = 0
            var error: Error?
        }
        let queue = Queue()
        try withoutActuallyEscaping(body) { body in
            let box = UncheckedBox(body)
            let workers = UncheckedBox((a, b))
            DispatchQueue.concurrentPerform(iterations: 2) { t in
                let w = t == 0 ? workers.value.0 : workers.value.1
                while true {
                    queue.lock.lock()
                    let i = queue.next
                    queue.next += 1
                    let stop = queue.error != nil
                    queue.lock.unlock()
                    if stop || i >= parts.count { return }
                    do { try box.value(w, parts[i]) } catch {
                        queue.lock.lock(); queue.error = error; queue.lock.unlock()
                        return
                    }
                }
            }
            if let error = queue.error { throw error }
        }
    }

    /// Rows in `lo..<hi` tie on bytes `0..<depth+8`. Those whose text ends within these
    /// bytes come first (shorter first; last and longer first when descending); equal
    /// lengths are equal texts and go on to the next key. The others go 8 bytes deeper.
    func splitEnded(_ lo: Int, _ hi: Int, key k: Int, depth: Int) throws {
        let col = specs[k].keys
        let desc = specs[k].descending
        let horizon = depth + 8
        // Stable partition by (ended, length): 9 length buckets for ended rows + 1 for the rest.
        var counts = [Int](repeating: 0, count: 10)
        @inline(__always) func bucket(_ r: UInt32) -> Int {
            let len = col.textLength(Int(r))
            if len > horizon { return desc ? 0 : 9 }
            let b = len - depth  // 0...8
            return desc ? 9 - b : b
        }
        for i in lo..<hi { counts[bucket(perm[i])] += 1 }
        var starts = [Int](repeating: 0, count: 10)
        var pos = lo
        for b in 0..<10 { starts[b] = pos; pos += counts[b] }
        if counts.filter({ $0 > 0 }).count > 1 {
            var next = starts
            for i in lo..<hi {
                let r = perm[i]
                let b = bucket(r)
                tmp[next[b]] = r
                next[b] += 1
            }
            for i in lo..<hi { perm[i] = tmp[i] }
        }
        let continuing = desc ? 0 : 9
        for b in 0..<10 where counts[b] > 1 {
            let s = starts[b], e = s + counts[b]
            if b == continuing { try sortTextChunk(s, e, key: k, depth: horizon) }
            else { try sortRange(s, e, key: k + 1, depth: 0) }
        }
    }

    func sortByComparison(_ lo: Int, _ hi: Int, from k: Int) {
        var rows = Array(perm[lo..<hi])
        rows.sort { before($0, $1, from: k) }
        for (i, r) in rows.enumerated() { perm[lo + i] = r }
    }

    /// Stable LSD radix sort of `perm[lo..<lo+n]` by `keys[0..<n]`, 8 bits a pass.
    func radix(_ lo: Int, _ n: Int) {
        if n <= Sorter.smallRange {
            var i = 1
            while i < n {
                let kx = keys[i], px = perm[lo + i]
                var j = i
                while j > 0 && keys[j - 1] > kx { keys[j] = keys[j - 1]; perm[lo + j] = perm[lo + j - 1]; j -= 1 }
                keys[j] = kx; perm[lo + j] = px
                i += 1
            }
            return
        }
        var hist = [Int](repeating: 0, count: 8 * 256)
        hist.withUnsafeMutableBufferPointer { h in
            for i in 0..<n {
                let v = keys[i]
                h[Int(v & 0xFF)] += 1
                h[256 + Int((v >> 8) & 0xFF)] += 1
                h[512 + Int((v >> 16) & 0xFF)] += 1
                h[768 + Int((v >> 24) & 0xFF)] += 1
                h[1024 + Int((v >> 32) & 0xFF)] += 1
                h[1280 + Int((v >> 40) & 0xFF)] += 1
                h[1536 + Int((v >> 48) & 0xFF)] += 1
                h[1792 + Int(v >> 56)] += 1
            }
            var srcK = keys.baseAddress!, srcP = perm.baseAddress! + lo
            var dstK = keysTmp.baseAddress!, dstP = tmp.baseAddress! + lo
            var swapped = false
            for pass in 0..<8 {
                let hp = h.baseAddress! + pass * 256
                let shift = UInt64(pass * 8)
                if hp[Int((srcK[0] >> shift) & 0xFF)] == n { continue }
                var sum = 0
                for b in 0..<256 { let c = hp[b]; hp[b] = sum; sum += c }
                for i in 0..<n {
                    let v = srcK[i]
                    let b = Int((v >> shift) & 0xFF)
                    let d = hp[b]
                    hp[b] = d + 1
                    dstK[d] = v
                    dstP[d] = srcP[i]
                }
                swap(&srcK, &dstK); swap(&srcP, &dstP)
                swapped.toggle()
            }
            if swapped {
                keys.baseAddress!.update(from: keysTmp.baseAddress!, count: n)
                (perm.baseAddress! + lo).update(from: tmp.baseAddress! + lo, count: n)
            }
        }
    }
}
