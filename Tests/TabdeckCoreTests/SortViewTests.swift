import Testing
import TabdeckCore
import TabdeckProtocol

/// Where a sort leaves the view: at the top of the new order when the cursor was on the first
/// row, on the cursor's row otherwise; and the place it ends at is saved like any move.
@Suite struct SortViewTests {
    func table(_ h: Harness) -> TableState { h.ws.tabs["people"]!.table! }
    func cursorID(_ h: Harness) -> String? { let t = table(h); return t.cache.row(at: t.view.cursor)?.id }

    func harness(locates: Bool) -> Harness {
        var h = Harness(count: 50)
        h.plugins["people"]!.locates = locates
        h.feed(.viewport(rows: 10))
        return h
    }

    /// The last view of People the core asked the store to save.
    func savedView(_ h: Harness) -> TableViewState? {
        h.effects.compactMap { effect -> TableViewState? in
            if case .saveView(let tab, _, let view) = effect, tab == "people" { return view }
            return nil
        }.last
    }

    /// Sorting while looking at the top of the table shows the top of the new order (the
    /// busiest processes, not the first row's new place), and the selection keeps its rows.
    @Test(arguments: [true, false]) func withTheCursorOnTheFirstRowTheViewStaysAtTheTop(locates: Bool) {
        var h = harness(locates: locates)
        h.feed(.refresh)
        h.run("select 0 3")
        h.run("sort name desc")
        h.feed(.refresh)
        let order = (0..<50).sorted { h.plugins["people"]!.name($0) > h.plugins["people"]!.name($1) }
        #expect(table(h).view.cursor == 0)
        #expect(table(h).view.scrollOffset == 0)
        #expect(cursorID(h) == String(order[0]))
        #expect(h.sends(Method.locate).isEmpty)
        #expect(table(h).view.selection == ["0", "3"])
    }

    /// Elsewhere the cursor keeps its row, as before.
    @Test func withTheCursorElsewhereItKeepsItsRow() {
        var h = harness(locates: true)
        h.run("goto 2")
        let id = cursorID(h)
        h.run("sort name desc")
        h.feed(.refresh)
        #expect(cursorID(h) == id)
        #expect(table(h).view.cursor != 1)
    }

    /// `g`, `S`, a column, `s`, quit, restart: the cursor is where the sort took it, so the
    /// view the sort moved is saved (with the next save of moved views, as after a key).
    @Test(arguments: [true, false]) func theViewTheSortMovedIsSaved(locates: Bool) {
        var h = harness(locates: locates)
        h.run("goto 10")
        h.run("sort name")
        h.feed(.refresh)
        h.feed(.saveViews)
        #expect(table(h).view.cursor != 9)
        #expect(cursorID(h) == "9")
        #expect(savedView(h)?.cursor == table(h).view.cursor)
        #expect(savedView(h)?.scrollOffset == table(h).view.scrollOffset)
    }
}
