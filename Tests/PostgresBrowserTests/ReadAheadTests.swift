@testable import PostgresBrowser
import TabdeckProtocol
import Testing

/// Pages read ahead of a scan are served once, to the same scan only, in order.
@Suite struct ReadAheadTests {
    func page(_ first: Int, _ count: Int) -> PGRowWriter.Page {
        PGRowWriter.Page(json: Array("\(first)".utf8), count: count, firstKey: ["\(first)"], lastKey: ["\(first + count - 1)"])
    }

    let byCreated = PGReadAhead.Scan(order: PGAnchors.Order(sort: [SortKey("created", .ascending)]), limit: 1000, generation: 1)

    @Test func aScanReadsAheadOnlyWhenTwoPagesInARowStartedWhereTheLastEnded() {
        let ahead = PGReadAhead()
        #expect(!ahead.continues(byCreated, offset: 0))
        ahead.served(byCreated, offset: 0, pages: [page(0, 1000)])
        // The page after a jump is read alone: at the speed of one page.
        #expect(!ahead.continues(byCreated, offset: 1000))
        ahead.served(byCreated, offset: 1000, pages: [page(1000, 1000)])
        #expect(ahead.continues(byCreated, offset: 2000))
        #expect(!ahead.continues(byCreated, offset: 3000))
        var other = byCreated
        other.generation = 2  // a refresh: nothing read before it continues
        #expect(!ahead.continues(other, offset: 2000))
        other = byCreated
        other.order.filter = "x"
        #expect(!ahead.continues(other, offset: 2000))
        ahead.served(byCreated, offset: 5000, pages: [page(5000, 1000)])  // a jump ends the streak
        #expect(!ahead.continues(byCreated, offset: 6000))
    }

    @Test func keptPagesAreServedOnceToTheSameScanAndMoveTheScanOn() {
        let ahead = PGReadAhead()
        ahead.served(byCreated, offset: 1000, pages: [page(1000, 1000), page(2000, 1000), page(3000, 1000), page(4000, 400)])
        #expect(ahead.take(byCreated, offset: 1000) == nil, "the first page was served, not kept")
        var other = byCreated
        other.order.sort = [SortKey("created", .descending)]
        #expect(ahead.take(other, offset: 2000) == nil)
        #expect(ahead.take(byCreated, offset: 2000)?.json == Array("2000".utf8))
        #expect(ahead.take(byCreated, offset: 2000) == nil, "served once")
        #expect(ahead.continues(byCreated, offset: 3000))
        #expect(ahead.take(byCreated, offset: 3000)?.count == 1000)
        #expect(ahead.take(byCreated, offset: 4000)?.count == 400)
        #expect(ahead.continues(byCreated, offset: 4400), "pages taken in order keep the streak")
    }

    @Test func anotherScanOrAClearDropsTheKeptPages() {
        let ahead = PGReadAhead()
        ahead.served(byCreated, offset: 1000, pages: [page(1000, 1000), page(2000, 1000)])
        var other = byCreated
        other.limit = 100
        ahead.served(other, offset: 100, pages: [page(100, 100)])
        #expect(ahead.take(byCreated, offset: 2000) == nil)
        ahead.served(byCreated, offset: 1000, pages: [page(1000, 1000), page(2000, 1000)])
        ahead.clear()
        #expect(ahead.take(byCreated, offset: 2000) == nil)
        #expect(!ahead.continues(byCreated, offset: 2000))
    }
}
