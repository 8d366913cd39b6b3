import Testing
import TabdeckCore
import TabdeckProtocol

/// `select all` as a value ("all, except these ids"): constant time and size on any table.
@Suite struct SelectAllTests {
    func rowsRequests(_ h: Harness, _ tab: String = "people") -> Int { h.plugins[tab]!.seen.filter { $0 == Method.rows }.count }

    func savedSelections(_ h: Harness) -> [RowSelection] {
        h.effects.compactMap { if case .saveView(_, _, let view) = $0 { view.selection } else { nil } }
    }

    @Test func selectAllOnTwoMillionRowsReadsNoRows() {
        var h = Harness(count: 2_000_000)
        h.run("sort")  // opens the table
        let before = rowsRequests(h)
        let out = h.run("select all")
        #expect(out?.text == "all 2,000,000 selected")
        #expect(out?.json == ["all": true, "count": 2_000_000, "except": []])
        #expect(rowsRequests(h) == before, "select all sent rows requests")
        #expect(h.ws.tabs["people"]!.table!.view.selection == .allExcept([]))
        // What is saved is the form, not two million ids.
        #expect(savedSelections(h).last == .allExcept([]))
        #expect(savedSelections(h).last?.listed.isEmpty == true)
        #expect(h.run("selection")?.text == "all 2,000,000 selected")
    }

    @Test func unselectAndSelectRoundTrip() {
        var h = Harness(count: 2_000_000)
        h.run("select all")
        #expect(h.run("unselect 5 7")?.text == "1,999,998 selected (all but 2)")
        #expect(h.ws.tabs["people"]!.table!.view.selection == .allExcept(["5", "7"]))
        let listed = h.run("selection")
        #expect(listed?.text == "1,999,998 selected (all but 2): except 5 7")
        #expect(listed?.json == ["all": true, "count": 1_999_998, "except": ["5", "7"]])
        // Marks on the rows shown, and the footer.
        let shown = h.run("show 10")
        let marked = shown?.json["rows"]?.arrayValue?.filter { $0["selected"] == .bool(true) }.compactMap { $0["id"]?.stringValue }
        #expect(marked == ["0", "1", "2", "3", "4", "6", "8", "9"])
        #expect(shown?.text.hasSuffix("1,999,998 selected (all but 2)") == true, "\(shown?.text ?? "")")
        #expect(h.run("select 5")?.text == "1,999,999 selected (all but 1)")
        #expect(h.run("select 7")?.text == "all 2,000,000 selected")
        #expect(h.ws.tabs["people"]!.table!.view.selection == .allExcept([]))
        #expect(h.run("select none")?.text == "0 selected")
        #expect(h.ws.tabs["people"]!.table!.view.selection == [])
        #expect(h.run("select 1 2")?.json == ["all": false, "count": 2, "ids": ["1", "2"]])
    }

    @Test func countIsUnknownWhileTheTotalIs() {
        var h = Harness(count: 100)
        h.plugins["people"]!.totalUnknown = true
        #expect(h.run("select all")?.text == "all selected")
        #expect(h.run("unselect 3")?.text == "all but 1 selected")
        #expect(h.run("selection")?.json == ["all": true, "count": nil, "except": ["3"]])
    }

    @Test func anotherFilterDropsAnAllSelection() {
        var h = Harness(count: 100)
        h.plugins["people"]!.filters = true
        h.run("filter 1")
        let total = h.ws.tabs["people"]!.table!.total ?? -1
        #expect(h.run("select all")?.text == "all \(total) selected")
        let out = h.run("filter 2")
        #expect(out?.text.contains("the selection of all rows was cleared") == true, "\(out?.text ?? "")")
        #expect(h.ws.tabs["people"]!.table!.view.selection == [])
        // Explicit ids survive a filter change.
        h.run("select 4 40")
        h.run("filter 4")
        #expect(h.ws.tabs["people"]!.table!.view.selection == ["4", "40"])
    }

    @Test func anActionOnAllExceptPagesThroughTheTableForIds() {
        var h = Harness(count: 2_500)
        h.run("select all")
        h.run("unselect 3 2499")
        let before = rowsRequests(h)
        let out = h.run("action touch")
        #expect(out?.text == "did touch on 2498", "\(h.failures)")
        // Three pages of 1,000 rows for the ids, then the view fetched again after the action
        // (its page and the page read ahead).
        #expect(rowsRequests(h) - before == 3 + 2, "three pages of 1,000 rows, then the view")
        #expect(h.sends(Method.rows).suffix(5).map { $0.2["limit"]?.intValue } == [1000, 1000, 1000, 100, 100])
        let sent = h.effects.compactMap { effect -> [String]? in
            if case .send(_, .request(_, Method.action, let params)) = effect {
                return params["rows"]?.arrayValue?.compactMap(\.stringValue)
            }
            return nil
        }.last
        #expect(sent?.count == 2498)
        #expect(sent?.contains("3") == false && sent?.contains("2499") == false && sent?.first == "0")
        // The selection is still "all but two" afterwards.
        #expect(h.ws.tabs["people"]!.table!.view.selection == .allExcept(["3", "2499"]))
    }

    @Test func aConfirmedActionOnAllAsksBeforeReadingRows() {
        var h = Harness(count: 50_000)
        h.run("select all")
        let before = rowsRequests(h)
        #expect(h.run("action delete") == nil)
        #expect(h.lastFailure?.contains("on all 50,000 rows needs confirmation") == true, "\(h.failures)")
        #expect(rowsRequests(h) == before)
    }

    @Test func anActionOnMoreRowsThanOneMessageTakesIsRefusedBeforeReading() {
        var h = Harness(count: 2_000_000)
        h.run("select all")
        #expect(h.run("action touch") == nil)
        #expect(h.lastFailure == "action touch on 2,000,000 rows: an action takes at most 100,000 rows "
                + "(their ids go in one message); narrow the selection first (filter, then select all)")
        #expect(!h.plugins["people"]!.seen.contains(Method.rows))
    }

    @Test func withTheCountUnknownReadingStopsAtTheLimit() {
        var h = Harness(count: 2_500)
        h.plugins["people"]!.totalUnknown = true
        h.ws.settings.maxActionRows = 1_500
        h.run("select all")
        #expect(h.run("action touch") == nil)
        #expect(h.lastFailure?.hasPrefix("action touch on more than 1,500 rows: ") == true, "\(h.failures)")
        // Pages in flight a few at a time: it stops with the second page read, the rest cancelled.
        #expect(rowsRequests(h) <= 2 + h.ws.settings.scanPagesInFlight)
        #expect(h.effects.contains { if case .send(_, .notification(Method.cancel, _)) = $0 { true } else { false } })
        #expect(!h.plugins["people"]!.seen.contains(Method.action))
    }

    @Test func aFailingPageFailsTheActionWithoutSendingIt() {
        var h = Harness(count: 2_500)
        h.run("select all")
        h.plugins["people"]!.holdRows = true
        h.feed(.command("action touch"))
        let held = h.plugins["people"]!.held
        #expect(held.count == h.ws.settings.scanPagesInFlight)
        h.feed(.plugin(tab: "people", .message(.failure(id: held[0].0, error: RPCError(code: -32000, message: "disk on fire")))))
        #expect(h.lastFailure?.contains("reading the selected rows failed") == true, "\(h.failures)")
        #expect(h.lastFailure?.contains("disk on fire") == true)
        #expect(!h.plugins["people"]!.seen.contains(Method.action))
    }
}
