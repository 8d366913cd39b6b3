import Testing
import TabdeckCore
import TabdeckProtocol

/// `column reset`: parsed, rendered back, and what it does to a table's view.
@Suite struct ColumnResetTests {
    @Test func parsesAndReadsBack() throws {
        #expect(try CommandParser.parse("column reset") == .columnReset)
        #expect(Command.columnReset.text == "column reset")
        #expect(try CommandParser.parse(Command.columnReset.text) == .columnReset)
        #expect(throws: CommandError("column reset takes no arguments; usage: column reset")) { try CommandParser.parse("column reset name") }
        #expect(throws: CommandError("unknown column command \"rest\"", suggestion: "\"reset\"")) { try CommandParser.parse("column rest") }
        #expect(CommandParser.catalog.contains { $0.name == "column reset" })
    }

    @Test func forgetsOrderHidingAndWidths() {
        let description = TableDescription(table: "t", columns: [
            ColumnSpec(id: "a", title: "A"), ColumnSpec(id: "b", title: "B"), ColumnSpec(id: "c", title: "C"),
        ], total: 0)
        var t = TableState(key: "t", description: description, view: TableViewState(columns: [
            ColumnCustomization(id: "c", width: 9), ColumnCustomization(id: "a", hidden: true), ColumnCustomization(id: "b"),
        ]), label: "T", cache: PageCache())
        #expect(t.visibleColumns.map(\.id) == ["c", "b"])
        t.resetColumns()
        #expect(t.view.columns == [ColumnCustomization(id: "a"), ColumnCustomization(id: "b"), ColumnCustomization(id: "c")])
        #expect(t.visibleColumns.map(\.id) == ["a", "b", "c"])
    }
}
