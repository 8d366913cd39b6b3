import Testing
@testable import TabdeckCore

@Suite struct SanitizerTests {
    @Test func controlsAndEscapesAreShownEscaped() {
        #expect(Sanitizer.clean("a\u{1B}[31mb\u{07}\n\r\tc\u{7F}\u{9B}") == "a\\e[31mb\\x07\\n\\r c\\x7f\\x9b")
    }

    @Test func bidiOverridesAreEscapedSoTextReadsAsItIs() {
        #expect(Sanitizer.clean("invoice\u{202E}fdp.exe") == "invoice\\u202efdp.exe")
        #expect(Sanitizer.clean("\u{2066}x\u{2069}\u{200F}\u{61C}") == "\\u2066x\\u2069\\u200f\\u61c")
    }

    @Test func ordinaryTextIsUntouched() {
        let text = "山田太郎 naïve ‘quotes’ — ok 👍"
        #expect(Sanitizer.clean(text) == text)
    }
}
