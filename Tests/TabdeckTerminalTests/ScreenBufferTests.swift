import Testing
@testable import TabdeckTerminal

@Suite struct ScreenBufferTests {
    @Test func plainTextAndClipping() {
        var b = ScreenBuffer(width: 10, height: 2)
        #expect(b.set(x: 2, y: 0, "hello world") == 8)
        #expect(b.set(x: 0, y: 1, "abcdef", maxWidth: 3) == 3)
        #expect(TestBackend.lines(b) == ["  hello wo", "abc"])
    }

    @Test func outsideTheBufferWritesNothing() {
        var b = ScreenBuffer(width: 4, height: 1)
        #expect(b.set(x: 0, y: 1, "x") == 0)
        #expect(b.set(x: 4, y: 0, "x") == 0)
        #expect(b.set(x: -1, y: 0, "x") == 0)
        #expect(TestBackend.lines(b) == [""])
    }

    @Test func controlCharactersAreShownEscaped() {
        var b = ScreenBuffer(width: 20, height: 1)
        b.set(x: 0, y: 0, "a\u{1b}[31mb\u{7}\n")
        #expect(TestBackend.lines(b) == ["a\\e[31mb\\x07\\n"])
        #expect(!b.cells.contains { $0.symbol.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
    }

    @Test func wideCharactersTakeTwoCells() {
        var b = ScreenBuffer(width: 8, height: 1)
        #expect(b.set(x: 0, y: 0, "日本x") == 5)
        #expect(b[0, 0].symbol == "日")
        #expect(b[1, 0].isContinuation)
        #expect(b[2, 0].symbol == "本")
        #expect(b[4, 0].symbol == "x")
        #expect(TestBackend.lines(b) == ["日本x"])
    }

    @Test func aWideCharacterThatDoesNotFitBecomesABlank() {
        var b = ScreenBuffer(width: 8, height: 1)
        #expect(b.set(x: 0, y: 0, "a日本", maxWidth: 4) == 4)
        #expect(TestBackend.lines(b) == ["a日"])
        #expect(b[3, 0].symbol == " ")
    }

    @Test func combiningMarksJoinTheirCharacter() {
        var b = ScreenBuffer(width: 8, height: 1)
        #expect(b.set(x: 0, y: 0, "e\u{301}x") == 2)
        #expect(b[0, 0].symbol == "e\u{301}")
        #expect(b[1, 0].symbol == "x")
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var b = ScreenBuffer(width: 6, height: 1)
        b.set(x: 0, y: 0, "日本")
        b.set(x: 1, y: 0, "x")  // the right half of 日
        #expect(TestBackend.lines(b) == [" x本"])
        b.set(x: 2, y: 0, "y")  // the left half of 本
        #expect(TestBackend.lines(b) == [" xy"])
        #expect(!b[3, 0].isContinuation)
    }

    @Test func restyleKeepsText() {
        var b = ScreenBuffer(width: 4, height: 1)
        b.set(x: 0, y: 0, "ab")
        b.restyle(x: 0, y: 0, count: 4) { $0.reverse = true }
        #expect(b[1, 0] == Cell("b", style: Style(reverse: true)))
        #expect(b[3, 0] == Cell(" ", style: Style(reverse: true)))
    }
}
