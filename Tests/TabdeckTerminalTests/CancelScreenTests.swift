import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Esc cancels every kind of long job: the plugin gets `$/cancel` for the request the job waits
/// for, the status line says "cancelled …" once, and the UI stays usable while a job runs.
@Suite struct CancelScreenTests {
    /// The jobs of point 8, each started the way a user starts it, with the plugin's method
    /// that stays unanswered.
    enum Kind: String, CaseIterable, Sendable {
        case sort, filter, find, export, drillDown, action, actionOnAll, opening
    }

    static func start(_ kind: Kind) -> ScreenScene {
        // (An action takes at most 100,000 ids: "all" must be fewer.)
        var table = FakeTable.people(count: kind == .actionOnAll ? 50_000 : 1_000_000)
        table.filter = true
        table.children = true
        let rows = table.row
        table.row = { i in var r = rows(i); r.hasChildren = true; return r }
        table.actions = [ActionSpec(id: "archive", title: "Archive")]
        if kind == .opening { table.holdMethods = [Method.open] }
        var s = ScreenScene(Scene(tables: ["people": table]), width: 80, height: 6)
        switch kind {
        case .sort:
            s.scene.tables["people"]!.hold = { _ in true }
            s.press(.char("s"))
        case .filter:
            s.scene.tables["people"]!.hold = { _ in true }
            s.input(.promptClosed("filter name7"))
        case .find:
            s.scene.tables["people"]!.hold = { $0 >= 300 }
            s.press(.char("/"))
            s.type("nowhere")
            s.press(.enter)
        case .export:
            s.scene.tables["people"]!.hold = { $0 >= 2000 }
            s.input(.promptClosed("export /tmp/tabdeck-never-written.csv"))
        case .drillDown:
            s.scene.tables["people"]!.holdMethods = [Method.children]
            s.press(.enter)
        case .action:
            s.scene.tables["people"]!.holdMethods = [Method.action]  // an action that runs long
            s.input(.promptClosed("action archive"))
        case .actionOnAll:  // select all, then an action: the host reads the selected ids first
            s.input(.promptClosed("select all"))
            s.scene.tables["people"]!.hold = { $0 >= 2000 }
            s.input(.promptClosed("action archive"))
        case .opening:
            break
        }
        return s
    }

    static func method(_ kind: Kind) -> String {
        switch kind {
        case .sort, .filter, .find, .export, .actionOnAll: Method.rows
        case .drillDown: Method.children
        case .action: Method.action
        case .opening: Method.open
        }
    }

    @Test(arguments: Kind.allCases)
    func escCancelsTheJobAndThePluginIsTold(kind: Kind) throws {
        var s = Self.start(kind)
        let ws = s.scene.ws
        guard let job = ws.job else { Issue.record("\(kind) runs no job: \(s.scene.failures)"); return }
        let expected: Job.Kind = switch kind {
        case .find: .find
        case .opening: .opening
        case .sort: .loading
        default: .command
        }
        #expect(job.kind == expected)
        s.input(.timer(now: 5))
        #expect(s.lines.last!.hasPrefix(JobLine.spinner[0] + " " + job.title))
        let held = Set(s.scene.held.filter { $0.method == Self.method(kind) }.map(\.id.json))
        #expect(!held.isEmpty)
        s.press(.escape)
        let cancelled = Set(s.scene.sent.filter { $0.method == Method.cancel }.compactMap { $0.params["id"] })
        #expect(!held.intersection(cancelled).isEmpty, "a $/cancel for the \(Self.method(kind)) request")
        #expect(s.scene.ws.job == nil && !s.model.wantsTicks)
        #expect(s.lines.last!.hasPrefix("cancelled " + job.title), "\(s.lines.last!)")
        #expect(s.model.ui.message?.isError == false)
    }

