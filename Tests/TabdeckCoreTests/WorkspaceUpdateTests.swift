import Testing
import TabdeckCore
import TabdeckProtocol

@Suite struct LayoutCommandTests {
    @Test func movingATabIsSavedBeforeItIsAcknowledged() throws {
        var h = Harness()
        h.run("tab move logs to 1")
        let save = h.effects.firstIndex { if case .saveLayout = $0 { true } else { false } }
        let done = h.effects.firstIndex { if case .commandDone = $0 { true } else { false } }
        #expect(save != nil && done != nil && save! < done!)
        #expect(h.ws.layout.visibleTabs == ["logs", "people", "orders", "procs"])
        #expect(h.ws.layout.tabs.first { $0.tab == "logs" }?.section == "data")
    }

    @Test func beforeAfterAndSectionMoves() {
        var h = Harness()
        h.run("tab move people after procs")
        #expect(h.ws.layout.visibleTabs == ["orders", "procs", "people", "logs"])
        h.run("tab move Orders to section sys")
        #expect(h.ws.layout.visibleTabs == ["procs", "people", "logs", "orders"])
        h.run("section move sys to 2")
        #expect(h.ws.layout.sections == ["data", "sys"])
    }

    @Test func nonCustomizableTabRefusesToMoveOrHide() {
        var h = Harness()
        #expect(h.run("tab hide procs") == nil)
        #expect(h.lastFailure?.contains("not customizable") == true)
        #expect(h.run("tab move 3 to 1") == nil)
        #expect(h.ws.layout.visibleTabs == ["people", "orders", "procs", "logs"])
    }

    @Test func hideShowSelectAndReset() {
        var h = Harness()
        h.run("tab select 2")
        #expect(h.ws.selectedTab == "orders")
        h.run("tab hide orders")
        #expect(h.ws.layout.visibleTabs == ["people", "procs", "logs"])
        #expect(h.ws.selectedTab == "people")
        #expect(h.run("tab select orders") == nil)
        h.run("tab show orders")
        h.run("tab move logs to 1")
        h.run("tab reset")
        #expect(h.ws.layout.visibleTabs == ["people", "orders", "procs", "logs"])
    }

    @Test func unknownTabSuggests() {
        var h = Harness()
        #expect(h.run("tab select peeple") == nil)
        #expect(h.lastFailure == #"no tab "peeple" (did you mean "people"?)"#)
    }
}

