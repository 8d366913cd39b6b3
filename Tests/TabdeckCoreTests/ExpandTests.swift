import Testing
import TabdeckCore
import TabdeckProtocol

/// `expand` (key `o`): children shown in place, fetched lazily, the state saved with the view.
@Suite struct ExpandTests {
    func table(_ h: Harness) -> TableState { h.ws.tabs["people"]!.table! }

    func harness() -> Harness {
        var h = Harness(count: 30)
        h.plugins["people"]!.children = true
        h.feed(.viewport(rows: 10))
        h.feed(.refresh)
        return h
    }

    @Test func expandOpensTheChildTableAndFetchesItsFirstRows() throws {
        var h = harness()
        #expect(h.run("expand")?.text == "expanded 0")
        #expect(table(h).view.expanded == [["0"]])
        h.feed(.refresh)
        let children = h.sends(Method.children)
        #expect(children.count == 1 && children[0].2["row"] == "0" && children[0].2["table"] == "root")
        let child = try #require(table(h).outline[["0"]])
        #expect(child.total == 30 && child.cache.row(at: 0)?.id == "0")
        // Saved with the view.
        #expect(h.effects.contains { if case .saveView(_, _, let v) = $0 { v.expanded == [["0"]] } else { false } })
    }

    @Test func theCursorWalksIntoTheChildrenAndNestedRowsExpand() {
        var h = harness()
        h.run("expand")
        h.feed(.refresh)
        h.feed(.cursor(delta: 1))
        #expect(table(h).cursorPath == [0] && table(h).view.cursor == 0)
        h.run("expand")  // the child row "0" of row "0"
        h.feed(.refresh)
        #expect(table(h).view.expanded == [["0"], ["0", "0"]])
        h.feed(.cursor(delta: 1))
        #expect(table(h).cursorPath == [0, 0])
        h.feed(.cursor(delta: -1))
        h.feed(.cursor(delta: -1))
        #expect(table(h).cursorPath == [] && table(h).view.cursor == 0)
        // Up from row 1 lands on the last line of row 0's subtree.
        h.run("goto 2")
        h.feed(.cursor(delta: -1))
        #expect(table(h).view.cursor == 0 && table(h).cursorPath == [29])
    }

    @Test func collapsingClosesTheChildTablesAndBringsTheCursorUp() {
        var h = harness()
        h.run("expand")
        h.feed(.refresh)
        h.feed(.cursor(delta: 1))
        h.run("expand")
        h.feed(.refresh)
        h.feed(.cursor(delta: 1))
        h.feed(.cursor(delta: -1))
        h.feed(.cursor(delta: -1))  // back on row "0"
        #expect(h.run("expand")?.text == "collapsed 0")
        #expect(table(h).view.expanded.isEmpty && table(h).outline.isEmpty)
        let closes = h.effects.filter { if case .send(_, .notification(Method.close, _)) = $0 { true } else { false } }
        #expect(closes.count == 2)
    }

    @Test func aRowWithoutChildrenDoesNotExpand() {
        var plain = Harness(count: 5)
        plain.run("show 1")
        #expect(plain.run("expand") == nil)
        #expect(plain.lastFailure == "rows of People cannot be expanded (they have no rows under them)")
    }

    @Test func expandedRowsAreRestoredFromTheStoreAndBounded() {
        let key = TableViewKey(tab: "people", table: "")
        var h = Harness(count: 30, views: [key: TableViewState(expanded: [["3"]])])
        h.plugins["people"]!.children = true
        h.feed(.viewport(rows: 10))
        h.feed(.refresh)
        #expect(table(h).outline[["3"]]?.description != nil)
        let full = (0..<TableViewState.maxExpanded).map { ["x\($0)"] }
        var many = Harness(count: 30, views: [key: TableViewState(expanded: full)])
        many.plugins["people"]!.children = true
        many.feed(.viewport(rows: 10))
        many.feed(.refresh)
        many.run("expand 1")
        #expect(table(many).view.expanded.count == TableViewState.maxExpanded)
        #expect(table(many).view.expanded.first == ["x1"] && table(many).view.expanded.last == ["1"])
        #expect(many.run("expand nosuch") == nil)
    }

    @Test func aFailedChildrenRequestIsKeptUntilRefresh() {
        var h = harness()
        h.plugins["people"]!.failChildren = true
        h.run("expand")
        h.feed(.refresh)
        #expect(table(h).outline[["0"]]?.failure == "children of 0: the plugin says: no such row")
        h.feed(.refresh)
        #expect(h.sends(Method.children).count == 1, "not asked again in a loop")
        h.plugins["people"]!.failChildren = false
        #expect(h.run("refresh")?.text == "refreshed People: 30 rows")
        #expect(table(h).outline[["0"]]?.failure == nil && table(h).outline[["0"]]?.description != nil)
        #expect(table(h).view.expanded == [["0"]], "the row stays expanded")
    }

    @Test func invalidatingAChildTableFetchesItsRowsAgain() {
        var h = harness()
        h.run("expand")
        h.feed(.refresh)
        let before = h.sends(Method.rows).filter { $0.2["table"] == "child" }.count
        h.feed(.plugin(tab: "people", .message(.notification(method: "invalidate", params: ["table": "child"]))))
        h.feed(.refresh)
        #expect(h.sends(Method.rows).filter { $0.2["table"] == "child" }.count > before)
    }
}
