import Testing
import TabdeckCore
import TabdeckProtocol

/// `describe` (key I) and `sql QUERY`: the plugin's tables of statistics and of a query's
/// result, one level down.
@Suite struct DescribeAndQueryTests {
    func harness() -> Harness {
        var h = Harness(count: 100)
        for id in h.plugins.keys {
            h.plugins[id]!.describes = true; h.plugins[id]!.queries = true; h.plugins[id]!.aggregates = true
        }
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        return h
    }

    @Test func describeShowsOneRowPerColumnWithSparklinesAndEnterOpensTheFrequencyView() throws {
        var h = harness()
        #expect(h.run("describe")?.text == "People > describe")
        let t = h.ws.tabs["people"]!.table!
        #expect(t.description.columns.first { $0.id == "distinct" }?.title == "Distinct ≈", "an estimate says so")
        let outOut = h.run("show 2")
        let out = try #require(outOut)
        let cells = out.json["rows"]?.arrayValue?.first?["cells"]
        #expect(cells?["histogram"] == "▁▂▄██▄▂ ")
        #expect(Workspace.sparkline([1, 2, 4, 8, 8, 4, 2, 0]) == "▁▂▄██▄▂ ")
        #expect(Workspace.sparkline([0, 0]) == "  ")
        // Enter on the second row (name): its frequency view, counting the table below.
        #expect(h.run("goto 2") != nil)
        #expect(h.run("open")?.text == "People > describe > freq name")
        #expect(h.plugins["people"]!.aggregateAsked?.table == "root")
        #expect(h.plugins["people"]!.aggregateAsked?.group == [AggregateGroup("name")])
    }

    @Test func sqlOpensTheResultAndShowsTheEnginesError() {
        var h = harness()
        #expect(h.run("sql SELECT 'it''s' # not a comment") != nil)
        #expect(h.plugins["people"]!.queryWords == ["SELECT", "'it''s'", "#", "not", "a", "comment"], "the text goes as typed")
        #expect(h.ws.tabs["people"]!.table!.total == 6)
        #expect(h.run("back") != nil)
        #expect(h.run("sql SELECT nope FROM root") == nil)
        #expect(h.lastFailure == "the plugin says: Binder Error: no column nope (position 8)")
        #expect(h.run("sql") == nil)
        #expect(h.lastFailure == "usage: sql QUERY")
    }

    @Test func pluginsWithoutTheCapabilitiesAreRefused() {
        var h = Harness(count: 10)
        h.run("show 1")
        #expect(h.run("describe") == nil)
        #expect(h.lastFailure == "People cannot describe its columns (its plugin does not compute statistics)")
        #expect(h.run("sql SELECT 1") == nil)
        #expect(h.lastFailure == "People cannot run SQL (its plugin does not take queries)")
    }

    @Test func theCommandsReadBackAsThemselves() throws {
        for line in ["describe", "sql SELECT \"a b\", 'c' FROM t WHERE x = '#'"] {
            let command = try #require(try CommandParser.parse(line))
            #expect(try CommandParser.parse(command.text) == command)
        }
        #expect(try CommandParser.parse("  sql   SELECT 1 ") == .sql("SELECT 1 "))
        #expect(throws: CommandError.self) { try CommandParser.parse("sqlite") }  // an unknown command, not sql
    }
}
