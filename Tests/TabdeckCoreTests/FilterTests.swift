import Testing
import TabdeckCore
import TabdeckProtocol

/// `filter TEXT`: the plugin filters (it declares `filter`), the host sends the text in every
/// rows request of a new generation and shows the filtered count.
@Suite struct FilterTests {
    func filtering() -> Harness {
        var h = Harness(count: 1000)
        for id in h.plugins.keys { h.plugins[id]!.filters = true }
        h.feed(.viewport(rows: 10))
        h.run("goto 500")
        return h
    }

    func table(_ h: Harness) -> TableState { h.ws.tabs[h.ws.selectedTab!]!.table! }

    @Test func filterSendsTheTextAndShowsTheFilteredCount() throws {
        var h = filtering()
        let generation = table(h).generation
        let outOut = h.run("filter 99")
        let out = try #require(outOut)
        // Ids or names containing "99": 99, 199, …, 990–999, and the names "name…99…".
        let expected = (0..<1000).filter { String($0).contains("99") || "name\(($0 * 7919) % 1000)".contains("99") }
        #expect(out.text == "filter: \"99\" (\(expected.count) rows)")
        #expect(out.json["total"] == .int(Int64(expected.count)))
        let t = table(h)
        #expect(t.generation == generation + 1)
        // The cursor keeps its row, "499": without `locate` it first goes to the last row (its
        // offset is past the filtered rows), then finds its row in that page.
        #expect(t.view.cursor == expected.firstIndex(of: 499) && t.view.filter == "99")
        let sent = h.sends(Method.rows).last!.2
        #expect(sent["filter"] == "99")
        #expect(sent["generation"] == .int(Int64(generation + 1)))
        let shownOut = h.run("show 3")
        let shown = try #require(shownOut)
        #expect(shown.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == expected[t.view.scrollOffset...].prefix(3).map { String($0) })
        #expect(shown.text.hasSuffix("of \(expected.count) · filter \"99\""))
        // The view is saved with its filter.
        #expect(h.effects.contains { if case .saveView(_, _, let v) = $0 { v.filter == "99" } else { false } })
        #expect(h.run("filter")?.text == "filter: \"99\" (\(expected.count) rows)")
        let clearedOut = h.run("filter clear")
        let cleared = try #require(clearedOut)
        #expect(cleared.text == "no filter (1,000 rows)")
        #expect(h.sends(Method.rows).last!.2["filter"] == .null)
    }

    @Test func findAndSelectAllStayInsideTheFilter() throws {
        var h = filtering()
        h.run("filter name1")
        let total = try #require(table(h).total)
        let before = h.sends(Method.rows).count
        // "All" is all rows matching the filter: counted from the filtered total, and an
        // action on it reads the rows under the filter.
        #expect(h.run("select all")?.text == "all \(formatCount(total)) selected")
        #expect(h.sends(Method.rows).count == before, "select all reads no rows")
        #expect(h.run("find name1")?.text.hasPrefix("found \"name1\" at row") == true)
        #expect(h.run("action touch")?.text == "did touch on \(total)")
        let after = h.sends(Method.rows).dropFirst(before)
        #expect(!after.isEmpty && after.allSatisfy { $0.2["filter"] == "name1" })
    }

    @Test func aPluginWithoutTheCapabilityIsRefused() {
        var h = Harness(count: 100)
        h.run("show 1")
        #expect(h.run("filter x") == nil)
        #expect(h.lastFailure?.contains("cannot filter") == true)
        #expect(h.ws.tabs["people"]!.table!.view.filter == nil)
    }

    @Test func aRestoredFilterIsSentAgain() throws {
        let key = TableViewKey(tab: "people", table: "")
        var h = Harness(count: 1000, views: [key: TableViewState(filter: "name7")])
        for id in h.plugins.keys { h.plugins[id]!.filters = true }
        let expected = (0..<1000).filter { "name\(($0 * 7919) % 1000)".contains("name7") }.count
        // The description counts every row; the filtered count comes with the first page.
        #expect(h.run("filter")?.text == "filter: \"name7\" (\(expected) rows)")
        #expect(h.sends(Method.rows).first?.2["filter"] == "name7")
        // A plugin that no longer filters: the stored filter is dropped, every row is shown.
        var plain = Harness(count: 1000, views: [key: TableViewState(filter: "name7")])
        plain.run("show 2")
        #expect(plain.sends(Method.rows).first?.2["filter"] == .null)
        #expect(plain.ws.tabs["people"]!.table!.view.filter == nil)
    }
}
