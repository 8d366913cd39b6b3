import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Section header and footer rows, the section index, and the whole-table find on screen.
@Suite struct SectionScreenTests {
    /// A folder: 3 folders then 4 files, in two sections with footers.
    static func folder(counts: Bool = true) -> FakeTable {
        let names = ["docs", "src", "tests", "a.txt", "b.md", "c.swift", "d.json"]
        return FakeTable(columns: [ColumnSpec(id: "name", title: "Name", width: .fixed(10)),
                                   ColumnSpec(id: "size", title: "Size", type: .integer, width: .fixed(6), alignment: .right)],
                         total: 7, row: { i in
                             Row(id: names[i], cells: [.string(names[i]), i < 3 ? .null : .int(Int64(100 * i))],
                                 section: i < 3 ? "dirs" : "files")
                         },
                         sections: [SectionSpec(id: "dirs", title: "Folders", footer: "3 folders", count: counts ? 3 : nil),
                                    SectionSpec(id: "files", title: "Files", footer: "4 files, 1.6 KB", count: counts ? 4 : nil)])
    }

    func scene(_ width: Int, _ height: Int, counts: Bool = true) -> Scene {
        var s = Scene(tables: ["people": Self.folder(counts: counts)])
        s.resize(width, height)
        s.run("show")
        return s
    }

    @Test func headersBeforeAndFootersAfterEachSection() {
        let s = scene(40, 14)
        #expect(s.failures.isEmpty)
        #expect(s.screen(40, 14) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name         Size",
            "  Folders ──────────────────────────────",
            "  docs",
            "  src",
            "  tests",
            "   3 folders",
            "  Files ────────────────────────────────",
            "  a.txt         300",
            "  b.md          400",
            "  c.swift       500",
            "  d.json        600",
            "   4 files, 1.6 KB",
            "row 1 of 7                        ? help",
        ])
        // The cursor is on the first data row, never on a header; headers are styled apart.
        let frame = s.frame(40, 14)
        #expect(frame[0, 3].style.reverse && !frame[0, 2].style.reverse)
        #expect(frame[2, 2].style == Palette.tableSection)
        #expect(frame[3, 6].style == Palette.tableFooter)
    }

    @Test func theCursorStaysInViewPastSectionRows() {
        var s = scene(40, 7)  // 4 body lines
        s.feed(.cursor(delta: 4))  // b.md, the 5th data row
        #expect(s.screen(40, 7) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name         Size",
            "  Files ────────────────────────────────",
            "  a.txt         300",
            "  b.md          400",
            "  c.swift       500",
            "row 5 of 7                        ? help",
        ])
        // Folders' rows and footer scrolled off so that the cursor's row (b.md) shows.
        #expect(s.frame(40, 7)[0, 4].style.reverse)
    }

    @Test func jumpAndTheSectionIndexPrompt() {
        var s = scene(40, 8)
        s.run("jump fi")
        #expect(s.outputs.last == "Files: row 4 of 7")
        let screen = s.screen(40, 8, ui: UIState(mode: .sectionIndex("f")))
        #expect(screen[2...6] == ["  tests", "   3 folders", "  Files ────────────────────────────────",
                                  "  a.txt         300", "  b.md          400"])
        #expect(s.frame(40, 8)[0, 5].style.reverse)  // a.txt, the section's first row
        #expect(screen.last == "section: f▏ Folders · Files")
        #expect(s.screen(40, 8, ui: UIState(mode: .sectionIndex("fi"))).last == "section: fi▏ Files")
        #expect(s.screen(40, 8, ui: UIState(mode: .sectionIndex("x"))).last == #"section: x▏ no section starts with "x""#)
    }

    @Test func withoutCountsHeadersComeFromLoadedRows() {
        let s = scene(40, 14, counts: false)
        #expect(s.screen(40, 14)[2] == "  Folders ──────────────────────────────")
        #expect(s.screen(40, 14)[7] == "  Files ────────────────────────────────")
    }

    @Test func findShowsProgressThenTheRowFound() {
        var table = FakeTable.people()
        table.hold = { $0 >= 5000 }
        var s = Scene(tables: ["people": table])
        s.resize(90, 5)
        s.run("show")
        s.feed(.find(text: "name5000", backward: false))
        #expect(s.screen(90, 5, ui: UIState(find: "name5000")).last
                == #"row 1 of 1,000,000 · finding "name5000"… 4,999 of 1,000,000 rows (Esc stops)"#)
        s.tables["people"]!.hold = { _ in false }
        s.feed(.find(text: "name5000", backward: false))
        #expect(s.ws.find?.phase == .found(row: 5000, wrapped: false))
        let screen = s.screen(90, 5, ui: UIState(find: "name5000"))
        #expect(screen[2] == "  name5000                20 done                            Lyon")
        #expect(screen.last == "row 5,001 of 1,000,000 · /name5000                                                  ? help")
        s.feed(.cancelFind)  // nothing going on: the outcome stays
        #expect(s.ws.find?.phase == .found(row: 5000, wrapped: false))
    }

    @Test func helpListsTheNewKeys() {
        let entries = KeyMap.standard.helpEntries.map(\.keys)
        #expect(entries.contains("n") && entries.contains("N") && entries.contains("i"))
    }
}

/// The last section's footer shows at the end of a table longer than the screen (issue 27),
/// with or without the sections' counts, over many pages.
@Suite struct LastSectionFooterTests {
    static func long(counts: Bool) -> FakeTable {
        FakeTable(columns: [ColumnSpec(id: "name", title: "Name", width: .fixed(10))], total: 500, row: { i in
            Row(id: "r\(i)", cells: [.string("row \(i)")], section: i < 250 ? "a" : "b")
        }, sections: [SectionSpec(id: "a", title: "First", footer: "250 first", count: counts ? 250 : nil),
                      SectionSpec(id: "b", title: "Last", footer: "250 last", count: counts ? 250 : nil)])
    }

    @Test(arguments: [true, false])
    func theEndShowsTheLastFooter(counts: Bool) {
        for table in [SectionScreenTests.folder(counts: counts), Self.long(counts: counts)] {
            var s = ScreenScene(Scene(tables: ["people": table]), width: 40, height: 7)
            s.press(.char("G"))
            let footer = table.total == 7 ? "   4 files, 1.6 KB" : "   250 last"
            #expect(s.lines.contains(footer), "\(s.lines)")
        }
    }
}
