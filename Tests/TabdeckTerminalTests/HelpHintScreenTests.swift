import Testing
import TabdeckCore
@testable import TabdeckTerminal

/// The first screen says that `?` opens help: `? help` at the right of the status line while
/// nothing else needs the room.
@Suite struct HelpHintScreenTests {
    func firstScreen(width: Int) -> [String] {
        ScreenScene(Scene(tables: ["people": .people(count: 3)]), width: width, height: 5).lines
    }

    @Test(arguments: [40, 80, 120]) func theStatusLineEndsWithTheHint(width: Int) {
        let status = "row 1 of 3"
        #expect(firstScreen(width: width).last == status + String(repeating: " ", count: width - status.count - 6) + "? help")
    }

    /// A message takes the line: the hint is not shown beside it.
    @Test func aMessageTakesItsPlace() {
        var s = ScreenScene(Scene(tables: ["people": .people(count: 3)]), width: 80, height: 5)
        s.press(.char("n"))
        #expect(s.lines.last == "nothing to find yet: type / first · row 1 of 3")
    }
}
