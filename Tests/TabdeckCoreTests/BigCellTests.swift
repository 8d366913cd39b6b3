import Testing
import TabdeckCore
import TabdeckProtocol

/// Issue 23 point 6 and part of 7: short pages that are not the end (`more`), cut cells and
/// their whole values (`cut`, `cell`), errors that belong to their request, and the view kept
/// inside a table that shrank.
@Suite struct BigCellTests {
    func screen(_ configure: (inout FakePlugin) -> Void) -> Harness {
        var h = Harness(count: 1000)
        configure(&h.plugins["people"]!)
        h.feed(.viewport(rows: 20))
        h.feed(.refresh)
        return h
    }

    func table(_ h: Harness) -> TableState { h.ws.tabs["people"]!.table! }

    @Test func aShortPageWithMoreIsCompletedNotTakenForTheEnd() {
        // The count unknown: without `more`, 30 rows for a limit of 100 would end the table at 30.
        let h = screen { $0.totalUnknown = true; $0.maxRowsPerReply = 30 }
        let t = table(h)
        #expect(t.total == nil, "\(t.total.map(String.init) ?? "nil")")
        #expect(t.cache.row(at: 99)?.id == "99")
        #expect(t.cache.row(at: 199)?.id == "199", "the read-ahead page is whole too")
        let asked = h.sends(Method.rows).map { ($0.2["offset"]!.intValue!, $0.2["limit"]!.intValue!) }
        #expect(asked.prefix(4).map(\.0) == [0, 100, 30, 130], "\(asked)")
        #expect(asked.contains { $0 == (90, 10) }, "the rest of a page is asked from the row after its part")
    }

    @Test func exportReadsShortPagesToTheEndAndWritesCutCellsWhole() {
        var h = Harness(count: 2500)
        h.plugins["people"]!.maxRowsPerReply = 300
        h.plugins["people"]!.cells = true
        h.plugins["people"]!.bigNames = [5: 5_242_880, 2400: 70_001]
        let out = h.run("export /tmp/x.csv")
        #expect(out?.text == "exported 2500 rows to /tmp/x.csv", "\(h.lastFailure ?? "")")
        var rows: [[JSONValue]] = []
        for case .exportRows(let r) in h.effects { rows += r }
        #expect(rows.count == 2500)
        #expect(rows.map { $0[0] } == (0..<2500).map { .int(Int64($0)) }, "every row once, in order")
        #expect(rows[5][1] == .string(FakePlugin.whole(5_242_880)), "the 5 MB value written whole")
        #expect(rows[2400][1] == .string(FakePlugin.whole(70_001)))
        let parts = h.sends(Method.cell).map { $0.2["offset"]!.intValue! }
        #expect(parts == [0, 1_048_576, 2_097_152, 3_145_728, 4_194_304, 0], "\(parts)")
    }

    @Test func exportRefusesACutCellThePluginCannotSendWhole() {
        var h = Harness(count: 300)
        h.plugins["people"]!.bigNames = [7: 100_000]  // no cells capability
        #expect(h.run("export /tmp/x.csv") == nil)
        #expect(h.lastFailure?.contains("row 7, column name") == true, "\(h.lastFailure ?? "nil")")
        #expect(h.lastFailure?.contains("100,000 bytes") == true)
    }

    @Test func copyCellFetchesTheWholeValueUpToTheCopyLimit() {
        var h = screen { $0.cells = true; $0.bigNames = [3: 600_001, 4: 2_000_000] }
        h.run("goto 4")
        #expect(h.run("copy cell name")?.text == "copied 1 cell (name), 600,001 bytes", "\(h.lastFailure ?? "")")
        var copied: [String] = []
        for case .clipboard(let text) in h.effects { copied.append(text) }
        #expect(copied.last == FakePlugin.whole(600_001))
        h.run("goto 5")
        #expect(h.run("copy cell name") == nil)
        #expect(h.lastFailure?.contains("2,000,000 bytes") == true && h.lastFailure?.contains("export") == true, "\(h.lastFailure ?? "nil")")
        #expect(h.run("copy row") == nil, "a row copy never takes the cut part for the value")
        #expect(h.lastFailure?.contains("copy cell name") == true, "\(h.lastFailure ?? "nil")")
    }

