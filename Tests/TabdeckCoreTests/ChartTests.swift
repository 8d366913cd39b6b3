import Testing
import TabdeckCore
import TabdeckProtocol

/// `plot X [Y]`: charts from the plugin's binned counts, never from the rows.
@Suite struct ChartTests {
    func harness(count: Int = 1000) -> Harness {
        var h = Harness(count: count)
        for id in h.plugins.keys { h.plugins[id]!.aggregates = true }
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        return h
    }

    @Test func aHistogramOfAUniformColumnIsAFlatBlockWithItsAxes() throws {
        var h = harness()
        let outOut = h.run("plot id")
        let out = try #require(outOut)
        #expect(h.plugins["people"]!.aggregateAsked?.group == [AggregateGroup("id", bins: 60)])
        let lines = out.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 20)
        #expect(lines[0] == "histogram of id: 1,000 rows")
        // 1,000 ids in bins of 20 (the nice width ≥ 999 / 60): 50 bins of 20 rows, all full.
        #expect(lines[1] == "20 ┤" + String(repeating: "⣿", count: 76))
        #expect(lines[17] == " 0 ┤" + String(repeating: "⣿", count: 76))
        #expect(lines[18] == "   └" + String(repeating: "─", count: 76))
        #expect(lines[19] == "    0" + String(repeating: " ", count: 71) + "1000")
        #expect(lines.dropFirst(1).prefix(17).allSatisfy { $0.hasSuffix("⣿") })
        #expect(h.ws.tabs["people"]!.stack.count == 2, "one level down")
    }

    @Test func textColumnsAndPluginsWithoutCountsAreRefused() {
        var h = harness()
        #expect(h.run("plot name") == nil)
        #expect(h.lastFailure == "column name is text: only numbers and dates can be plotted (freq name counts its values)")
        var plain = Harness(count: 10)
        plain.run("show 1")
        #expect(plain.run("plot id") == nil)
        #expect(plain.lastFailure?.hasPrefix("People cannot count groups") == true)
        #expect(throws: CommandError.self) { try CommandParser.parse("plot a b c") }
    }

    @Test func aScatterPlotPutsADotPerGroup() {
        let facts = PlotFacts(request: AggregateRequest(table: "t", group: [AggregateGroup("x", bins: 60), AggregateGroup("y", bins: 30)]),
                              source: 0, rows: 3, bins: [:],
                              columns: [ColumnSpec(id: "x", title: "X", type: .integer), ColumnSpec(id: "y", title: "Y", type: .integer)])
        let rows = [Row(id: "a", cells: [0, 0, 1, 33.3, 33.3]), Row(id: "b", cells: [10, 10, 1, 33.3, 66.6]),
                    Row(id: "c", cells: [.null, 5, 1, 33.3, 100])]
        let lines = Chart.lines(rows, facts, width: 24, height: 8)
        #expect(lines == [
            "Y by X: 3 rows (1 without a value)",
            "10 ┤                   ⠈",
            "   │",
            "   │",
            "   │",
            " 0 ┤⡀",
            "   └────────────────────",
            "    0                 10",
        ])
    }
}
