import Testing
import TabdeckCore
import TabdeckProtocol

/// A table whose description says `"rowIds": "unstable"` (PROTOCOL.md 10.1): no selection, no
/// row actions, no `copy selection`; what works by position keeps working; the cursor keeps its
/// offset rather than follow an id that may name another row now.
@Suite struct UnstableRowIDTests {
    let refused = #""People" has no stable row ids (a view without a key): no selection or row actions"#

    func harness(count: Int = 100, locates: Bool = false, views: [TableViewKey: TableViewState] = [:]) -> Harness {
        var h = Harness(count: count, views: views)
        h.plugins["people"]!.unstableIDs = true
        h.plugins["people"]!.locates = locates
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        return h
    }

    func table(_ h: Harness) -> TableState { h.ws.tabs["people"]!.table! }

    @Test func selectionRowActionsAndCopySelectionAreRefusedWithOneMessage() {
        var h = harness()
        for line in ["select 3", "unselect 3", "select all", "copy selection", "action touch", "action delete --yes"] {
            #expect(h.run(line) == nil, "\(line)")
            #expect(h.lastFailure == refused, "\(line)")
        }
        #expect(table(h).view.selection.isEmpty)
        #expect(h.sends(Method.action).isEmpty)
        #expect(h.run("select none") != nil, "clearing a selection harms nothing")
    }

    @Test func whatWorksByPositionKeepsWorking() {
        var h = harness()
        #expect(h.run("goto 5")?.text == "row 5 of 100")
        #expect(h.run("copy row")?.text.hasPrefix("copied") == true)
        #expect(h.run("copy cell name")?.text.hasPrefix("copied") == true)
        #expect(h.run("show 3")?.json["rows"]?.arrayValue?.count == 3)
        #expect(h.run("find name7") != nil)
        #expect(h.run("export out.csv") != nil)
        #expect(h.failures.isEmpty)
    }

    @Test func aStoredSelectionIsDroppedWhenTheTableOpens() {
        var view = TableViewState()
        view.selection = ["1", "2"]
        let h = harness(views: [TableViewKey(tab: "people", table: ""): view])
        #expect(table(h).view.selection.isEmpty)
    }

    @Test func theCursorKeepsItsOffsetAcrossASortAndAsksNoLocate() {
        var h = harness(count: 50, locates: true)
        h.run("goto 10")
        h.run("sort name")
        h.feed(.refresh)
        #expect(table(h).view.cursor == 9, "the id of row 9 may name another row in the new order")
        #expect(h.sends(Method.locate).isEmpty)
    }

    @Test func theCursorKeepsItsOffsetAcrossARestart() {
        var h = harness(count: 500, locates: true)
        h.run("goto 50")
        h.plugins["people"]!.idOffset = -150
        h.run("restart")
        h.feed(.refresh)
        #expect(table(h).view.cursor == 49)
        #expect(h.sends(Method.locate).isEmpty)
    }
}
