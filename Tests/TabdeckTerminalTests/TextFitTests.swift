import Testing
@testable import TabdeckTerminal

@Suite struct TextFitTests {
    @Test func fitPadsCutsAndAligns() {
        #expect(TextFit.fit("abc", 5) == "abc  ")
        #expect(TextFit.fit("abc", 5, alignment: .right) == "  abc")
        #expect(TextFit.fit("abc", 6, alignment: .center) == " abc  ")
        #expect(TextFit.fit("abcdef", 4) == "abc…")
        #expect(TextFit.fit("日本語", 4) == "日… ")
        #expect(TextFit.fit("a\u{1b}b", 4) == "a\\eb")
        #expect(TextFit.fit("x", 0) == "")
    }

    @Test func wrapBreaksAtSpacesAndNewlines() {
        #expect(TextFit.wrap("the quick brown fox", 10) == ["the quick", "brown fox"])
        #expect(TextFit.wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"])
        #expect(TextFit.wrap("one\ntwo", 10) == ["one", "two"])
        #expect(TextFit.wrap("日本語", 4) == ["日本", "語"])
        #expect(TextFit.wrap("", 4) == [""])
    }
}
