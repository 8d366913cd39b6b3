import Testing
@testable import TabdeckTerminal

@Suite struct ANSIWriterTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func cursorMovesOnlyBetweenRunsAndSGROnlyOnChange() {
        let a = ScreenBuffer(width: 10, height: 2)
        var b = a
        b.set(x: 0, y: 0, "ab")
        b.set(x: 2, y: 0, "cd", style: Style(bold: true))
        b.set(x: 5, y: 1, "x", style: Style(bold: true))
        let out = text(ANSIWriter(colors: true).bytes(for: Diff.between(a, b)))
        #expect(out == "\u{1b}[1;1H\u{1b}[0mab\u{1b}[0;1mcd\u{1b}[2;6Hx\u{1b}[0m")
    }

    @Test func colours() {
        let a = ScreenBuffer(width: 4, height: 1)
        var b = a
        b.set(x: 0, y: 0, "!", style: Style(foreground: .red, background: .gray, bold: true, underline: true))
        let out = text(ANSIWriter(colors: true).bytes(for: Diff.between(a, b)))
        #expect(out == "\u{1b}[1;1H\u{1b}[0;1;4;31;100m!\u{1b}[0m")
    }

    @Test func noColorKeepsOnlyBoldAndReverse() {
        let a = ScreenBuffer(width: 6, height: 1)
        var b = a
        b.set(x: 0, y: 0, "!", style: Style(foreground: .red, bold: true, dim: true, underline: true))
        b.set(x: 1, y: 0, "r", style: Style(foreground: .green, background: .blue, reverse: true))
        b.set(x: 2, y: 0, "c", style: Style(foreground: .cyan))
        let writer = ANSIWriter(environment: ["NO_COLOR": "1"])
        #expect(!writer.colors)
        let out = text(writer.bytes(for: Diff.between(a, b)))
        #expect(out == "\u{1b}[1;1H\u{1b}[0;1m!\u{1b}[0;7mr\u{1b}[0mc")
        #expect(ANSIWriter(environment: ["NO_COLOR": ""]).colors)
        #expect(ANSIWriter(environment: [:]).colors)
    }

    @Test func fullFramesClearFirstAndWideCharactersAreWrittenOnce() {
        var b = ScreenBuffer(width: 4, height: 1)
        b.set(x: 0, y: 0, "日x")
        let out = text(ANSIWriter(colors: true).bytes(for: Diff.between(nil, b)))
        #expect(out == "\u{1b}[0m\u{1b}[H\u{1b}[2J\u{1b}[1;1H日x ")
    }

    @Test func aDiffIsOneByteStringWithOnlyTheChanges() {
        var a = ScreenBuffer(width: 80, height: 24)
        for y in 0..<24 { a.set(x: 0, y: y, "line \(y) of a long screen with text") }
        var b = a
        b.set(x: 5, y: 10, "X")
        let out = text(ANSIWriter(colors: true).bytes(for: Diff.between(a, b)))
        #expect(out == "\u{1b}[11;6H\u{1b}[0mX")
    }
}
