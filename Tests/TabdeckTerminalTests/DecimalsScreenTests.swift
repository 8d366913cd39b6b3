import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// A decimal column with `decimals`: fixed digits, points lined up, on screen and in the detail view.
@Suite struct DecimalsScreenTests {
    @Test func decimalsLineUpThePoints() {
        let amounts: [Double] = [1370.3, -73.09, 7, 4339.2]
        let table = FakeTable(columns: [
            ColumnSpec(id: "name", title: "Name", width: .fixed(6)),
            ColumnSpec(id: "balance", title: "Balance", type: .decimal, width: .fixed(8), decimals: 2),
            ColumnSpec(id: "ratio", title: "Ratio", type: .decimal, width: .fixed(6)),
        ], total: amounts.count, row: { i in
            Row(id: "r\(i)", cells: [.string("n\(i)"), .double(amounts[i]), .double(amounts[i] / 10)])
        })
        var s = Scene(config: config(tabs: [TabConfig(id: "people", title: "People", section: "data", command: ["plug"])]),
                      tables: ["people": table])
        s.resize(40, 7)
        s.run("show")
        #expect(s.screen(40, 7) == [
            " People",
            "  Name    Balance  Ratio",
            "  n0      1370.30 137.03",
            "  n1       -73.09 -7.309",
            "  n2         7.00    0.7",
            "  n3      4339.20 433.9…",  // 433.91999999999996 without decimals
            "row 1 of 4                        ? help",
        ])
        #expect(s.screen(40, 7, ui: UIState(mode: .detail(scroll: 0)))[3] == " Balance  1370.30")
    }
}
