import Testing
import TabdeckCore
import TabdeckProtocol

/// `freq COL` (key F): the plugin's group counts one level down, with bars; Enter on a group
/// opens the table under that group's exact conditions.
@Suite struct FrequencyTests {
    func harness(count: Int = 1000) -> Harness {
        var h = Harness(count: count)
        for id in h.plugins.keys { h.plugins[id]!.aggregates = true; h.plugins[id]!.wheres = true }
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        return h
    }

    func table(_ h: Harness) -> TableState { h.ws.tabs[h.ws.selectedTab!]!.table! }

    @Test func aNumberColumnIsBinnedUnderTheFiltersAndEnterOpensABin() throws {
        var h = harness()
        #expect(h.run("where id < 500") != nil)
        let out = h.run("freq id")
        #expect(out?.text == "People > freq id")
        let asked = try #require(h.plugins["people"]!.aggregateAsked)
        #expect(asked.group == [AggregateGroup("id", bins: 20)] && asked.where == [WhereCondition("id", .less, [500])])
        var t = table(h)
        #expect(t.derived.map { if case .frequency = $0 { true } else { false } } == true)
        // 0..<500 in bins of 25 (the smallest nice width ≥ 499 / 20): 20 bins of 25 rows.
        #expect(t.total == 20)
        let shownOut = h.run("show 3")
        let shown = try #require(shownOut)
        #expect(shown.text.split(separator: "\n").map(String.init).prefix(4) == [
            "  id  Count      %  Cumulative %",
            "  ──  ─────  ─────  ────────────  ────────────────────",
            "   0     25    5.0           5.0  ████████████████████",
            "  25     25    5.0          10.0  ████████████████████",
        ])
        // Enter on the second bin: the rows 25..<50, under the table's own where too.
        #expect(h.run("goto 2") != nil)
        #expect(h.run("open")?.text == "People > freq id > id >= 25 and id < 50")
        t = table(h)
        #expect(t.view.where == [WhereCondition("id", .less, [500]), WhereCondition("id", .greaterOrEqual, [25]), WhereCondition("id", .less, [50])])
        #expect(h.run("show 2")?.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["25", "26"])
        #expect(t.total == 25 || table(h).total == 25)
        // Back twice: the frequency view (its handle kept), then the table with its own where.
        let closesBefore = h.notifications(Method.close).count
        #expect(h.run("back")?.text == "People > freq id")
        #expect(h.notifications(Method.close).count == closesBefore, "a group's rows share the table's handle: nothing closed")
        #expect(h.run("back")?.text == "People")
        #expect(h.notifications(Method.close).last?.1["table"] == "agg")
        #expect(table(h).view.where == [WhereCondition("id", .less, [500])])
    }

    @Test func aTextColumnCountsValuesWithBarsAgainstTheLargest() throws {
        var h = harness(count: 100)
        h.plugins["people"]!.count = 100
        #expect(h.run("freq name") != nil)
        #expect(h.plugins["people"]!.aggregateAsked?.group == [AggregateGroup("name")], "no bins for text")
        #expect(Workspace.bar(3, largest: 8, width: 4) == "█▌")
        #expect(Workspace.bar(1, largest: 1000, width: 20) == "▏", "a group with rows always shows")
        #expect(Workspace.bar(0, largest: 10, width: 20) == "")
        #expect(h.run("freq name --bins 5") == nil)
        #expect(h.lastFailure == "column name is text: only numbers and dates have bins")
    }

    @Test func aPluginWithoutAggregateIsRefused() {
        var h = Harness(count: 100)
        h.run("show 1")
        #expect(h.run("freq id") == nil)
        #expect(h.lastFailure == "People cannot count groups (its plugin does not group rows)")
    }

    @Test func theCommandReadsBackAsItself() throws {
        for line in ["freq id", "freq id name --bins 7", "freq 'a b' --bins=3"] {
            let command = try #require(try CommandParser.parse(line))
            #expect(try CommandParser.parse(command.text) == command)
        }
        #expect(try CommandParser.parse("freq id --bins=3") == .freq(["id"], bins: 3))
        #expect(throws: CommandError.self) { try CommandParser.parse("freq --bins 3") }
    }
}

/// A frequency view survives a restart (counted again in the new process) and follows its
/// table's invalidations.
@Suite struct FrequencyRecoveryTests {
    @Test func aRestartCountsAgainAndKeepsTheGroupLevelOnTheTablesNewHandle() throws {
        var h = Harness(count: 1000)
        for id in h.plugins.keys { h.plugins[id]!.aggregates = true; h.plugins[id]!.wheres = true }
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        #expect(h.run("freq id --bins 4") != nil)
        #expect(h.run("open") != nil)
        #expect(h.ws.tabs["people"]!.stack.count == 3)
        let asked = h.sends(Method.aggregate).count
        h.feed(.plugin(tab: "people", .exited("exited with status 3")))
        h.now = 0.5
        h.feed(.wake)
        let stack = h.ws.tabs["people"]!.stack
        #expect(h.sends(Method.aggregate).count == asked + 1, "the frequency view is counted again")
        #expect(stack.count == 3 && h.ws.tabs["people"]!.problem == nil)
        #expect(stack[2].derived == .group(source: 0) && stack[2].description.table == stack[0].description.table)
        #expect(stack[2].view.where == [WhereCondition("id", .greaterOrEqual, [0]), WhereCondition("id", .less, [250])])
        #expect(h.run("show 1")?.json["rows"]?.arrayValue?.first?["id"] == "0")
    }

    @Test func anInvalidationOfTheTableCountsAgain() throws {
        var h = Harness(count: 100)
        for id in h.plugins.keys { h.plugins[id]!.aggregates = true }
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        #expect(h.run("freq name") != nil)
        #expect(h.ws.tabs["people"]!.table!.total == 100)
        h.plugins["people"]!.count = 50
        let asked = h.sends(Method.aggregate).count
        h.feed(.plugin(tab: "people", .message(.notification(method: Method.invalidate, params: ["table": "root"]))))
        #expect(h.sends(Method.aggregate).count == asked + 1)
        #expect(h.ws.tabs["people"]!.table!.total == 50, "the new counts replace the old")
        #expect(h.run("show 1")?.json["rows"]?.arrayValue?.count == 1)
    }
}
