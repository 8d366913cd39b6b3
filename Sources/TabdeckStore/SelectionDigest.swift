/// An order-independent fingerprint of a selection: its size and the wrapping sum of a
/// well-mixed 64-bit hash of each id. Stored next to a view in `table_view`, it lets
/// ``ViewStore/save(_:_:key:)`` see that a 100,000-id selection did not change (the common
/// case: the cursor moved) without reading the ids back.
///
/// Stable across processes and platforms (FNV-1a over UTF-8, then the SplitMix64
/// finalizer; not Swift's per-process seeded `Hasher`). Two different selections share a
/// fingerprint with probability about 2⁻⁶⁴; that is the only way a changed selection could
/// be skipped.
struct SelectionDigest: Equatable {
    var count: Int
    var sum: Int64

    init(count: Int, sum: Int64) { self.count = count; self.sum = sum }

    init(_ ids: Set<String>) {
        var sum: UInt64 = 0
        for id in ids { sum &+= Self.hash(id) }
        self.init(count: ids.count, sum: Int64(bitPattern: sum))
    }

    static func hash(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        // SplitMix64 finalizer: FNV alone is too linear to be summed safely.
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
