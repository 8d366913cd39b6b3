import Testing
import TabdeckCore
import TabdeckProtocol

/// `G` and `page last` on a table whose row count comes later (a CSV still being indexed).
@Suite struct UnknownTotalTests {
    /// A harness whose plugins give no total until the test sends one.
    func counting(_ count: Int = 1000) -> Harness {
        var h = Harness(count: count)
        for id in h.plugins.keys { h.plugins[id]!.totalUnknown = true }
        h.feed(.viewport(rows: 20))
        h.run("show 1")
        return h
    }

    func table(_ h: Harness) -> TableState { h.ws.tabs[h.ws.selectedTab!]!.table! }

    func notify(_ h: inout Harness, _ method: String, _ params: JSONValue) {
        h.feed(.plugin(tab: h.ws.selectedTab!, .message(.notification(method: method, params: params))))
    }

    @Test func theLastRowKeyWaitsForTheCount() {
        var h = counting()
        let start = table(h).view.cursor
        #expect(table(h).total == nil)
        h.feed(.page(.last))
        #expect(table(h).view.cursor == start)
        #expect(table(h).endWanted == start)
        notify(&h, Method.invalidate, ["table": "root", "total": 1000])
        #expect(table(h).view.cursor == 999)
        #expect(table(h).view.scrollOffset == 980)
        #expect(table(h).endWanted == nil)
        // The rows at the end are asked for at once.
        #expect(h.sends(Method.rows).contains { $0.2["offset"]?.intValue.map { $0 >= 900 } == true })
    }

    @Test func aCountWithNoRowsChangedKeepsThePages() {
        var h = counting()
        h.feed(.refresh)  // the screen follows the view: invalidated visible rows are refetched
        let asked = h.sends(Method.rows).count
        notify(&h, Method.invalidate, ["table": "root", "rows": [], "total": 1000])
        #expect(table(h).total == 1000)
        #expect(h.sends(Method.rows).count == asked)
        notify(&h, Method.invalidate, ["table": "root", "total": 1000])
        #expect(h.sends(Method.rows).count > asked)  // any row may have changed: refetched
    }

    @Test func movingAfterTheKeyCancelsTheJump() {
        var h = counting()
        let start = table(h).view.cursor
        h.feed(.page(.last))
        h.feed(.cursor(delta: 3))
        notify(&h, Method.invalidate, ["table": "root", "total": 1000])
        #expect(table(h).view.cursor == start + 3)
        #expect(table(h).endWanted == nil)
    }

    @Test func sortingAfterTheKeyCancelsTheJump() {
        var h = counting()
        h.feed(.page(.last))
        h.run("sort name")
        #expect(table(h).endWanted == nil)
        notify(&h, Method.invalidate, ["table": "root", "total": 1000])
        #expect(table(h).view.cursor == 0)
    }

    @Test func theCommandWaitsWhileTheCountIsInProgress() {
        var h = counting()
        notify(&h, Method.progress, ["done": 10, "total": 100, "message": "indexing"])
        let before = h.outputs.count
        h.feed(.command("page last"))
        #expect(h.outputs.count == before)  // still waiting
        #expect(h.failures.isEmpty)
        notify(&h, Method.invalidate, ["table": "root", "total": 1000])
        #expect(h.outputs.count == before + 1)
        #expect(table(h).view.cursor == 999)
    }

    @Test func theCommandFailsWhenNothingIsCounting() {
        var h = counting()
        #expect(h.run("page last") == nil)
        #expect(h.lastFailure?.contains("the row count is not known yet") == true)
        // A count that ends without a total ends the wait with the same error.
        notify(&h, Method.progress, ["done": 1, "total": 100])
        h.feed(.command("page last"))
        notify(&h, Method.progress, ["done": 100, "total": 100])
        #expect(h.failures.count == 2)
    }
}
