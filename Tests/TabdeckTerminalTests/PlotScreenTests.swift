import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// `plot age`: the chart fills the view at every width, from the plugin's binned counts.
@Suite struct PlotScreenTests {
    /// Ages binned by 10 (20–70): 100, 300, 200, 50 and 350 rows.
    static func table() -> FakeTable {
        var t = FakeTable.people(count: 1000)
        let age = t.columns[1]
        let description = TableDescription(table: "agg1", columns: [age] + AggregateResult.countColumns, total: 5)
        let counts: [(Int64, Int64)] = [(60, 350), (30, 300), (40, 200), (20, 100), (50, 50)]
        t.groups = (AggregateResult(description: description, rows: 1000, largest: 350, bins: ["age": .width("10")]),
                    counts.enumerated().map { Row(id: "g\($0.offset)", cells: [.int($0.element.0), .int($0.element.1), 0.0, 0.0]) })
        return t
    }

    func plotScreen(width: Int, ascii: Bool = false) -> [String] {
        var s = ScreenScene(Scene(tables: ["people": Self.table()]), width: width, height: 10)
        s.model.ui.ascii = ascii
        s.scene.run("plot age")
        return s.lines
    }

    @Test func at40Columns() {
        #expect(plotScreen(width: 40) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            " People > plot age",
            "histogram of Age: 1,000 rows",
            "350 ┤       ⣤⣤⣤⣤⣤⣤⣤              ⣿⣿⣿⣿⣿⣿⣿",
            "    │       ⣿⣿⣿⣿⣿⣿⣿⣀⣀⣀⣀⣀⣀⣀       ⣿⣿⣿⣿⣿⣿⣿",
            "    │⣀⣀⣀⣀⣀⣀⣀⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿       ⣿⣿⣿⣿⣿⣿⣿",
            "  0 ┤⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣤⣤⣤⣤⣤⣤⣤⣿⣿⣿⣿⣿⣿⣿",
            "    └───────────────────────────────────",
            "     20                               70",
            "row 1 of 5                        ? help",
        ])
    }

    @Test func at80Columns() {
        #expect(plotScreen(width: 80) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            " People > plot age",
            "histogram of Age: 1,000 rows",
            "350 ┤               ⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤                              ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "    │               ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀               ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "    │⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿               ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "  0 ┤⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "    └───────────────────────────────────────────────────────────────────────────",
            "     20                                                                       70",
            "row 1 of 5                                                                ? help",
        ])
    }

    @Test func at120ColumnsBesideTheSidebar() {
        #expect(plotScreen(width: 120) == [
            " Data                   │ People > plot age",
            "  ◆ People              │histogram of Age: 1,000 rows",
            "  $ Orders              │350 ┤                  ⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀                                    ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "                        │    │                  ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿                                    ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            " System                 │    │                  ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶                  ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "  ⚙ Processes           │    │⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣤⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿                  ⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "  ≡ Logs                │  0 ┤⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿",
            "                        │    └──────────────────────────────────────────────────────────────────────────────────────────",
            "                        │     20                                                                                      70",
            "row 1 of 5                                                                                                        ? help",
        ])
    }

    @Test func withoutUnicodeTheDotsAreStars() {
        let lines = plotScreen(width: 40, ascii: true)
        #expect(lines[6] == "  0 +***********************************")
        #expect(lines[7] == "    +-----------------------------------")
    }
}
