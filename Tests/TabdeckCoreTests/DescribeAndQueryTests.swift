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

/// A DuckDB tab's `sql` reads the other file tabs as views (PROTOCOL.md 11.14 `sources`).
@Suite struct QuerySourcesTests {
    func fileConfig() -> WorkspaceConfig {
        WorkspaceConfig(
            file: "/w/config.json", directory: "/w", sections: [],
            tabs: [
                TabConfig(id: "people", title: "People", command: ["/p/Plugins/duckdb/tabdeck-duckdb"], args: ["path": "/d/Sales 2024.parquet"]),
                TabConfig(id: "orders", title: "Orders", command: ["/p/Plugins/csv/tabdeck-csv"], args: ["path": "data/orders.csv"]),
                TabConfig(id: "orders2", title: "Orders again", command: ["/p/Plugins/duckdb/tabdeck-duckdb"], args: ["path": "/e/orders.csv.gz"]),
                TabConfig(id: "year", title: "2024", command: ["/p/Plugins/duckdb/tabdeck-duckdb"], args: ["path": "/e/2024.jsonl"]),
                TabConfig(id: "root", title: "Root", command: ["/p/Plugins/csv/tabdeck-csv"], args: ["path": "/e/root.csv"]),
                TabConfig(id: "db", title: "DB", command: ["/p/Plugins/sqlite/tabdeck-sqlite"], args: ["path": "/e/x.sqlite"]),
                TabConfig(id: "far", title: "Far", command: ["tabdeck-duckdb"], args: ["path": "/f/far.csv"],
                          remote: RemoteConfig(destination: "h")),
                TabConfig(id: "gone", title: "Gone", command: [], args: ["path": "/e/gone.csv"], unavailable: "no such file"),
            ])
    }

    @Test func namesAreSQLSafeUniqueAndNeverRoot() {
        #expect(QuerySources.sqlName("/d/Sales 2024.csv") == "sales_2024")
        #expect(QuerySources.sqlName("/d/2024.csv") == "t_2024")
        #expect(QuerySources.sqlName("/d/Café-Menü.tar.gz") == "caf__men_")
        #expect(QuerySources.sqlName("/d/.hidden") == "t")
        let named = QuerySources.named(fileConfig())
        #expect(named.map(\.tab) == ["people", "orders", "orders2", "year", "root"], "file tabs of DuckDB and CSV, local and available")
        #expect(named.map(\.source.name) == ["sales_2024", "orders", "orders_2", "t_2024", "root_2"])
        #expect(named[1].source.path == "/w/data/orders.csv", "a relative path is the config folder's")
        #expect(named.allSatisfy { QuerySource.isSQLName($0.source.name) })
    }

    @Test func aDuckDBTabsQueryCarriesTheOtherFileTabs() throws {
        var h = Harness(count: 10, config: fileConfig())
        for id in h.plugins.keys { h.plugins[id]!.queries = true; h.plugins[id]!.sqlNames = ["root"] }
        h.run("show 1")
        #expect(h.run("sql SELECT * FROM root JOIN orders USING (id)") != nil)
        let params = try #require(h.sends(Method.query).last?.2)
        #expect(try QueryRequest(params).sources.map(\.name) == ["orders", "orders_2", "t_2024", "root_2"])
        #expect(try QueryRequest(params).sources.first?.path == "/w/data/orders.csv")
        #expect(h.run("back") != nil)
        #expect(h.run("sql") == nil)
        #expect(h.lastFailure == "usage: sql QUERY (other tabs' files: orders, orders_2, t_2024, root_2)")
        // The plugin's own names (sqlNames: root), the other tabs', then keywords.
        #expect(h.ws.completions(for: "sql SELECT * FROM ord") == .words(["orders", "orders_2", "order"]))
        #expect(h.ws.completions(for: "sql SELECT * FROM r") == .words(["root", "root_2"]))
    }

    @Test func otherPluginsGetNoSources() throws {
        var h = Harness(count: 10, config: fileConfig())
        for id in h.plugins.keys { h.plugins[id]!.queries = true }
        h.run("tab select orders")
        h.run("show 1")
        #expect(h.run("sql SELECT 1") != nil)
        let params = try #require(h.sends(Method.query).last?.2)
        #expect(params["sources"] == nil, "a CSV tab's engine reads no other files")
        #expect(h.ws.completions(for: "sql SELECT * FROM ord") == .words(["order"]), "no other tabs' names, the keyword")
    }
}
