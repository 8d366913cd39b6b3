import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Records a screen with no expectation yet (prints it) or checks it.
func check(_ lines: [String], _ expected: [String]?, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let expected else {
        print("RECORD \(name)")
        literal(lines)
        Issue.record("no expectation for \(name)", sourceLocation: sourceLocation)
        return
    }
    #expect(lines == expected, sourceLocation: sourceLocation)
}

/// Long jobs on screen (point 8): a spinner with the time taken while the plugin says nothing,
/// a progress bar with count and rate when it reports progress (or the host counts), all on the
/// ticks' virtual time; Esc cancels (the plugin gets `$/cancel`) and the status says so; the rest
/// of the UI stays usable meanwhile.
@Suite struct ProgressScreenTests {
    /// A sort the plugin takes long over: a spinner and the time at the ticks, then a bar with
    /// count and rate once it reports progress; Esc cancels the rows it waited for.
    @Test(arguments: [40, 80, 120])
    func spinnerThenProgressBarThenCancel(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        s.scene.tables["people"]!.hold = { _ in true }
        s.press(.char("s"))
        #expect(s.scene.ws.job?.title == "sort name")
        #expect(s.model.wantsTicks)
        s.input(.timer(now: 100))
        s.input(.timer(now: 100.3))
        check(s.lines, Self.spinner[width], "spinner \(width)")
        s.scene.notify("people", "progress", ["done": 300, "total": 1000, "message": "sorting"])
        s.input(.coreChanged)
        s.scene.notify("people", "progress", ["done": 600, "total": 1000, "message": "sorting"])
        s.input(.timer(now: 101.3))  // 300 more in the second since the first report
        check(s.lines, Self.bar[width], "bar \(width)")
        let held = s.scene.requested.filter { $0.method == Method.rows }.map(\.id).suffix(2)
        s.press(.escape)
        check(s.lines, Self.cancelled[width], "cancelled \(width)")
        let cancels = s.scene.sent.filter { $0.method == Method.cancel }.compactMap { $0.params["id"] }
        #expect(Set(cancels) == Set(held.map(\.json)))
        #expect(!s.model.wantsTicks && s.scene.ws.job == nil)
        // The rows of the order before the sort were kept: nothing is asked for them again.
        let asked = s.scene.requested.count
        s.input(.coreChanged)
        s.scene.feed(.refresh)
        #expect(s.scene.requested.count == asked)
        #expect(s.scene.ws.tabs["people"]?.table?.view.sort == [])
    }

    static let spinner: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name ↑            Age Status    City",
            "  …",
            "  …",
            "  …",
            "⠸ sort name · 0.3 s · Esc cancels · row…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name ↑                 Age Status                     City",
            "  …",
            "  …",
            "  …",
            "⠸ sort name · 0.3 s · Esc cancels · row 1 of 1,000,000 · sort: Name ↑",
        ],
        120: [
            " Data                   │  Name ↑                 Age Status                             City",
            "  ◆ People              │  …",
            "  $ Orders              │  …",
            "                        │  …",
            " System                 │  …",
            "⠸ sort name · 0.3 s · Esc cancels · row 1 of 1,000,000 · sort: Name ↑",
        ],
    ]
    static let bar: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name ↑            Age Status    City",
            "  …",
            "  …",
            "  …",
            "⠸ sort name ███░░ 60% 600/1,000 · 300/s…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name ↑                 Age Status                     City",
            "  …",
            "  …",
            "  …",
            "⠸ sort name ██████░░░░ 60% 600/1,000 · 300/s · 1.3 s · sorting · Esc cancels · …",
        ],
        120: [
            " Data                   │  Name ↑                 Age Status                             City",
            "  ◆ People              │  …",
            "  $ Orders              │  …",
            "                        │  …",
            " System                 │  …",
            "⠸ sort name ██████░░░░ 60% 600/1,000 · 300/s · 1.3 s · sorting · Esc cancels · row 1 of 1,000,000 · sort: Name ↑",
        ],
    ]
    /// After Esc: the order before the sort, its rows on screen at once.
    static let cancelled: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "  name2              22 done      Kyoto",
            "cancelled sort name · row 1 of 1,000,000",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "cancelled sort name · row 1 of 1,000,000",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            " System                 │  name3                   23 todo                               Lima",
            "cancelled sort name · row 1 of 1,000,000",
        ],
    ]

    /// `export` is counted by the host: the bar shows the rows written of the total and the rate.
    @Test(arguments: [40, 80, 120])
    func exportShowsTheHostsCountAndRate(width: Int) {
        var s = ScreenScene(width: width, height: 5)
        s.scene.tables["people"]!.hold = { $0 >= 2000 && $0 < 1_000_000 - 1 }
        s.input(.promptClosed("export /tmp/out.csv"))
        s.input(.timer(now: 10))
        s.scene.tables["people"]!.hold = { $0 >= 4000 }
        s.scene.releaseHeld()
        s.input(.coreChanged)
        s.input(.timer(now: 12))
        #expect(s.scene.ws.job?.done == 4000)
        check(s.lines, Self.export[width], "export \(width)")
    }

    static let export: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "⠋ export /tmp/out… ░░░░░ 0% 4,000/1,000…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "⠋ export /tmp/out.csv ░░░░░░░░░░ 0% 4,000/1,000,000 · 1,000/s · 2.0 s · Esc can…",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            "⠋ export /tmp/out.csv ░░░░░░░░░░ 0% 4,000/1,000,000 · 1,000/s · 2.0 s · Esc cancels · row 1 of 1,000,000",
        ],
    ]
}
