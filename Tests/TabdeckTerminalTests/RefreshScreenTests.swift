import Testing
import TabdeckCore
@testable import TabdeckTerminal

/// `r` says what it did: the table it fetched again and how many rows it has.
@Suite struct RefreshScreenTests {
    @Test func rSaysWhatItRefreshed() {
        var s = ScreenScene(Scene(tables: ["people": .people(count: 1000)]), width: 80, height: 5)
        s.press(.char("r"))
        #expect(s.lines.last == "refreshed People: 1,000 rows · row 1 of 1,000")
    }
}
