import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// The status line's messages (point 10): info fades on the next action, an error stays until
/// Esc dismisses it, a newer message replaces an older one, a new job drops what was said
/// before it, and a cancel is said once (never next to the core's own "cancelled" error).
@Suite struct MessageLifecycleTests {
    @Test(arguments: [40, 80, 120])
    func infoFadesErrorsStayUntilEsc(width: Int) {
        var s = ScreenScene(width: width, height: 5)
        s.input(.promptClosed("goto 3"))
        #expect(s.lines.last == "row 3 of 1,000,000")  // `goto` says where it went: the position shows it
        s.showsOutputAndSays("saved")
        #expect(s.lines.last == "saved · row 3 of 1,000,000")
        s.press(.char("j"))  // the next action: info fades
        check([s.lines.last!], Self.faded[width], "faded \(width)")
        s.press(.char("n"))  // nothing to find: an error
        check([s.lines.last!], Self.error[width], "error \(width)")
        s.press(.char("j"), .char("k"), .char("l"))  // it stays
        check([s.lines.last!], Self.error[width], "error \(width)")
        s.press(.escape)  // dismissed
        check([s.lines.last!], Self.dismissed[width], "dismissed \(width)")
    }

    static let faded: [Int: [String]] = [
        40: [
            "row 4 of 1,000,000                ? help",
        ],
        80: [
            "row 4 of 1,000,000                                                        ? help",
        ],
        120: [
            "row 4 of 1,000,000                                                                                                ? help",
        ],
    ]
    static let error: [Int: [String]] = [
        40: [
            "nothing to find yet: type / first · row…",
        ],
        80: [
            "nothing to find yet: type / first · row 4 of 1,000,000",
        ],
        120: [
            "nothing to find yet: type / first · row 4 of 1,000,000",
        ],
    ]
    static let dismissed: [Int: [String]] = [
        40: [
            "row 4 of 1,000,000                ? help",
        ],
        80: [
            "row 4 of 1,000,000                                                        ? help",
        ],
        120: [
            "row 4 of 1,000,000                                                                                                ? help",
        ],
    ]

    /// A cancel says "cancelled export x.csv" once; the core's "cancelled" error for it is the
    /// same fact and does not replace it. Exporting again starts a new job: the old word goes,
    /// and the job's own line is the only word on it.
    @Test(arguments: [40, 80, 120])
    func aCancelIsSaidOnceAndANewJobDropsIt(width: Int) {
        var s = ScreenScene(width: width, height: 5)
        s.scene.tables["people"]!.hold = { $0 >= 1000 }
        s.input(.promptClosed("export x.csv"))
        s.press(.escape)
        #expect(s.scene.failures.last == "cancelled \"export x.csv\"")  // the core said it too
        check([s.lines.last!], Self.cancelled[width], "cancelled \(width)")
        s.input(.promptClosed("export x.csv"))  // again: a new job
        s.input(.timer(now: 7))
        check([s.lines.last!], Self.again[width], "again \(width)")
        #expect(s.model.ui.message == nil)
    }

    static let cancelled: [Int: [String]] = [
        40: [
            "cancelled export x.csv · row 1 of 1,000…",
        ],
        80: [
            "cancelled export x.csv · row 1 of 1,000,000",
        ],
        120: [
            "cancelled export x.csv · row 1 of 1,000,000",
        ],
    ]
    static let again: [Int: [String]] = [
        40: [
            "⠋ export x.csv ░░░░░ 0% 1,000/1,000,000…",
        ],
        80: [
            "⠋ export x.csv ░░░░░░░░░░ 0% 1,000/1,000,000 · 0.0 s · Esc cancels · row 1 of 1…",
        ],
        120: [
            "⠋ export x.csv ░░░░░░░░░░ 0% 1,000/1,000,000 · 0.0 s · Esc cancels · row 1 of 1,000,000",
        ],
    ]
}

extension ScreenScene {
    /// Shows `text` as a command typed at the prompt would (its output is shown).
    mutating func showsOutputAndSays(_ text: String) {
        model.showsOutput = true
        input(.output(text, isError: false))
    }
}