@Suite struct TableCommandTests {
    func ids(_ out: CommandOutput?) -> [String] {
        out?.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test func showStartsThePluginLazilyAndPrintsRows() {
        var h = Harness(count: 1000)
        #expect(h.sends(Method.initialize).isEmpty)
        let out = h.run("show 3")
        #expect(ids(out) == ["0", "1", "2"])
        #expect(h.sends(Method.initialize).count == 1)
        #expect(out?.text.hasSuffix("rows 1–3 of 1,000") == true)
    }

    @Test func sortIsSentToThePluginWithANewGeneration() throws {
        var h = Harness(count: 50)
        h.run("show 1")
        h.run("sort name")
        let out = h.run("show 3")
        let last = try RowsRequest(h.sends(Method.rows).last!.2)
        #expect(last.sort == [SortKey("name")])
        #expect(last.generation == 2)
        let plugin = FakePlugin(count: 50)
        let expected = (0..<50).sorted { plugin.name($0) < plugin.name($1) }.prefix(3).map(String.init)
        #expect(ids(out) == expected)
        h.run("sort name")
        #expect(h.ws.tabs["people"]!.table!.view.sort == [SortKey("name", .descending)])
        h.run("sort id")
        #expect(h.ws.tabs["people"]!.table!.view.sort == [SortKey("id"), SortKey("name", .descending)])
    }

    @Test func selectionIsByIdAndSurvivesSorting() {
        var h = Harness(count: 20)
        h.run("select 3 7")
        h.run("sort id desc")
        let out = h.run("show 20")
        let selected = out?.json["rows"]?.arrayValue?.filter { $0["selected"] == .bool(true) }.compactMap { $0["id"]?.stringValue }
        #expect(selected == ["7", "3"])
        #expect(h.run("selection")?.text == "2 selected: 3 7")
    }

    @Test func pagesOfAnOldGenerationAreDiscarded() {
        var h = Harness(count: 1000)
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        h.run("goto 500")  // prefetch requests are held by the plugin
        let held = h.plugins["people"]!.held
        #expect(!held.isEmpty)
        h.run("sort name desc")
        // The old pages arrive late: they must not enter the cache.
        for (id, params) in held {
            h.feed(.plugin(tab: "people", .message(.response(id: id, result: h.plugins["people"]!.rows(params)))))
        }
        #expect(h.ws.tabs["people"]!.table!.cache.pageCount == 0)
    }

    @Test func aFastScrollCancelsSkippedPages() {
        var h = Harness(count: 100_000)
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        h.run("goto 5000")
        h.run("goto 90000")
        let cancelled = h.effects.filter { if case .send(_, .notification(Method.cancel, _)) = $0 { true } else { false } }
        #expect(cancelled.count >= 1)
        // Only the pages around the view are still asked (the skipped ones were cancelled), and
        // nothing else is pending.
        let asked = h.ws.pagesAsked(tab: "people")
        #expect(!asked.isEmpty && asked.allSatisfy { abs($0 - 900) <= 3 }, "\(asked)")
        #expect(h.ws.pendingRequests(tab: "people") == asked.count)
    }

    @Test func cacheStaysBoundedAfterManyJumps() {
        var h = Harness(count: 10_000_000)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            h.run("goto \(Int.random(in: 1...10_000_000, using: &rng))")
            h.run("show 5")
        }
        #expect(h.ws.tabs["people"]!.table!.cache.pageCount <= h.ws.settings.cachePages)
    }

    @Test func exportStreamsEveryRowInOrder() {
        var h = Harness(count: 2500)
        h.run("sort id desc")
        let out = h.run("export /tmp/x.csv")
        #expect(out?.text == "exported 2500 rows to /tmp/x.csv")
        var rows: [[JSONValue]] = []
        for case .exportRows(let r) in h.effects { rows += r }
        #expect(rows.count == 2500)
        #expect(rows.first == [.int(2499), .string(FakePlugin(count: 2500).name(2499))])
        #expect(rows.last?.first == .int(0))
    }

    @Test func selectAllSelectsEveryRowWithoutReadingThem() {
        var h = Harness(count: 2345)
        #expect(h.run("select all")?.text == "all 2,345 selected")
        #expect(!h.plugins["people"]!.seen.contains(Method.rows))
    }

    @Test func columnsCanBeHiddenMovedAndResized() {
        var h = Harness(count: 5)
        h.run("column move name to 1")
        h.run("column width id 9")
        let out = h.run("columns")
        #expect(out?.text == "1. name \"name\" — text\n2. id \"id\" — integer, width 9")
        h.run("column hide id")
        #expect(h.run("column hide name") == nil)
        #expect(h.lastFailure == "column name is the last visible column")
        #expect(h.run("show 1")?.json["columns"] == ["name"])
    }

    @Test func actionsNeedConfirmationAndGoToTheSelection() throws {
        var h = Harness(count: 10)
        h.run("select 1 2")
        #expect(h.run("action delete") == nil)
        #expect(h.lastFailure?.contains("--yes") == true)
        #expect(h.run("action delete --yes")?.text == "did delete on 2")
        #expect(h.run("action nuke") == nil)
        #expect(h.lastFailure?.contains("no action \"nuke\"") == true)
    }

    @Test func drillDownAndBack() {
        var h = Harness(count: 10)
        h.plugins["people"]!.children = true
        #expect(h.run("open 4")?.text == "People > 4")
        #expect(h.ws.tabs["people"]!.stack.count == 2)
        #expect(h.run("back")?.text == "People")
        #expect(h.run("back") == nil)
    }

