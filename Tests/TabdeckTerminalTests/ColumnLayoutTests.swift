import Testing
import TabdeckProtocol
@testable import TabdeckTerminal

@Suite struct ColumnLayoutTests {
    func layout(_ columns: [ColumnSpec], width: Int, user: [Int?] = [], scroll: Int = 1, cursor: Int = 0) -> ColumnLayout {
        ColumnLayout.make(columns: columns, userWidths: user, titleWidths: columns.map { $0.title.count },
                          width: width, scroll: scroll, cursor: cursor)
    }

    func widths(_ l: ColumnLayout) -> [Int] { l.placed.map(\.width) }

    @Test func columnsWithoutHintsShareTheSpace() {
        let l = layout([ColumnSpec(id: "a"), ColumnSpec(id: "b"), ColumnSpec(id: "c")], width: 32)
        #expect(widths(l) == [10, 10, 10])
        #expect(l.placed.map(\.x) == [0, 11, 22])
        #expect(!l.compact && !l.cutLeft && !l.cutRight)
    }

    @Test func fixedAndIdealFirstThenMaxBounds() {
        let columns = [
            ColumnSpec(id: "name", width: .flexible(min: 4, ideal: 10, max: 12)),
            ColumnSpec(id: "n", width: .fixed(3)),
            ColumnSpec(id: "note", width: .flexible(min: 2, ideal: nil, max: 6)),
        ]
        // Room for the minimums and part of the ideal.
        #expect(widths(layout(columns, width: 14)) == [7, 3, 2])
        // Ideal reached, the rest shared up to the maxima; what is left stays empty.
        #expect(widths(layout(columns, width: 30)) == [12, 3, 6])
    }

    @Test func userWidthsWin() {
        let columns = [ColumnSpec(id: "a", width: .fixed(3)), ColumnSpec(id: "b")]
        #expect(widths(layout(columns, width: 40, user: [10, 5])) == [10, 5])
    }

    @Test func compactWhenNoSecondColumnFits() {
        let columns = [ColumnSpec(id: "name", width: .flexible(min: 20, ideal: nil, max: nil)), ColumnSpec(id: "n", width: .fixed(5))]
        let l = layout(columns, width: 25)
        #expect(l.compact)
        // The first column alone, a cell kept for the `>` mark; the other is left for the detail line.
        #expect(widths(l) == [24])
        #expect(l.cutRight && !l.cutLeft)
        #expect(l.hidden(count: 2) == [1])
        #expect(!layout(columns, width: 26).compact)
        #expect(layout(columns, width: 26).hidden(count: 2) == [])
    }

    @Test func compactWhenScrolledColumnsAreCutOff() {
        let columns = (0..<6).map { ColumnSpec(id: "c\($0)", width: .fixed(5)) }
        let l = layout(columns, width: 18, cursor: 4)
        #expect(l.compact)
        #expect(l.hidden(count: 6) == [1, 2, 5])
        #expect(!layout(columns, width: 35).compact)
    }

    @Test func scrollingKeepsTheFirstColumnAndFollowsTheCursor() {
        let columns = (0..<6).map { ColumnSpec(id: "c\($0)", width: .fixed(5)) }
        // 5 + 1 + 5 + 1 + 5 = 17: the first column and two more, with a cell for `>`.
        var l = layout(columns, width: 18)
        #expect(l.placed.map(\.column) == [0, 1, 2])
        #expect(l.cutRight && !l.cutLeft)
        l = layout(columns, width: 18, cursor: 4)
        #expect(l.placed.map(\.column) == [0, 3, 4])
        #expect(l.scroll == 3 && l.cutLeft && l.cutRight)
        l = layout(columns, width: 18, scroll: 3, cursor: 1)
        #expect(l.placed.map(\.column) == [0, 1, 2])
        // At the end there is no `>`, so the last columns get the cell back.
        l = layout(columns, width: 17, cursor: 5)
        #expect(l.placed.map(\.column) == [0, 4, 5])
        #expect(!l.cutRight)
        // A stale scroll past the end is pulled back to fill the width.
        l = layout(columns, width: 36, scroll: 5)
        #expect(l.placed.map(\.column) == [0, 1, 2, 3, 4, 5])
    }

    @Test func aColumnWiderThanTheRoomIsCut() {
        let columns = [ColumnSpec(id: "a", width: .fixed(4)), ColumnSpec(id: "b", width: .fixed(3)), ColumnSpec(id: "c", width: .fixed(30))]
        let l = layout(columns, width: 20, cursor: 2)
        #expect(l.placed.map(\.column) == [0, 2])
        #expect(widths(l) == [4, 15])
    }

    @Test func emptyInputs() {
        #expect(layout([], width: 10).placed.isEmpty)
        #expect(layout([ColumnSpec(id: "a")], width: 0).placed.isEmpty)
        #expect(widths(layout([ColumnSpec(id: "a", width: .fixed(50))], width: 10)) == [10])
    }
}
