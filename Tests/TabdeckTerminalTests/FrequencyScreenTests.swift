import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// F on a column: the frequency view, one level down, with its bars, at three widths.
@Suite struct FrequencyScreenTests {
    /// People whose status counts are 500, 300 and 200 of 1,000.
    static func table() -> FakeTable {
        var t = FakeTable.people(count: 1000)
        let status = t.columns[2]
        let description = TableDescription(table: "agg1", title: "status", columns: [status] + AggregateResult.countColumns, total: 3)
        t.groups = (AggregateResult(description: description, rows: 1000, largest: 500), [
            Row(id: "g0", cells: ["done", 500, 50.0, 50.0]),
            Row(id: "g1", cells: ["todo", 300, 30.0, 80.0]),
            Row(id: "g2", cells: ["doing", 200, 20.0, 100.0]),
        ])
        return t
    }

    func frequencyScreen(width: Int) -> [String] {
        var s = ScreenScene(Scene(tables: ["people": Self.table()]), width: width, height: 8)
        s.press(.char("l"), .char("l"), .char("F"))
        return s.lines
    }

    @Test func theViewAt40Columns() {
        #expect(frequencyScreen(width: 40) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            " People > freq status",
            "  Status Count     % Cumulative %",
            "  done     500  50.0         50.0 ██████",
            "  todo     300  30.0         80.0 ███▋",
            "  doing    200  20.0        100.0 ██▍",
            "",
            "row 1 of 3                        ? help",
        ])
    }

    @Test func theViewAt80Columns() {
        #expect(frequencyScreen(width: 80) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            " People > freq status",
            "  Status                   Count     % Cumulative %",
            "  done                       500  50.0         50.0 ████████████████████████████",
            "  todo                       300  30.0         80.0 ████████████████▊",
            "  doing                      200  20.0        100.0 ███████████▎",
            "",
            "row 1 of 3                                                                ? help",
        ])
    }

    @Test func theViewAt120ColumnsBesideTheSidebar() {
        #expect(frequencyScreen(width: 120) == [
            " Data                   │ People > freq status",
            "  ◆ People              │  Status                             Count     % Cumulative %",
            "  $ Orders              │  done                                 500  50.0         50.0 █████████████████████████████████",
            "                        │  todo                                 300  30.0         80.0 ███████████████████▊",
            " System                 │  doing                                200  20.0        100.0 █████████████▎",
            "  ⚙ Processes           │",
            "  ≡ Logs                │",
            "row 1 of 3                                                                                                        ? help",
        ])
    }

    @Test func withoutUnicodeTheBarsAreHashes() {
        var s = ScreenScene(Scene(tables: ["people": Self.table()]), width: 40, height: 8)
        s.model.ui.ascii = true
        s.press(.char("l"), .char("l"), .char("F"))
        #expect(s.lines[3] == "  done     500  50.0         50.0 ######")
    }
}
