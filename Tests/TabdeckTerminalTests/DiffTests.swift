import Testing
@testable import TabdeckTerminal

@Suite struct DiffTests {
    @Test func onlyChangedCellsAreInTheDiff() {
        var a = ScreenBuffer(width: 10, height: 3)
        a.set(x: 0, y: 0, "hello")
        a.set(x: 0, y: 2, "world")
        var b = a
        b.set(x: 1, y: 0, "a")
        b.set(x: 3, y: 2, "LD")
        let d = Diff.between(a, b)
        #expect(!d.isFull)
        #expect(d.runs == [Diff.Run(x: 1, y: 0, cells: [Cell("a")]), Diff.Run(x: 3, y: 2, cells: [Cell("L"), Cell("D")])])
        #expect(d.cellCount == 3)
    }

    @Test func identicalFramesHaveNoChanges() {
        var a = ScreenBuffer(width: 5, height: 2)
        a.set(x: 0, y: 0, "abc")
        #expect(Diff.between(a, a).runs.isEmpty)
        #expect(ANSIWriter(colors: true).bytes(for: Diff.between(a, a)).isEmpty)
    }

    @Test func styleChangesAreChanges() {
        var a = ScreenBuffer(width: 5, height: 1)
        a.set(x: 0, y: 0, "abc")
        var b = a
        b.restyle(x: 1, y: 0, count: 1) { $0.bold = true }
        #expect(Diff.between(a, b).runs == [Diff.Run(x: 1, y: 0, cells: [Cell("b", style: Style(bold: true))])])
    }

    @Test func aNewSizeRedrawsEverything() {
        let a = ScreenBuffer(width: 5, height: 2)
        var b = ScreenBuffer(width: 6, height: 2)
        b.set(x: 0, y: 0, "x")
        let d = Diff.between(a, b)
        #expect(d.isFull)
        #expect(d.cellCount == 12)
        #expect(Diff.between(nil, b) == d)
    }

    @Test func runsIncludeBothHalvesOfAWideCharacter() {
        var a = ScreenBuffer(width: 6, height: 1)
        a.set(x: 0, y: 0, "ab日")
        var b = a
        b.restyle(x: 3, y: 0, count: 1) { $0.reverse = true }  // only the continuation cell changed
        let d = Diff.between(a, b)
        #expect(d.runs.count == 1)
        #expect(d.runs[0].x == 2)
        #expect(d.runs[0].cells.count == 2)
    }

    @Test func applyingTheDiffGivesTheNextFrame() {
        var a = ScreenBuffer(width: 12, height: 3)
        a.set(x: 0, y: 0, "row one")
        a.set(x: 0, y: 1, "日本語")
        var b = ScreenBuffer(width: 12, height: 3)
        b.set(x: 0, y: 0, "row 1")
        b.set(x: 1, y: 1, "中文", style: Style(bold: true))
        b.set(x: 0, y: 2, "new")
        var replay = a
        TestBackend.apply(Diff.between(a, b), to: &replay)
        #expect(replay == b)
    }
}
