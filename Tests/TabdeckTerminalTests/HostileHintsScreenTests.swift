import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Width hints and cells no sane plugin sends still draw a screen (a trap would be a host crash).
@Suite struct HostileHintsScreenTests {
    @Test(arguments: [
        ColumnWidth.fixed(Int.max), .fixed(Int.min), .fixed(0), .fixed(-3),
        .flexible(min: Int.max, ideal: Int.max, max: Int.max), .flexible(min: -5, ideal: Int.min, max: -1),
        .flexible(min: 50, ideal: 10, max: 2), .flexible(min: nil, ideal: Int.max, max: nil),
    ])
    func absurdWidthHintsStillDraw(width: ColumnWidth) {
        let table = FakeTable(columns: [
            ColumnSpec(id: "a", title: String(repeating: "A", count: 500), width: width),
            ColumnSpec(id: "b", title: "B", type: .decimal, width: width, decimals: 15),
            ColumnSpec(id: "c", title: "", width: width),
        ], total: 3, row: { i in
            Row(id: "r\(i)", cells: [.string(String(repeating: "界", count: 1000)), .double(1e300), .string("\u{1b}[31mred")])
        })
        var s = Scene(tables: ["people": table])
        for (w, h) in [(120, 40), (30, 6), (1, 1), (5, 3)] {
            s.resize(w, h)
            s.run("show")
            let lines = s.screen(w, h)
            #expect(lines.count == h)
            #expect(!lines.joined().contains("\u{1b}"))
            _ = s.screen(w, h, ui: UIState(mode: .detail(scroll: 0)))
        }
        s.run("column width a 100000")
        _ = s.screen(80, 10)
    }

    /// Sections whose counts do not add up to the total, empty or unknown sections, rows that
    /// name sections out of order.
    @Test(arguments: [[5, 900], [0, 0], [3000, 1], [nil, 2]] as [[Int?]])
    func sectionsThatDoNotAddUp(counts: [Int?]) {
        var table = FakeTable.people(count: 40)
        table.sections = [SectionSpec(id: "a", title: "A", footer: "\u{1b}[2Jfoot", count: counts[0]),
                          SectionSpec(id: "b", title: "", footer: nil, count: counts[1])]
        let row = table.row
        table.row = { i in
            var r = row(i)
            r.section = ["a", "b", "zz", "a"][i % 4]
            return r
        }
        var s = Scene(tables: ["people": table])
        for (w, h) in [(120, 40), (40, 8), (2, 2)] {
            s.resize(w, h)
            s.run("show")
            s.run("page last")
            s.run("jump b")
            s.feed(.cursor(delta: 7))
            let lines = s.screen(w, h)
            #expect(lines.count == h)
            #expect(!lines.joined().contains("\u{1b}"))
        }
    }
}
