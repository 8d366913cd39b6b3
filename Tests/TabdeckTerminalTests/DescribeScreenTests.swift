import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// I (describe): one row per column with its statistics and a sparkline, one level down, at
/// three widths; estimated statistics say so in their titles.
@Suite struct DescribeScreenTests {
    /// The statistics of people's four columns (the distinct count of names estimated).
    static func table() -> FakeTable {
        var t = FakeTable.people(count: 1000)
        let description = TableDescription(table: "desc1", title: "describe", columns: DescribeRequest.columns, total: 4)
        func row(_ id: String, _ cells: [JSONValue]) -> Row { Row(id: id, cells: cells) }
        t.statistics = (DescribeResult(description: description, estimates: ["distinct"]), [
            row("name", ["Name", "text", 1000, 0, 1000, "name0", "name999", .null, .null, .null, .null, .null, "name0", 1, .null]),
            row("age", ["Age", "integer", 990, 10, 50, "20", "69", 44.5, 14.43, "32", "44", "57", "20", 20, "5 20 60 120 130 80 30 5"]),
            row("status", ["Status", "enum", 1000, 0, 3, "todo", "done", .null, .null, .null, .null, .null, "todo", 334, .null]),
            row("city", ["City", "text", 1000, 0, 4, "Kyoto", "Oslo", .null, .null, .null, .null, .null, "Lyon", 250, .null]),
        ])
        return t
    }

    func describeScreen(width: Int, ascii: Bool = false) -> [String] {
        var s = ScreenScene(Scene(tables: ["people": Self.table()]), width: width, height: 8)
        s.model.ui.ascii = ascii
        s.press(.char("I"))
        return s.lines
    }

    @Test func at40Columns() {
        #expect(describeScreen(width: 40) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            " People > describe",
            "  Column  Type    Shape     Count Nulls>",
            "  Name    text               1000     0",
            "  Distinct ≈: 1000 · Min: name0 · Max: …",
            "  Age     integer ▁▂▄██▅▂▁    990    10",
            "  Status  enum               1000     0",
            "row 1 of 4                        ? help",
        ])
    }

    @Test func at80Columns() {
        #expect(describeScreen(width: 80) == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            " People > describe",
            "  Column  Type    Shape     Count  Nulls Distinc… Min  Max    Mean Std dev P25 >",
            "  Name    text               1000      0     1000 nam… nam…",
            "  Most frequent: name0 · Its count: 1",
            "  Age     integer ▁▂▄██▅▂▁    990     10       50 20   69    44.50   14.43 32",
            "  Status  enum               1000      0        3 todo done",
            "row 1 of 4                                                                ? help",
        ])
    }

    @Test func at120ColumnsBesideTheSidebar() {
        #expect(describeScreen(width: 120) == [
            " Data                   │ People > describe",
            "  ◆ People              │  Column  Type    Shape    Count Nulls Distinc… Min  Max    Mean Std dev P25  Median P75  Mos…>",
            "  $ Orders              │  Name    text              1000     0     1000 nam… nam…                                 nam…",
            "                        │  Its count: 1",
            " System                 │  Age     integer ▁▂▄██▅▂▁   990    10       50 20   69    44.50   14.43 32   44     57   20",
            "  ⚙ Processes           │  Status  enum              1000     0        3 todo done                                 todo",
            "  ≡ Logs                │  City    text              1000     0        4 Kyo… Oslo                                 Lyon",
            "row 1 of 4                                                                                                        ? help",
        ])
    }

    @Test func withoutUnicodeTheSparklineIsASCII() {
        #expect(describeScreen(width: 120, ascii: true) == [
            " Data                   | People > describe",
            "    People              |  Column  Type    Shape    Count Nulls Disti... Min  Max    Mean Std dev P25  Median P75  Mos.>",
            "  $ Orders              |  Name    text              1000     0     1000 n... n...                                 n...",
            "                        |  Its count: 1",
            " System                 |  Age     integer __-##=__   990    10       50 20   69    44.50   14.43 32   44     57   20",
            "    Processes           |  Status  enum              1000     0        3 todo done                                 todo",
            "    Logs                |  City    text              1000     0        4 K... Oslo                                 Lyon",
            "row 1 of 4                                                                                                        ? help",
        ])
    }
}
