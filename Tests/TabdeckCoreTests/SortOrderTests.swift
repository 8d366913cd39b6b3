import Testing
import TabdeckCore
import TabdeckProtocol

@Suite struct SortOrderTests {
    @Test func newColumnGoesToFrontAscending() {
        let order = SortOrder.choose("age", in: [SortKey("first"), SortKey("last")])
        #expect(order == [SortKey("age", .ascending), SortKey("first"), SortKey("last")])
    }

    @Test func existingColumnMovesToFrontKeepingItsDirection() {
        let order = SortOrder.choose("last", in: [SortKey("age"), SortKey("last", .descending)])
        #expect(order == [SortKey("last", .descending), SortKey("age")])
    }

    @Test func frontColumnFlips() {
        let once = SortOrder.choose("age", in: [SortKey("age"), SortKey("name")])
        #expect(once == [SortKey("age", .descending), SortKey("name")])
        #expect(SortOrder.choose("age", in: once) == [SortKey("age", .ascending), SortKey("name")])
    }

    @Test func explicitDirectionWins() {
        #expect(SortOrder.choose("age", direction: .descending, in: []) == [SortKey("age", .descending)])
        #expect(SortOrder.choose("age", direction: .ascending, in: [SortKey("age")]) == [SortKey("age")])
    }
}

@Suite struct PageCacheTests {
    func page(_ n: Int) -> [Row] { (0..<10).map { Row(id: "\(n)-\($0)", cells: []) } }

    @Test func evictsLeastRecentlyUsedBeyondCapacity() {
        var cache = PageCache(pageSize: 10, capacity: 3)
        cache.store(page: 0, rows: page(0))
        cache.store(page: 1, rows: page(1))
        cache.store(page: 2, rows: page(2))
        cache.touch(page: 0)
        cache.store(page: 3, rows: page(3))
        #expect(cache.cachedPages == [0, 2, 3])
        #expect(cache.row(at: 5)?.id == "0-5")
        #expect(cache.row(at: 15) == nil)
    }

    @Test func keepsPinnedPages() {
        var cache = PageCache(pageSize: 10, capacity: 2)
        cache.store(page: 0, rows: page(0))
        cache.store(page: 1, rows: page(1))
        cache.store(page: 2, rows: page(2), keep: [0])
        #expect(cache.cachedPages == [0, 2])
    }

    @Test func removesPagesHoldingIds() {
        var cache = PageCache(pageSize: 10, capacity: 5)
        cache.store(page: 0, rows: page(0))
        cache.store(page: 1, rows: page(1))
        cache.remove(ids: ["1-3"])
        #expect(cache.cachedPages == [0])
    }

    @Test func memoryIsBoundedWhateverTheTableSize() {
        var cache = PageCache(pageSize: 100, capacity: 8)
        for p in stride(from: 0, to: 100_000, by: 997) { cache.store(page: p, rows: page(p)) }
        #expect(cache.pageCount == 8)
    }
}
