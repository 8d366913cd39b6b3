import Testing
import TabdeckCore

/// `Event.scroll` (the mouse wheel): the view moves, the cursor keeps its row while in view.
@Suite struct ScrollTests {
    @Test func theViewScrollsAndTheCursorKeepsItsRowWhileInView() {
        var h = Harness(count: 100)
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        h.feed(.refresh)
        let view = { (h: Harness) in h.ws.tabs["people"]!.table!.view }
        h.feed(.scroll(rows: 3))
        #expect(view(h).scrollOffset == 3 && view(h).cursor == 3, "row 0 left the view: the first row in view")
        h.feed(.cursor(delta: 4))
        h.feed(.scroll(rows: -2))
        #expect(view(h).scrollOffset == 1 && view(h).cursor == 7, "still in view: the cursor stays")
        h.feed(.scroll(rows: 1000))
        #expect(view(h).scrollOffset == 90 && view(h).cursor == 90, "no further than the last page")
        h.feed(.scroll(rows: -1000))
        #expect(view(h).scrollOffset == 0 && view(h).cursor == 9, "the cursor takes the last row in view")
    }
}
