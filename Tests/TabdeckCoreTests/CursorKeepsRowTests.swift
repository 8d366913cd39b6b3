import Testing
import TabdeckCore
import TabdeckProtocol

/// The cursor keeps its row across sort, filter, refresh, invalidation and restart; when the
/// row left the view the nearest row takes it; `show` moves nothing.
@Suite struct CursorKeepsRowTests {
    func table(_ h: Harness) -> TableState { h.ws.tabs["people"]!.table! }
    func cursorID(_ h: Harness) -> String? { let t = table(h); return t.cache.row(at: t.view.cursor)?.id }

    func harness(count: Int, locates: Bool, filters: Bool = false) -> Harness {
        var h = Harness(count: count)
        h.plugins["people"]!.locates = locates
        h.plugins["people"]!.filters = filters
        h.feed(.viewport(rows: 10))
        return h
    }

    @Test func sortKeepsTheCursorOnItsRowWhereverItGoes() throws {
        var h = harness(count: 50, locates: true)
        h.run("goto 10")
        #expect(cursorID(h) == "9")
        let line = table(h).view.cursor - table(h).view.scrollOffset
        h.run("sort name")
        h.feed(.refresh)
        let order = (0..<50).sorted { h.plugins["people"]!.name($0) < h.plugins["people"]!.name($1) }
        #expect(table(h).view.cursor == order.firstIndex(of: 9))
        #expect(cursorID(h) == "9")
        #expect(table(h).view.cursor - table(h).view.scrollOffset == min(line, table(h).view.cursor))
        #expect(h.sends(Method.locate).count == 1)
        let asked = try LocateRequest(h.sends(Method.locate)[0].2)
        #expect(asked.rows == ["9", "10", "8"] && asked.sort == [SortKey("name")])
        h.run("sort name")  // descending now
        h.feed(.refresh)
        #expect(cursorID(h) == "9")
    }

    /// A `goto` while the sort's `locate` is on its way wins, even to the offset the cursor
    /// already had: the late answer does not move the cursor back to its old row.
    @Test func aGotoIsNotUndoneByALateLocate() {
        var h = harness(count: 50, locates: true)
        h.run("goto 2")  // (on the first row a sort keeps the view at the top: no `locate`)
        #expect(cursorID(h) == "1")
        h.plugins["people"]!.holdLocates = true
        h.run("sort name desc")  // row "1" (name1) goes near the end
        h.feed(.refresh)
        #expect(h.plugins["people"]!.heldLocates.count == 1)
        h.run("goto 2")
        h.releaseLocates("people")
        h.feed(.refresh)
        let order = (0..<50).sorted { h.plugins["people"]!.name($0) > h.plugins["people"]!.name($1) }
        #expect(table(h).view.cursor == 1)
        #expect(cursorID(h) == String(order[1]))
    }

    @Test func filterKeepsTheRowOrTheNearestOneTakesTheCursor() {
        var h = harness(count: 1000, locates: true, filters: true)
        h.run("goto 500")  // row "499" contains "99"
        h.run("filter 99")
        h.feed(.refresh)
        #expect(cursorID(h) == "499")
        h.run("filter clear")
        h.run("goto 101")  // row "100": neither it nor "101" contains "99", "99" (above it) does
        h.run("filter 99")
        h.feed(.refresh)
        #expect(cursorID(h) == "99")
    }

    @Test func withoutLocateTheCursorKeepsItsOffsetAndFindsItsRowInThatPage() {
        var h = harness(count: 100, locates: false)
        h.run("goto 11")
        #expect(cursorID(h) == "10")
        h.plugins["people"]!.idOffset = 3  // three rows inserted at the top: "10" is now row 8
        h.notify("people", "invalidate", ["table": "root"])
        h.feed(.refresh)
        #expect(cursorID(h) == "10")
        #expect(table(h).view.cursor == 7)
        #expect(h.sends(Method.locate).isEmpty)
    }

    @Test func aTableThatGotShorterGivesTheCursorToItsLastRow() {
        var h = harness(count: 100, locates: false)
        h.feed(.refresh)
        h.run("goto 80")
        h.plugins["people"]!.count = 30
        h.notify("people", "invalidate", ["table": "root", "total": 30])
        h.feed(.refresh)
        #expect(table(h).view.cursor == 29)
        #expect(cursorID(h) == "29")
    }

    @Test func refreshDropsTheRowsFetchesThemAgainAndKeepsTheRow() {
        var h = harness(count: 100, locates: true)
        h.run("goto 21")
        let rowsBefore = h.sends(Method.rows).count
        h.plugins["people"]!.idOffset = 5
        let out = h.run("refresh")
        #expect(out?.text == "refreshed People: 100 rows")
        #expect(h.sends(Method.rows).count > rowsBefore)
        #expect(cursorID(h) == "20")
        #expect(table(h).view.cursor == 15)
    }

    @Test func refreshRestartsAPluginThatIsDown() {
        var h = harness(count: 100, locates: false)
        h.run("show 1")
        for _ in 0..<h.ws.settings.crashBudget {
            h.feed(.plugin(tab: "people", .exited("exited with status 1")))
        }
        #expect(h.ws.tabs["people"]!.phase.name == "down")
        let starts = h.effects.filter { $0 == .startPlugin(tab: "people") }.count
        h.run("refresh")
        #expect(h.effects.filter { $0 == .startPlugin(tab: "people") }.count == starts + 1)
        #expect(h.ws.tabs["people"]!.phase.name == "running")
    }

    @Test func aRestartedPluginIsAskedWhereTheRowWent() {
        var h = harness(count: 500, locates: true)
        h.run("goto 50")
        #expect(cursorID(h) == "49")
        h.plugins["people"]!.idOffset = -150  // the new process's table moved row "49" to row 200
        h.run("restart")
        h.feed(.refresh)
        #expect(cursorID(h) == "49")
        #expect(table(h).view.cursor == 199)
        #expect(h.sends(Method.locate).count == 1)
    }

    @Test func restartKeepsTheCursorRowThroughLocate() {
        var h = harness(count: 50, locates: true)
        h.run("sort name")
        h.run("goto 30")
        let id = cursorID(h)
        h.run("restart")
        h.feed(.refresh)
        #expect(cursorID(h) == id)
    }

    @Test func showMovesNeitherTheViewNorTheCursor() {
        var h = harness(count: 1000, locates: false)
        h.run("goto 40")
        let before = table(h).view
        let out = h.run("show 5")
        #expect(out?.json["rows"]?.arrayValue?.count == 5)
        #expect(h.run("show")?.json["rows"]?.arrayValue?.count == 10)
        #expect(table(h).view == before)
    }
}

extension Harness {
    /// A notification from a tab's plugin.
    mutating func notify(_ tab: String, _ method: String, _ params: JSONValue) {
        feed(.plugin(tab: tab, .message(.notification(method: method, params: params))))
    }
}
