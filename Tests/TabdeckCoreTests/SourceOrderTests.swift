import Testing
import TabdeckCore
import TabdeckProtocol

/// A column in its source's own order (`order: source`, PROTOCOL.md 10.2) that the plugin does
/// not sort by (the spool marks it so for a plugin it sorts for): `sort` refuses it and says why.
@Suite struct SourceOrderTests {
    @Test func sortingByASourceOrderColumnNobodySortsIsRefusedNamingIt() {
        var h = Harness(count: 20)
        h.plugins["people"]!.nameColumn = ColumnSpec(id: "name", sortable: false, order: .source)
        h.feed(.viewport(rows: 10))
        #expect(h.run("sort name") == nil)
        let failure = h.lastFailure ?? ""
        #expect(failure.contains("column name is not sortable") && failure.contains("\"order\": \"source\""), "\(failure)")
        #expect(failure.contains("plugin people"), "\(failure)")
        // Another column not sortable says no more than that.
        h.plugins["orders"]!.nameColumn = ColumnSpec(id: "name", sortable: false)
        h.run("tab select orders")
        #expect(h.run("sort name") == nil)
        #expect(h.lastFailure?.hasSuffix("column name is not sortable") == true, "\(h.lastFailure ?? "")")
    }

    @Test func aPluginThatSortsASourceOrderColumnIsAskedAsUsual() {
        var h = Harness(count: 20)
        h.plugins["people"]!.nameColumn = ColumnSpec(id: "name", order: .source)
        h.feed(.viewport(rows: 10))
        #expect(h.run("sort name desc") != nil)
        #expect(h.ws.tabs["people"]!.table!.view.sort == [SortKey("name", .descending)])
    }
}
