import Testing
import TabdeckCore
import TabdeckProtocol

/// A plugin that answers `find` (PROTOCOL.md 11.15) is asked once; the host pages through
/// nothing (issue 28).
@Suite struct FindPushdownTests {
    func cursor(_ h: Harness) -> Int { h.ws.tabs[h.ws.selectedTab!]!.table!.view.cursor }

    /// The fake names row i "name((i * 7919) % count)".
    func row(named n: Int, count: Int) -> Int { (0..<count).first { ($0 * 7919) % count == n }! }

    func finding(count: Int) -> Harness {
        var h = Harness(count: count)
        h.plugins["people"]!.finds = true
        return h
    }

    @Test func oneFindRequestAndNoPagesFromTheRowAfterTheCursor() throws {
        var h = finding(count: 100_000)
        h.run("show 5")
        let pagesBefore = h.sends(Method.rows).count
        let target = row(named: 99_999, count: 100_000)
        h.feed(.find(text: "NAME99999", backward: false))
        #expect(h.ws.find?.phase == .found(row: target, wrapped: target < 1))
        #expect(cursor(h) == target)
        let asked = h.sends(Method.find)
        #expect(asked.count == 1)
        let params = try FindRequest(try #require(asked.first?.2))
        #expect(params.text == "NAME99999")  // as typed: the plugin ignores case itself
        #expect(params.from == 1 && params.wrap && !params.backward)
        // Only the pages of the view at the row found, never chunks of the table.
        #expect(h.sends(Method.rows).dropFirst(pagesBefore).allSatisfy { $0.2["limit"]?.intValue != 1000 })
    }

    @Test func wrapsBackwardFromTheFirstRowAndFromTheLastForward() throws {
        var h = finding(count: 1000)
        h.run("show 1")
        let five = "name\((5 * 7919) % 1000)"
        h.feed(.find(text: five, backward: true))  // from row 1: from the last row back
        #expect(h.ws.find?.phase == .found(row: 5, wrapped: true))
        #expect(try FindRequest(try #require(h.sends(Method.find).last?.2)).from == 999)
        h.run("goto 1000")
        h.feed(.find(text: five, backward: false))  // from the last row: from past the end, wrapping
        #expect(h.ws.find?.phase == .found(row: 5, wrapped: true))
        #expect(try FindRequest(try #require(h.sends(Method.find).last?.2)).from == 1000)
    }

    @Test func theOrderAndFiltersOfTheViewGoWithTheRequest() throws {
        var h = finding(count: 1000)
        h.plugins["people"]!.filters = true
        h.run("sort name desc")
        h.run("filter name1")
        h.run("show 1")
        h.feed(.find(text: "name19", backward: false))
        let params = try FindRequest(try #require(h.sends(Method.find).last?.2))
        #expect(params.sort == [SortKey("name", .descending)])
        #expect(params.filter == "name1")
        #expect(params.generation == h.ws.tabs["people"]!.table!.generation)
        guard case .found(let at, _)? = h.ws.find?.phase else { Issue.record("not found: \(String(describing: h.ws.find?.phase))"); return }
        let shown = try #require(h.run("show 1")?.text)
        #expect(shown.contains("name19"), "row \(at + 1): \(shown)")
    }

    @Test func notFoundEndsTheFindAndKeepsTheCursor() {
        var h = finding(count: 2500)
        h.run("goto 7")
        h.feed(.find(text: "zzz", backward: false))
        #expect(h.ws.find?.phase == .notFound)
        #expect(cursor(h) == 6)
        #expect(h.run("find zzz") == nil)
        #expect(h.lastFailure == "\"zzz\" is in no row")
    }

    @Test func nAndNAskOnceEachAndEscCancelsARequestStillOut() throws {
        var h = finding(count: 1000)
        h.run("show 1")
        h.feed(.find(text: "name1", backward: false))
        h.feed(.find(text: "name1", backward: false))
        h.feed(.find(text: "name1", backward: true))
        #expect(h.sends(Method.find).count == 3)
        h.plugins["people"]!.holdFinds = true
        h.feed(.find(text: "nothing-like-this", backward: false))
        #expect(h.ws.find?.isSearching == true)
        #expect(h.ws.job?.kind == .find && h.ws.job?.done == nil)  // the plugin's progress shows
        let out = try #require(h.plugins["people"]!.heldFinds.last?.0)
        h.feed(.cancelFind)
        #expect(h.ws.find?.phase == .stopped("cancelled"))
        let cancels = h.effects.compactMap { effect -> JSONValue? in
            if case .send(_, .notification(Method.cancel, let p)) = effect { p["id"] } else { nil }
        }
        #expect(cancels.contains(out.json))
    }

    @Test func aFailedFindStopsWithThePluginsMessage() {
        var h = finding(count: 1000)
        h.plugins["people"]!.failFind = "disk on fire"
        h.run("show 1")
        h.feed(.find(text: "name1", backward: false))
        #expect(h.ws.find?.phase == .stopped("the plugin says: disk on fire"))
    }

    @Test func aSectionJumpStillPagesThroughTheTable() {
        var h = finding(count: 1000)
        h.plugins["people"]!.sectioned = true
        h.plugins["people"]!.sectionCounts = false
        h.run("show 1")
        h.run("jump high")
        #expect(h.sends(Method.find).isEmpty)
    }
}
