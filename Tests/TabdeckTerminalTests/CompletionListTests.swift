import Testing
@testable import TabdeckTerminal

/// The matches of a Tab completion at the full-screen prompt: one line above the prompt, drawn
/// in place, so the workspace never scrolls.
@Suite struct CompletionListTests {
    @Test func theMatchesThatFitThenHowManyMore() {
        let words = ["name", "nation", "notes", "number", "nickname"]
        #expect(CompletionList.line(words, width: 80) == "name  nation  notes  number  nickname")
        #expect(CompletionList.line(words, width: 30) == "name  nation  notes  (+2 more)")
        #expect(CompletionList.line(words, width: 29) == "name  nation  (+3 more)")
        #expect(CompletionList.line(words, width: 10) == "(+5 more)")
        #expect(CompletionList.line(words, width: 5) == "(+5 …")
        #expect(CompletionList.line(["\u{1B}[31mred"], width: 20) == "\\e[31mred")
    }

    @Test func drawnInPlaceWithoutANewline() {
        let bytes = CompletionList.bytes(["name", "nation"], row: 39, width: 120)
        #expect(String(decoding: bytes, as: UTF8.self) == "\u{1B}7\u{1B}[39;1H\u{1B}[2Kname  nation\u{1B}8")
        #expect(!bytes.contains(0x0A) && !bytes.contains(0x0D), "a newline on the bottom line would scroll the screen")
    }
}