    @Test func aCutCellIsShownWithItsWholeSize() {
        let h = screen { $0.bigNames = [2: 5_242_880] }
        let t = table(h)
        let row = t.cache.row(at: 2)!
        #expect(row.cut == ["name": 5_242_880])
        let text = CellText.of(row, 1, in: ColumnSpec(id: "name"))
        #expect(text.hasPrefix("[cut: 5,242,880 bytes] éé"))
        #expect(CellText.of(t.cache.row(at: 1)!, 1, in: ColumnSpec(id: "name")) == FakePlugin(count: 1000).name(1))
    }

    @Test func theDetailViewFetchesTheCursorRowsWholeValues() {
        var h = screen { $0.cells = true; $0.bigNames = [0: 3_000_000, 1: 20_000_000] }
        h.feed(.wholeCells)
        var t = table(h)
        #expect(t.wholeRow == "0")
        #expect(t.wholeValues["name"] == FakePlugin.whole(3_000_000))
        #expect(h.sends(Method.cell).map { $0.2["offset"]!.intValue! } == [0, 1_048_576, 2_097_152])
        h.feed(.wholeCells)
        #expect(h.sends(Method.cell).count == 3, "fetched once")
        h.feed(.cursor(delta: 1))
        h.feed(.wholeCells)
        t = table(h)
        #expect(t.wholeRow == "1" && t.wholeValues.isEmpty)
        #expect(t.wholeErrors["name"]?.contains("20,000,000 bytes") == true, "over 16 MiB: refused, naming the size")
        #expect(h.sends(Method.cell).count == 3)
    }

    @Test func aFailedReadAheadPageNeitherShowsNorBlocksTheRowsInView() {
        var h = screen { $0.failRowsFrom = 100 }
        var tab = h.ws.tabs["people"]!
        #expect(tab.table!.cache.row(at: 19) != nil, "the rows in view came")
        #expect(tab.problem == nil, "a read-ahead page's failure is not the view's: \(tab.problem ?? "")")
        // Scrolling into the failing rows shows their own error, naming the rows asked.
        h.run("goto 150")
        tab = h.ws.tabs["people"]!
        #expect(tab.problem?.hasPrefix("rows 101–200: ") == true, "\(tab.problem ?? "nil")")
        #expect(tab.problem?.contains("rows 101–200 asked") == true)
        // Back at the top: that failure is not shown against rows it does not concern.
        h.run("goto 1")
        #expect(h.ws.tabs["people"]!.problem == nil, "\(h.ws.tabs["people"]!.problem ?? "")")
        #expect(h.run("show 3")?.json["rows"]?.arrayValue?.count == 3)
    }

    @Test func anErrorClearsWhenTheSameRowsArriveLater() {
        var h = screen { $0.failRowsFrom = 0 }
        #expect(h.ws.tabs["people"]!.problem?.hasPrefix("rows 1–100: ") == true)
        h.plugins["people"]!.failRowsFrom = nil
        h.now += 1
        h.feed(.wake)
        h.feed(.refresh)
        #expect(h.ws.tabs["people"]!.problem == nil, "\(h.ws.tabs["people"]!.problem ?? "")")
        #expect(table(h).pageFailures[0] == nil, "the failing read-ahead page is asked again once it is needed")
    }

    @Test func theViewIsClampedWhenTheTableShrinks() {
        var h = screen { _ in }
        h.run("goto 900")
        #expect(table(h).view.cursor == 899)
        h.plugins["people"]!.count = 50
        h.notify("people", Method.invalidate, ["table": "root", "total": 50])
        var t = table(h)
        #expect(t.view.cursor == 49)
        #expect(t.view.scrollOffset == 30, "the last screen, no blank rows past the end")
        // A page whose total says the table is smaller now (re-created smaller) does the same.
        h.plugins["people"]!.count = 10
        h.run("refresh")
        t = table(h)
        #expect(t.total == 10)
        #expect(t.view.cursor == 9 && t.view.scrollOffset == 0, "cursor \(t.view.cursor), scroll \(t.view.scrollOffset)")
    }
}
