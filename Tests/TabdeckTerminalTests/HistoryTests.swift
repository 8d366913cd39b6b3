import Testing
@testable import TabdeckTerminal

/// The `:` prompt's history rules (LineEditor adds a line when ``History/shouldAdd(_:after:)``).
@Suite struct HistoryTests {
    @Test func blankLinesAreSkipped() {
        #expect(!History.shouldAdd("", after: nil))
        #expect(!History.shouldAdd("   ", after: "sort name"))
        #expect(!History.shouldAdd(" \t ", after: nil))
    }

    @Test func aRepeatOfTheNewestEntryIsSkipped() {
        #expect(!History.shouldAdd("sort name", after: "sort name"))
        #expect(History.shouldAdd("sort name", after: "sort age"))
        #expect(History.shouldAdd("sort name", after: nil))
    }

    /// The text is kept as typed: spacing makes another entry, not a trimmed copy.
    @Test func theTextIsKeptAsTyped() {
        #expect(History.shouldAdd("  filter  a b ", after: "filter a b"))
        #expect(History.shouldAdd("Sort Name", after: "sort name"))
    }
}
