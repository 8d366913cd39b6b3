import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// The table: header, sort indicators, widths, scrolling, placeholders, compact layout, text.
@Suite struct TableScreenTests {
    /// People with a wide first column (min 24), on a tab bar screen.
    func wide(_ width: Int, _ height: Int) -> Scene {
        var s = Scene(tables: ["people": .people(nameWidth: .flexible(min: 24, ideal: nil, max: nil))])
        s.resize(width, height)
        s.run("show")
        return s
    }

    @Test func sortIndicatorsWithTwoKeys() {
        var s = Scene(tables: ["people": .people()])
        s.resize(60, 5)
        s.run("sort name")
        s.run("sort age desc")
        s.run("show")  // the new order's rows
        #expect(s.failures.isEmpty)
        #expect(s.screen(60, 5) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name ↑2              Age↓1 Status           City",
            "  name0                   20 todo             Lyon",
            "  name1                   21 doing            Oslo",
            "row 1 of 1,000,000 · sort: Age ↓, Name ↑              ? help",
        ])
        s.run("sort clear")
        s.run("sort status")
        #expect(s.screen(60, 5)[1] == "  Name                   Age Status ↑          City")
    }

    @Test func rowPositionWithThousandsSeparators() {
        var s = Scene(tables: ["people": .people()])
        s.resize(60, 5)
        s.run("goto 1204")
        #expect(s.screen(60, 5) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status           City",
            "  name1203                23 todo             Lima",
            "  name1204                24 doing            Lyon",
            "row 1,204 of 1,000,000                                ? help",
        ])
        // The cursor row is the one reversed.
        let frame = s.frame(60, 5)
        #expect(frame[0, 2].style.reverse && frame[59, 2].style.reverse)
        #expect(!frame[0, 3].style.reverse)
    }

    @Test func theLastRowKeyWaitsForTheCountAndSaysSo() {
        var people = FakeTable.people()
        people.totalUnknown = true
        var s = Scene(tables: ["people": people])
        s.resize(60, 5)
        s.run("show")
        #expect(s.screen(60, 5)[4] == "row 1 of ?                                            ? help")
        s.feed(.page(.last))
        #expect(s.screen(60, 5)[4] == "row 1 of ? (to the end once counted)                  ? help")
        s.notify("people", Method.invalidate, ["table": "root", "total": 1_000_000])
        #expect(s.screen(60, 5) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status           City",
            "  name999998              68 done             Kyoto",
            "  name999999              69 todo             Lima",
            "row 1,000,000 of 1,000,000                            ? help",
        ])
    }

    @Test func compactLayoutAt30Columns() {
        var s = wide(30, 6)
        s.run("sort name")
        s.run("show")
        // Only Name fits: it is shown alone, and the cursor row's other values on a line under it.
        #expect(s.screen(30, 6) == [
            " ◆ People  $ Orders          >",
            "  Name ↑                     >",
            "  name0",
            "  Age: 20 · Status: todo · Ci…",
            "  name1",
            "row 1 of 1,000,000 · sort: Na…",
        ])
    }

    @Test func horizontalScrollKeepsTheFirstColumn() {
        var s = wide(40, 6)
        s.run("select p1")
        // City does not fit: the cursor row's City is on the detail line under it.
        #expect(s.screen(40, 6) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name                       Age Status>",
            "  name0                       20 todo",
            "  City: Lyon",
            "* name1                       21 doing",
            "row 1 of 1,000,000 · 1 selected   ? help",
        ])
        // The column cursor on City scrolls Age out (to the detail line); Name stays, `<` marks the cut.
        #expect(s.screen(40, 6, ui: UIState(columnCursor: 3)) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name                     <Status  City",
            "  name0                     todo    Lyon",
            "  Age: 20",
            "* name1                     doing   Oslo",
            "row 1 of 1,000,000 · 1 selected   ? help",
        ])
        let layout = WorkspaceRenderer.columnLayout(workspace: s.ws, size: (40, 6), ui: UIState(columnCursor: 3))
        #expect(layout?.scroll == 2)
        #expect(layout?.cutLeft == true && layout?.cutRight == false)
        // The header of the column under the cursor is reversed.
        let frame = s.frame(40, 6, ui: UIState(columnCursor: 3))
        #expect(frame[36, 1].style.reverse && !frame[28, 1].style.reverse)
    }

    @Test func placeholdersForRowsNotFetched() {
        var table = FakeTable.people()
        table.hold = { $0 >= 100 }  // pages from row 100 on never arrive
        var s = Scene(tables: ["people": table])
        s.resize(60, 10)
        s.run("goto 98")
        #expect(s.screen(60, 10) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status           City",
            "  name97                  67 doing            Oslo",
            "  name98                  68 done             Kyoto",
            "  name99                  69 todo             Lima",
            "  …",
            "  …",
            "  …",
            "  …",
            "row 98 of 1,000,000                                   ? help",
        ])
        #expect(s.frame(60, 10)[2, 6].style.dim)
    }

    /// A table with CJK text, control characters and a combining mark.
    func oddText() -> Scene {
        let table = FakeTable(columns: [
            ColumnSpec(id: "name", title: "名前"), ColumnSpec(id: "n", title: "N", type: .integer, width: .fixed(3)),
            ColumnSpec(id: "note", title: "Note"),
        ], total: 3, row: { i in
            Row(id: "\(i)", cells: [.string(["山田太郎", "Ann", "李"][i]), .int(Int64(i)),
                                    .string(["\u{1b}[31mred", "ok\u{7}", "e\u{301}t\u{e9}"][i])])
        })
        var s = Scene(tables: ["people": table])
        s.resize(40, 6)
        s.run("show")
        return s
    }

    @Test func sanitizedText() {
        let s = oddText()
        let lines = s.screen(40, 6)
        #expect(lines[2].hasSuffix(" \\e[31mred"))
        #expect(lines[3].hasSuffix(" ok\\x07"))
        let frame = s.frame(40, 6)
        #expect(!frame.cells.contains { $0.symbol.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) } })
    }

    @Test func wideCharactersKeepColumnsAligned() {
        let s = oddText()
        #expect(s.screen(40, 6) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  名前                N Note",
            "  山田太郎            0 \\e[31mred",
            "  Ann                 1 ok\\x07",
            "  李                  2 e\u{301}té",
            "row 1 of 3                        ? help",
        ])
        let frame = s.frame(40, 6)
        // The N column's digits are in the same cell on every row, whatever the names' widths.
        #expect(frame[22, 2].symbol == "0" && frame[22, 3].symbol == "1" && frame[22, 4].symbol == "2")
        #expect(frame[2, 2].symbol == "山" && frame[3, 2].isContinuation)
        #expect(frame[24, 4].symbol == "e\u{301}")
    }

    @Test func breadcrumbWhenDrilledDown() {
        let files = FakeTable(columns: [ColumnSpec(id: "name", title: "Name"), ColumnSpec(id: "size", title: "Size", type: .integer)],
                              total: 3, row: { i in
            Row(id: ["src", "Sources", "README"][i], cells: [.string(["src", "Sources", "README"][i]), .int(Int64(i * 100))],
                hasChildren: i < 2)
        }, children: true)
        var s = Scene(config: config(tabs: [TabConfig(id: "files", title: "Files", command: ["p"])]), tables: ["files": files])
        s.resize(40, 7)
        s.run("show")
        s.run("open src")
        s.run("open Sources")
        s.run("show")
        #expect(s.failures.isEmpty)
        #expect(s.screen(40, 7) == [
            " Files",
            " Files > src > Sources",
            "  Name                              Size",
            " ▸src                                  0",
            " ▸Sources                            100",
            "  README                             200",
            "row 1 of 3                        ? help",
        ])
        s.run("back")
        #expect(s.screen(40, 7)[1] == " Files > src")
        s.run("back")
        #expect(s.screen(40, 7)[1] == "  Name                              Size")
    }

    @Test func failedPluginShowsItsErrorInTheTab() {
        var s = Scene(tables: ["people": .people()])
        s.feed(.plugin(tab: "people", .exited("exited with status 3")))
        #expect(s.screen(26, 5) == [
            " ◆ People !  $ Orders    >",
            " ! plugin exited with",
            " status 3",
            "",
            "! plugin exited with stat…",
        ])
        // With a table open, the error goes above it.
        var t = Scene(tables: ["people": .people()])
        t.resize(50, 6)
        t.run("show")
        t.feed(.plugin(tab: "people", .exited("was killed by signal 9")))
        #expect(t.screen(50, 6) == [
            " ◆ People !  $ Orders  ⚙ Processes  ≡ Logs",
            " ! plugin was killed by signal 9",
            "  Name                 Age Status       City",
            "  name0                 20 todo         Lyon",
            "  name1                 21 doing        Oslo",
            "! plugin was killed by signal 9 · row 1 of 1,000,…",
        ])
        #expect(WorkspaceRenderer.tableRows(workspace: t.ws, size: (50, 6)) == 2)
    }

    @Test func statusLineWithProgressStatusMessageAndFind() {
        var s = Scene(tables: ["people": .people()])
        s.resize(110, 4)
        s.run("show")
        s.run("select p0 p2")
        s.notify("people", Method.progress, ["done": 42, "total": 100, "message": "indexing"])
        s.notify("people", Method.status, ["text": "watching people.csv"])
        let ui = UIState(message: .init("2 selected"), find: "name1")
        #expect(s.screen(110, 4, ui: ui)[3]
                == "2 selected · row 1 of 1,000,000 · 2 selected · /name1 · watching people.csv · ████░░░░░░ 42% indexing")
        #expect(s.frame(110, 4, ui: ui)[27, 2].style.underline)  // "name1" found
        #expect(!s.frame(110, 4, ui: ui)[27, 1].style.underline)
        s.notify("people", Method.progress, ["done": 7, "message": "counting"])
        #expect(s.screen(110, 4)[3].hasSuffix("· counting 7"))
        s.notify("people", Method.progress, ["done": 100, "total": 100])
        #expect(s.screen(110, 4)[3] == "row 1 of 1,000,000 · 2 selected · watching people.csv                                                   ? help")
    }

    @Test func emptyTableAndLoading() {
        var s = Scene(tables: ["people": .people(count: 0)])
        #expect(s.screen(40, 4)[1] == " loading…")
        s.resize(40, 4)
        s.run("show")
        #expect(s.screen(40, 4) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "  no rows",
            "no rows                           ? help",
        ])
    }
}