    @Test func savedViewIsRestoredWhenTheTableOpens() {
        let saved = TableViewState(sort: [SortKey("name", .descending), SortKey("gone")],
                                   columns: [ColumnCustomization(id: "name"), ColumnCustomization(id: "id", hidden: true)],
                                   scrollOffset: 40, cursor: 42, selection: ["5"])
        var h = Harness(count: 100, views: [TableViewKey(tab: "people", table: ""): saved])
        let out = h.run("show 2")
        #expect(out?.json["columns"] == ["name"])
        #expect(out?.json["offset"] == 40)
        #expect(h.ws.tabs["people"]!.table!.view.sort == [SortKey("name", .descending)])
    }
}

@Suite struct PluginFailureTests {
    @Test func crashFailsTheCommandShowsBangAndRestartsWithBackoff() {
        var h = Harness(count: 1000)
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        h.run("goto 500")
        h.feed(.command("show 3"))  // waits for rows
        h.feed(.plugin(tab: "people", .stderr("Traceback: boom")))
        h.feed(.plugin(tab: "people", .exited("exited with status 3")))
        #expect(h.lastFailure == "tab people: plugin exited with status 3; last stderr: Traceback: boom")
        #expect(h.ws.tabs["people"]!.shownBadge == "!")
        #expect(h.ws.pendingRequests(tab: "people") == 0)
        // Next use within the backoff waits for a wake-up, then restarts.
        h.plugins["people"]!.holdRows = false
        h.feed(.command("show 1"))
        #expect(h.effects.contains(.wake(at: 0.5)))
        h.now = 0.6
        h.feed(.wake)
        #expect(h.outputs.last?.json["rows"]?.arrayValue?.count == 1)
        #expect(h.ws.tabs["people"]!.shownBadge == nil)
        #expect(h.sends(Method.initialize).count == 2)
    }

    @Test func crashBudgetLeavesThePluginDownUntilRestart() {
        var h = Harness(count: 10)
        for i in 0..<5 {
            h.now = Double(i) * 5
            h.run("show 1")
            h.feed(.plugin(tab: "people", .exited("exited with status 1")))
        }
        h.now = 30
        #expect(h.run("show 1") == nil)
        #expect(h.lastFailure?.contains("crashed 5 times in 60 s") == true)
        #expect(h.run("plugin restart")?.text == "restarted people")
        #expect(h.run("show 1") != nil)
    }

    @Test func timeoutKillsTheHungPluginAndFailsTheCommand() {
        var h = Harness(count: 10)
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        h.run("goto 5")
        h.feed(.command("sort name"))
        h.feed(.command("show 3"))
        let id = h.sends(Method.rows).last!.1
        h.now = 10
        h.feed(.wake)
        #expect(h.effects.contains(.killPlugin(tab: "people")))
        #expect(h.lastFailure?.contains("request \(id)") == true)
        #expect(h.lastFailure?.contains("did not answer \"rows\" (request") == true)
    }

    @Test func protocolVersionMismatchIsShownAndNotRetried() {
        var h = Harness(count: 10)
        h.feed(.command("show 1"))
        let id = h.sends(Method.initialize).last!.1
        // The fake answered already; simulate a plugin speaking protocol 99 on a fresh workspace instead.
        var w = Workspace(config: sampleConfig(), storedLayout: nil, storedViews: [:])
        let effects = w.update(.command("show 1"), now: 0)
        guard case .send(_, .request(let initID, _, _))? = effects.first(where: { if case .send = $0 { true } else { false } }) else {
            Issue.record("no initialize sent"); return
        }
        let reply = InitializeResult(name: "x", version: "1", protocolVersion: 99, capabilities: PluginCapabilities()).json
        let after = w.update(.plugin(tab: "people", .message(.response(id: initID, result: reply))), now: 0)
        #expect(after.contains(.stopPlugin(tab: "people")))
        _ = w.update(.plugin(tab: "people", .exited("exited with status 0")), now: 0)
        #expect(w.tabs["people"]!.error == "plugin speaks protocol 99, host speaks 1")
        #expect(w.tabs["people"]!.phase == .down(reason: "plugin speaks protocol 99, host speaks 1"))
        _ = id
    }

