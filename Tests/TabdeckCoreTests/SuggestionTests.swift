import Testing
import TabdeckCore

@Suite struct SuggestionTests {
    @Test func equallyCloseCandidatesPreferTheSharedStart() {
        // "dsc" is one edit from both "asc" and "desc"; it starts like "desc".
        #expect(CommandParser.suggest("dsc", among: ["asc", "desc"]) == #""desc""#)
        #expect(CommandParser.suggest("acs", among: ["asc", "desc"]) == #""asc""#)
    }

    @Test func aMisspelledDirectionNamesTheRightOne() {
        do {
            _ = try CommandParser.parse("sort age dsc")
            Issue.record("parsed a bad direction")
        } catch {
            #expect(error.description == #"sort direction must be asc or desc, not "dsc" (did you mean "desc"?)"#)
        }
    }
}
