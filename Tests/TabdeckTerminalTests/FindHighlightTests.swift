import Testing
@testable import TabdeckTerminal

/// The find's text is highlighted where it matches in a cell, not the whole cell.
@Suite struct FindHighlightTests {
    @Test func theCellsOfEachMatchIgnoringCase() {
        #expect(FindHighlight.ranges(of: "ada", in: "Ada García").map { [$0.offset, $0.count] } == [[0, 3]])
        #expect(FindHighlight.ranges(of: "an", in: "banana").map { [$0.offset, $0.count] } == [[1, 2], [3, 2]])
        #expect(FindHighlight.ranges(of: "中", in: "田中 x").map { [$0.offset, $0.count] } == [[2, 2]], "wide characters take two cells")
        #expect(FindHighlight.ranges(of: "zz", in: "abc").isEmpty)
    }

    @Test func onlyTheMatchIsStyledAndACutMatchMarksTheWholeCell() {
        var buf = ScreenBuffer(width: 12, height: 1)
        _ = buf.set(x: 0, y: 0, "Ada García")
        FindHighlight.mark("garc", value: "Ada García", shown: "Ada García", into: &buf, x: 0, y: 0, width: 12)
        #expect((0..<12).filter { buf[$0, 0].style == Palette.found } == [4, 5, 6, 7])
        var cut = ScreenBuffer(width: 6, height: 1)
        _ = cut.set(x: 0, y: 0, "Ada G…")
        FindHighlight.mark("garc", value: "Ada García", shown: "Ada G…", into: &cut, x: 0, y: 0, width: 6)
        #expect((0..<6).allSatisfy { cut[$0, 0].style == Palette.found }, "the match is cut off: the cell says it matched")
    }
}