    @Test func badgesAndStatusFromBackgroundNotifications() {
        var h = Harness(count: 10)
        h.feed(.plugin(tab: "logs", .message(.notification(method: "badge", params: ["value": 3]))))
        #expect(h.ws.tabs["logs"]!.shownBadge == "3")
        h.feed(.plugin(tab: "logs", .message(.notification(method: "badge", params: ["value": "newest"]))))
        #expect(h.ws.tabs["logs"]!.shownBadge == "newe")
        h.feed(.plugin(tab: "logs", .message(.notification(method: "badge", params: ["value": nil]))))
        #expect(h.ws.tabs["logs"]!.shownBadge == nil)
        h.feed(.plugin(tab: "logs", .message(.notification(method: "frobnicate", params: [:]))))
        #expect(h.effects.contains(.log(tab: "logs", "tabdeck: ignored unknown notification \"frobnicate\"")))
    }
}

@Suite struct RefreshTests {
    @Test func refreshOpensTheSelectedTabAndFetchesTheRowsInView() {
        var h = Harness(count: 500)
        h.feed(.viewport(rows: 30))
        h.feed(.refresh)
        #expect(h.sends(Method.open).count == 1)
        h.feed(.refresh)
        let pages = h.sends(Method.rows).map { (try? RowsRequest($0.2))?.offset }
        #expect(pages == [0, 100])  // the view (rows 0..<30) plus one page of read-ahead
        #expect(h.outputs.isEmpty && h.failures.isEmpty)
        #expect(h.ws.tabs["people"]!.table!.cache.row(at: 29)?.id == "29")
    }

    @Test func unselectRemovesIds() {
        var h = Harness(count: 10)
        h.run("select 1 2 3")
        #expect(h.run("unselect 2 9")?.text == "2 selected")
        #expect(h.run("selection")?.text == "2 selected: 1 3")
    }
}

@Suite struct CompletionTests {
    @Test func completesCommandsTabsColumnsAndPaths() {
        var h = Harness(count: 10)
        #expect(h.ws.completions(for: "so") == .words(["sort"]))
        #expect(h.ws.completions(for: "tab ") == .words(["select", "move", "hide", "show", "reset"]))
        #expect(h.ws.completions(for: "copy ") == .words(["row", "selection", "cell", "column"]))
        #expect(h.ws.completions(for: "copy row --format ") == .words(["tsv", "csv", "json"]))
        #expect(h.ws.completions(for: "copy row ") == .words(["--format"]))
        #expect(h.ws.completions(for: "tab select p") == .words(["people", "procs"]))
        #expect(h.ws.completions(for: "tab move people to section ") == .words(["data", "sys"]))
        #expect(h.ws.completions(for: "export ") == .path)
        #expect(h.ws.completions(for: "sort ") == .words(["clear"]))  // the table is not open yet
        h.run("show 1")
        #expect(h.ws.completions(for: "sort ") == .words(["id", "name", "clear"]))
        #expect(h.ws.completions(for: "sort name ") == .words(["asc", "desc"]))
        #expect(h.ws.completions(for: "copy cell ") == .words(["id", "name", "--format"]))
        #expect(h.ws.completions(for: "action ") == .words(["delete", "touch"]))
    }
}

@Suite struct CursorTests {
    @Test func cursorMovesWithinTheViewThenScrolls() {
        var h = Harness(count: 100)
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        h.run("page first")
        for _ in 0..<9 { h.feed(.cursor(delta: 1)) }
        #expect(h.ws.tabs["people"]!.table!.view.cursor == 9)
        #expect(h.ws.tabs["people"]!.table!.view.scrollOffset == 0)
        h.feed(.cursor(delta: 1))
        #expect(h.ws.tabs["people"]!.table!.view.scrollOffset == 1)
        h.feed(.cursor(delta: -5))
        #expect(h.ws.tabs["people"]!.table!.view.scrollOffset == 1)
        h.feed(.cursor(delta: 500))
        #expect(h.ws.tabs["people"]!.table!.view.cursor == 99)
        #expect(h.ws.tabs["people"]!.table!.view.scrollOffset == 90)
        // Keys do not write the store between the key and its frame: the screen asks for the
        // save when keys pause.
        let saved = { (h: Harness) in h.effects.filter { if case .saveView(_, _, let v) = $0 { v.cursor == 99 } else { false } }.count }
        #expect(saved(h) == 0 && h.ws.hasUnsavedViews)
        h.feed(.saveViews)
        #expect(saved(h) == 1 && !h.ws.hasUnsavedViews)
        h.feed(.saveViews)
        #expect(saved(h) == 1)  // nothing moved since
    }