    /// Ctrl-C while a job runs cancels it as Esc does (the plugin is told, the screen stays);
    /// with no job it quits, as before.
    @Test(arguments: Kind.allCases)
    func ctrlCCancelsTheJobInsteadOfQuitting(kind: Kind) {
        var s = Self.start(kind)
        guard let job = s.scene.ws.job else { Issue.record("\(kind) runs no job: \(s.scene.failures)"); return }
        let held = Set(s.scene.held.filter { $0.method == Self.method(kind) }.map(\.id.json))
        s.press(.ctrl("c"))
        let cancelled = Set(s.scene.sent.filter { $0.method == Method.cancel }.compactMap { $0.params["id"] })
        #expect(!held.intersection(cancelled).isEmpty, "a $/cancel for the \(Self.method(kind)) request")
        #expect(s.model.running)
        #expect(s.scene.ws.job == nil)
        #expect(s.lines.last!.hasPrefix("cancelled " + job.title), "\(s.lines.last!)")
        s.press(.ctrl("c"))
        #expect(!s.model.running)
    }

    /// A sort cancelled with Esc: the rows of the order before it are on screen at once (no
    /// row waits as `…` for a key), and the order shown is that one.
    @Test func aCancelledSortShowsThePreviousOrderAtOnce() {
        var s = Self.start(.sort)
        #expect(s.scene.ws.job?.kind == .loading)
        s.press(.escape)
        #expect(s.scene.ws.tabs["people"]?.table?.view.sort == [])
        #expect(s.lines == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            " ▸name0                   20 todo                       Lyon",
            " ▸name1                   21 doing                      Oslo",
            " ▸name2                   22 done                       Kyoto",
            "cancelled sort name · row 1 of 1,000,000",
        ])
    }

    /// Rows a plugin does not answer: for half a second nothing changes (a quick answer shows no
    /// job at all), then the status line says what it waits for and for how long, and Esc
    /// stops waiting (the view stays where it is; a key asks again).
    @Test func rowsThatAreLateSayWhatTheyWaitFor() {
        var s = ScreenScene(width: 80, height: 5)
        s.scene.tables["people"]!.hold = { $0 >= 500 }
        s.input(.timer(now: 10))
        s.input(.promptClosed("goto 600"))
        #expect(s.scene.ws.job?.kind == .waiting)
        s.input(.timer(now: 10.3))
        #expect(s.lines.last == "row 600 of 1,000,000")
        s.input(.timer(now: 12.8))
        #expect(s.lines.last == "⠴ waiting for People · 2.5 s · Esc cancels · row 600 of 1,000,000")
        s.press(.escape)
        #expect(s.scene.ws.job == nil)
        #expect(s.lines.last == "cancelled waiting for People · row 600 of 1,000,000")
        #expect(s.scene.ws.tabs["people"]?.table?.view.cursor == 599)
    }

    /// While an export runs: the cursor moves over cached rows, another tab opens and shows its
    /// rows, the prompt opens; a command on the busy table is refused with a clear message.
    @Test(arguments: [40, 80, 120])
    func theRestOfTheUIStaysUsable(width: Int) {
        var s = ScreenScene(width: width, height: 5)
        s.scene.tables["people"]!.hold = { $0 >= 2000 && $0 < 999_000 }
        s.input(.promptClosed("export /tmp/tabdeck-never-written.csv"))
        s.input(.timer(now: 1))
        s.press(.char("j"), .char("j"))
        #expect(s.scene.ws.tabs["people"]?.table?.view.cursor == 2)
        s.press(.tab)
        #expect(s.scene.ws.selectedTab == "orders")
        s.input(.timer(now: 2.5))
        check(s.lines, Self.otherTab[width], "otherTab \(width)")
        s.press(.char("s"))
        check(s.lines, Self.refused[width], "refused \(width)")
        s.press(.char(":"))
        #expect(s.prompts == [""])
    }

    static let otherTab: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "⠴ export /tmp/tab… ░░░░░ 0% 2,000/1,000…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "⠴ export /tmp/tabdeck-never-written.csv ░░░░░░░░░░ 0% 2,000/1,000,000 · 0/s · 1…",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            "⠴ export /tmp/tabdeck-never-written.csv ░░░░░░░░░░ 0% 2,000/1,000,000 · 0/s · 1.5 s · Esc cancels · row 1 of 3",
        ],
    ]
    static let refused: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "busy: still running \"export /tmp/tabdec…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "busy: still running \"export /tmp/tabdeck-never-written.csv\" (Esc or `cancel` st…",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            "busy: still running \"export /tmp/tabdeck-never-written.csv\" (Esc or `cancel` stops it) · ⠴ export /tmp/tabdeck-never-wr…",
        ],
    ]
}
