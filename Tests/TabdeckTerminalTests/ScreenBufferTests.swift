import Testing
import TabdeckCore
import TabdeckProtocol
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

    @Test func singleScalarTextIsDrawnLikeTheGeneralPath() {
        // Greek, Cyrillic, Vietnamese, box drawing and `…` take the one-scalar-per-cell path;
        // a combining mark, a soft hyphen or a wide character anywhere sends text the long way.
        for text in ["Αλέξης Иванов Nguyễn ─│┼…→", "Zoë\u{AD}x", "Zoe\u{308} ─", "明 ─", "Ѐ\u{483}"] {
            #expect(ScreenBuffer.isSingleScalarText(text) == !["Zoë\u{AD}x", "Zoe\u{308} ─", "明 ─", "Ѐ\u{483}"].contains(text))
            var b = ScreenBuffer(width: 12, height: 1)
            let written = b.set(x: 0, y: 0, text)
            let characters = Array(Sanitizer.clean(text))
            var expected = "", used = 0
            for ch in characters {
                let w = ScreenBuffer.width(of: ch)
                if used + w > 12 { break }
                expected.append(ch); used += w
            }
            #expect(written == used)
            #expect(TestBackend.lines(b)[0] == expected.trimmingTrailingBlanks())
            #expect(TextFit.width(text) == characters.reduce(0) { $0 + ScreenBuffer.width(of: $1) })
        }
        #expect(TextFit.placed("Αλέξης Иванов", 6, alignment: .left).text == "Αλέξη…")
        #expect(TextFit.placed("Иванов", 8, alignment: .right) == ("Иванов", 2))
    }

    @Test func cellsKeepMultiScalarClustersAndCompareByThem() {
        let flag = Cell("🇫🇷"), accented = Cell("e\u{301}")
        #expect(flag.symbol == "🇫🇷" && accented.symbol == "e\u{301}")
        #expect(Cell("e\u{301}") == accented && flag != accented && Cell("e") != accented)
        #expect(Cell.continuation(.plain).symbol == "" && Cell.continuation(.plain).isContinuation)
        #expect(!Cell("\u{0}").isContinuation && Cell("\u{0}").symbol == "\u{0}")
        var c = Cell("e")
        c.symbol += "\u{301}"
        #expect(c == accented)
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