    @Test func pageEventsMoveLikePageCommandsAndSaveLater() {
        var h = Harness(count: 100)
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        h.run("page first")
        h.feed(.page(.next))
        #expect(h.ws.tabs["people"]!.table!.view.cursor == 10)
        #expect(h.ws.tabs["people"]!.table!.view.scrollOffset == 10)
        h.feed(.page(.last))
        #expect(h.ws.tabs["people"]!.table!.view.cursor == 99)
        #expect(h.ws.tabs["people"]!.table!.view.scrollOffset == 90)
        #expect(h.ws.hasUnsavedViews)
        h.run("goto 5")  // a command saves at once, moved views included
        #expect(!h.ws.hasUnsavedViews)
    }
}

extension CompletionTests {
    @Test func completesWhereFreqPlotAndSQL() {
        var h = Harness(count: 10)
        h.plugins["people"]!.sqlNames = ["people", "orders", "order_lines"]
        h.run("show 1")
        #expect(h.ws.completions(for: "where ") == .words(["id", "name", "clear"]))
        #expect(h.ws.completions(for: "where na") == .words(["name"]))
        #expect(h.ws.completions(for: "where id ") == .words(["=", "!=", "<", "<=", ">", ">=", "between", "in", "is"]))
        #expect(h.ws.completions(for: "where id >= 3 ") == .words(["and"]))
        #expect(h.ws.completions(for: "where id >= 3 and ") == .words(["id", "name"]))
        #expect(h.ws.completions(for: "where id between 1 ") == .words(["and"]))
        #expect(h.ws.completions(for: "where id between 1 and 4 ") == .words(["and"]))
        #expect(h.ws.completions(for: "where name is ") == .words(["null", "not"]))
        #expect(h.ws.completions(for: "where name is not ") == .words(["null"]))
        #expect(h.ws.completions(for: "where id in (1, ") == .words([]))
        #expect(h.ws.completions(for: "where id in (1, 2) ") == .words(["and"]))
        #expect(h.ws.completions(for: "where id = ") == .words([]))  // a value is the user's
        #expect(h.ws.completions(for: "freq ") == .words(["id", "name", "--bins"]))
        #expect(h.ws.completions(for: "freq name ") == .words(["id", "--bins"]))
        #expect(h.ws.completions(for: "freq id --bins ") == .words([]))
        #expect(h.ws.completions(for: "plot ") == .words(["id"]))  // numbers and dates only
        // After `sql`: the plugin's table names (every level of the tab), the columns, keywords.
        #expect(h.ws.completions(for: "sql ") == .words(["people", "orders", "order_lines", "id", "name"]))
        #expect(h.ws.completions(for: "sql select id,na") == .words(["name"]))
        #expect(h.ws.completions(for: "sql select count(i") == .words(["id", "is"]))
        #expect(h.ws.completions(for: "sql SELECT * FROM ord") == .words(["orders", "order_lines", "order"]))
        #expect(h.ws.completions(for: "sql SELECT * FROM orders WHERE name = 'x' GR") == .words(["GROUP"]))
        #expect(h.ws.completions(for: "sql SELECT * FROM orders WHERE name = 'x' gr") == .words(["group"]))
    }

    /// Completion ignores case (the line editor then writes the word as it is spelled).
    @Test func completesInAnyCase() {
        var h = Harness(count: 10)
        h.plugins["people"]!.sqlNames = ["People"]
        h.run("show 1")
        #expect(h.ws.completions(for: "SO") == .words(["sort"]))
        #expect(h.ws.completions(for: "sort NA") == .words(["name"]))
        #expect(h.ws.completions(for: "where Na") == .words(["name"]))
        #expect(h.ws.completions(for: "sql select * from peo") == .words(["People"]))
    }
}
