#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The distinct texts of a column, for columns that repeat a limited set of values (names,
/// cities, categories): each row's sort key becomes the rank of its text among them, an
/// exact 64-bit key, so sorting never compares text bytes of rows.
///
/// An open-addressing hash table over an arena of the distinct texts. ``id(of:)`` returns nil
/// once more than `limit` distinct texts were seen (the column is then keyed by prefixes).
struct TextDictionary {
    let limit: Int
    private(set) var count = 0
    /// Per distinct text: where its bytes are in `arena`, and its length.
    private var starts: [Int] = []
    private var lengths: [Int] = []
    private var arena: [UInt8] = []
    /// Slot -> id + 1 (0 = empty); a power of two, at most half full.
    private var slots: [UInt32]
    private var hashes: [UInt64] = []

    init(limit: Int) {
        self.limit = limit
        slots = [UInt32](repeating: 0, count: 1024)
    }

    /// The id (0, 1, 2... in order of first appearance) of `text`, adding it if new; nil when
    /// that would exceed the limit.
    @inline(__always) mutating func id(of text: UnsafeBufferPointer<UInt8>) -> UInt32? {
        let h = TextDictionary.hash(text)
        var mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while true {
            let v = slots[s]
            if v == 0 { break }
            let id = Int(v - 1)
            if hashes[id] == h && lengths[id] == text.count && equal(id, text) { return UInt32(id) }
            s = (s + 1) & mask
        }
        if count >= limit { return nil }
        let id = count
        count += 1
        starts.append(arena.count)
        lengths.append(text.count)
        hashes.append(h)
        arena.append(contentsOf: text)
        slots[s] = UInt32(id + 1)
        if count * 2 > slots.count {
            slots = [UInt32](repeating: 0, count: slots.count * 2)
            mask = slots.count - 1
            for i in 0..<count {
                var t = Int(truncatingIfNeeded: hashes[i]) & mask
                while slots[t] != 0 { t = (t + 1) & mask }
                slots[t] = UInt32(i + 1)
            }
        }
        return UInt32(id)
    }

    @inline(__always) private func equal(_ id: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if text.isEmpty { return true }
        return arena.withUnsafeBufferPointer { a in memcmp(a.baseAddress! + starts[id], text.baseAddress!, text.count) == 0 }
    }

    /// The rank of each id in byte order of the texts (ascending, 0-based).
    func ranks() -> [UInt32] {
        var order = Array(0..<count)
        arena.withUnsafeBufferPointer { a in
            order.sort { x, y in
                let lx = lengths[x], ly = lengths[y]
                let c = min(lx, ly) == 0 ? 0 : memcmp(a.baseAddress! + starts[x], a.baseAddress! + starts[y], min(lx, ly))
                return c != 0 ? c < 0 : lx < ly
            }
        }
        var rank = [UInt32](repeating: 0, count: count)
        for (r, id) in order.enumerated() { rank[id] = UInt32(r) }
        return rank
    }

    /// The bytes of the text of `id`.
    func withText<T>(_ id: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        arena.withUnsafeBufferPointer { a in body(UnsafeBufferPointer(start: a.baseAddress.map { $0 + starts[id] }, count: lengths[id])) }
    }

    /// Bytes held.
    var footprint: Int { arena.count + count * 24 + slots.count * 4 }

    /// A fast 64-bit hash of bytes, 8 at a time.
    @inline(__always) static func hash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(b.count)
        var i = 0
        let n = b.count
        if n > 0 {
            let base = UnsafeRawPointer(b.baseAddress!)
            while i + 8 <= n {
                h = (h ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 32
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n { tail |= UInt64(b[i]) << shift; shift += 8; i += 1 }
            h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        }
        h ^= h >> 29
        return h
    }
}
