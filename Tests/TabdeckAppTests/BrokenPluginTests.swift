import Foundation
import Testing
import TabdeckCore
import TabdeckTime
@testable import TabdeckApp

/// The host against Plugins/fixtures/broken_plugin.py: every failure mode is survived and
/// reported in words a user understands.
@Suite(hangGuard) struct BrokenPluginTests {
    let dir = TempDir()
    let tag = UUID().uuidString
    var countFile: String { dir.file("count") }

    func host(_ modes: [String], settings: CoreSettings = Host.fastSettings, extraTabs: [TabSpec] = [],
              requestTimeout: Duration? = nil) throws -> Host {
        try Host(dir, tabs: [.broken(modes: modes, countFile: countFile, tag: tag)] + extraTabs,
                 settings: settings, requestTimeout: requestTimeout)
    }

    var starts: Int { Procs.started(countFile).count }

    /// The `tabs` line of the broken tab.
    func tabsLine(_ h: Host, _ id: String = "broken") async -> String {
        let r = await h.run("tabs")
        #expect(r.ok, "\(r)")
        return r.out.split(separator: "\n").first { $0.contains("[\(id)]") }.map(String.init) ?? "(no line for \(id))"
    }

    @Test func crashOnRowsFailsClearlyRestartsWithBackoffAndStaysDownAfterTheBudget() async throws {
        var settings = Host.fastSettings
        settings.baseBackoff = 0.3
        settings.maxBackoff = 0.4
        let h = try host(["crash-on-rows"], settings: settings,
                         extraTabs: [TabSpec(id: "healthy", command: ["python3", Repo.brokenPlugin, "tag=\(tag)"])])

        let first = await h.run("show")
        #expect(!first.ok)
        #expect(first.err.hasPrefix("error: tab broken:"), "\(first)")
        #expect(first.err.contains("exited with status 3"), "\(first)")
        #expect(starts == 1)

        let line = await tabsLine(h)
        #expect(line.contains("(!)"), "badge: \(line)")
        #expect(line.contains("failed"), "state: \(line)")
        if case .failed(let reason, _)? = await h.tab("broken")?.phase {
            #expect(reason.contains("exited with status 3"))
        } else {
            Issue.record("phase is \(String(describing: await h.tab("broken")?.phase))")
        }

        // The next command restarts it (after the backoff: timed on virtual time in
        // RecoveryTests.aCrashRestartsThePluginAndReplaysTheWholeSession).
        let second = await h.run("show")
        #expect(!second.ok && second.err.contains("exited with status 3"), "\(second)")
        #expect(starts == 2, "the second command restarted the plugin")

        // Crashes 3, 4 and 5 spend the budget.
        for n in 3...5 {
            let r = await h.run("show")
            #expect(!r.ok)
            #expect(starts == n)
        }
        if case .down(let reason)? = await h.tab("broken")?.phase {
            #expect(reason.contains("crashed 5 times"), "\(reason)")
            #expect(reason.contains("run `restart`"), "\(reason)")
        } else {
            Issue.record("after 5 crashes the phase is \(String(describing: await h.tab("broken")?.phase))")
        }

        // Down: no more starts, a clear message.
        let down = await h.run("show")
        #expect(!down.ok)
        #expect(down.err.contains("run `restart`"), "\(down)")
        // (That a tab that is down never restarts by itself, however long it waits, is
        // RecoveryTests.theCrashBudgetLeavesTheTabDownSayingHowToRetryAndOtherTabsWork, on virtual time.)
        let again = await h.run("show")
        #expect(!again.ok)
        #expect(starts == 5, "a plugin that is down must not restart by itself")
        #expect((await tabsLine(h)).contains("down"))

        // The other tab is not affected.
        #expect((await h.run("tab select healthy")).ok)
        let healthy = await h.run("show")
        #expect(healthy.ok, "\(healthy)")
        #expect(healthy.out.contains("juliett"))

        // `plugin restart` brings it back (open works; rows would crash again).
        let restart = await h.run("plugin restart broken")
        #expect(restart.ok, "\(restart)")
        #expect(restart.out.contains("restarted broken"))
        #expect(starts == 6)
        #expect(await h.tab("broken")?.phase.name == "running")
        #expect(!(await tabsLine(h)).contains("(!)"), "the error badge goes away once the plugin works")
        await h.shutdown()
    }

    @Test func crashOnInitFailsClearlyAndRestarts() async throws {
        let h = try host(["crash-on-init"])
        let first = await h.run("show")
        #expect(!first.ok)
        #expect(first.err.hasPrefix("error: tab broken:"), "\(first)")
        #expect(first.err.contains("exited with status 3"), "\(first)")
        let line = await tabsLine(h)
        #expect(line.contains("(!)") && line.contains("failed"), "\(line)")
        #expect(starts == 1)

        let second = await h.run("columns")
        #expect(!second.ok && second.err.contains("exited with status 3"), "\(second)")
        #expect(starts == 2)

        for _ in 3...5 { await h.run("show") }
        #expect(starts == 5)
        #expect(await h.tab("broken")?.phase.name == "down")
        let down = await h.run("show")
        #expect(!down.ok && down.err.contains("run `restart`"), "\(down)")
        #expect(starts == 5)

        // `plugin restart` tries again (the plugin still crashes, and says so).
        let restart = await h.run("plugin restart")
        #expect(!restart.ok)
        #expect(restart.err.contains("exited with status 3"), "\(restart)")
        #expect(starts == 6, "plugin restart starts the plugin once, and reports its crash")
        #expect(await h.tab("broken")?.phase.name == "failed", "a fresh crash budget after plugin restart")
        await h.shutdown()
    }

    /// On virtual time: the plugin starts and opens while the clock stands still; then the clock
    /// moves while `show` waits, and the request times out once 1.5 virtual seconds passed.
    @Test func hangOnRowsTimesOutAndTheHungPluginIsKilled() async throws {
        let clock = ManualClock()
        let h = try Host(dir, tabs: [.broken(modes: ["hang-on-rows"], countFile: countFile, tag: tag)],
                         requestTimeout: .milliseconds(1500), clock: clock)
        // Start the plugin and open the table first, so that only the `rows` request is timed.
        let columns = await h.run("columns")
        #expect(columns.ok, "\(columns)")
        let r = await h.ticking(clock) { await h.run("show") }
        #expect(!r.ok)
        #expect(r.err.contains("tab broken"), "\(r)")
        #expect(r.err.contains("did not answer \"rows\" (request"), "\(r)")
        #expect(r.err.contains("within 1.5 s"), "the timeout is named: \(r)")
        // Not before the timeout, on the host's clock (and not much after: the clock moves 0.05 s a step).
        #expect(r.seconds >= 1.5 && r.seconds < 2.5, "timed out after \(r.seconds) virtual s")
        let pids = Procs.started(countFile)
        #expect(pids.count == 1)
        await eventually { pids.allSatisfy { Procs.state($0) == nil } }  // the hung plugin is killed and reaped
        let line = await tabsLine(h)
        #expect(line.contains("(!)") && line.contains("failed"), "\(line)")
        #expect(h.log("broken").contains("timed out"))
        await h.shutdown()
    }

    @Test(arguments: [("garbage", "not JSON"), ("overlong", "longer than the limit")])
    func protocolViolationIsNamed(mode: String, detail: String) async throws {
        let h = try host([mode], extraTabs: [TabSpec(id: "healthy", command: ["python3", Repo.brokenPlugin, "tag=\(tag)"])])
        let r = await h.run("show")
        #expect(!r.ok)
        #expect(r.err.contains("tab broken: protocol violation"), "\(r)")
        #expect(r.err.lowercased().contains(detail.lowercased()), "\(r)")
        let line = await tabsLine(h)
        #expect(line.contains("(!)") && line.contains("failed"), "\(line)")
        #expect(h.log("broken").contains("protocol violation"))
        // The host goes on: other tabs work.
        #expect((await h.run("tab select healthy")).ok)
        #expect((await h.run("show")).out.contains("alpha"))
        await h.shutdown()
    }

    @Test func unknownMessagesAreIgnoredAndLogged() async throws {
        let h = try host(["unknown-message"])
        let r = await h.run("show")
        #expect(r.ok, "\(r)")
        #expect(r.out.contains("alpha") && r.out.contains("juliett"), "\(r.out)")
        #expect(r.out.contains("rows 1–10 of 10"), "\(r.out)")
        #expect(h.log("broken").contains("frobnicate"), "log: \(h.log("broken"))")
        // The reply to an id never asked is dropped, not mistaken for one of ours.
        #expect((await h.on { $0.workspace.tabs["broken"]!.ignoredReplies } ?? 0) >= 1)
        let again = await h.run("sort word desc")
        #expect(again.ok)
        let sorted = await h.run("show 1")
        #expect(sorted.ok && sorted.out.contains("juliett") && !sorted.out.contains("alpha"), "\(sorted)")
        #expect(!(await tabsLine(h)).contains("(!)"))
        #expect(starts == 1)
        await h.shutdown()
    }

    @Test func wrongProtocolVersionIsReportedAndNotRetried() async throws {
        let h = try host(["wrong-version"])
        let r = await h.run("show")
        #expect(!r.ok)
        #expect(r.err.contains("tab broken"), "\(r)")
        #expect(r.err.contains("plugin speaks protocol 99, host speaks 1"), "\(r)")
        #expect(await h.tab("broken")?.phase.name == "down")
        let again = await h.run("show")
        #expect(!again.ok && again.err.contains("protocol 99"), "\(again)")
        #expect(starts == 1, "an incompatible plugin is not restarted")
        let line = await tabsLine(h)
        #expect(line.contains("(!)") && line.contains("down"), "\(line)")
        await h.shutdown()
    }

    @Test func stderrGoesToTheLogFileAndNeverCountsAsProtocol() async throws {
        let h = try host(["stderr-noise"])
        let r = await h.run("show")
        #expect(r.ok, "\(r)")
        #expect(r.out.contains("alpha") && r.out.contains("juliett"))
        #expect((await h.run("sort n desc")).ok)
        let sorted = await h.run("show 2")
        #expect(sorted.ok && sorted.out.contains("juliett") && sorted.out.contains("india"), "\(sorted)")
        let line = await tabsLine(h)
        #expect(!line.contains("!"), "stderr lines that look like badge notifications must not set a badge: \(line)")
        #expect(line.contains("running"))
        let log = h.log("broken")
        #expect(log.contains("noise line 2: WARNING something harmless happened"))
        #expect(log.contains("\"method\":\"badge\""), "JSON-looking stderr lines are logged as text")
        #expect(log.contains("partial line"))
        #expect(log.contains("broken_plugin: pid"))
        let shown = await h.run("plugin log")
        #expect(shown.ok, "\(shown)")
        #expect(shown.out.contains("noise line"), "\(shown.out.prefix(2000))")
        #expect(starts == 1)
        await h.shutdown()
    }

    /// On virtual time: the plugin ignores `shutdown` and SIGTERM, so only the grace periods
    /// (2 s after `shutdown`, 2 s after SIGTERM, on the supervisor's clock) end it, with SIGKILL.
    @Test func shutdownOfAPluginThatIgnoresItStillEndsWithSIGKILLAndLeavesNoChild() async throws {
        let clock = ManualClock()
        let h = try Host(dir, tabs: [.broken(modes: ["ignore-shutdown"], countFile: countFile, tag: tag)], clock: clock)
        let r = await h.run("show")
        #expect(r.ok, "\(r)")
        let pids = Procs.started(countFile)
        #expect(pids.count == 1)
        #expect(Procs.children(tagged: tag).count == 1, "the plugin runs as our child")
        let took = await h.ticking(clock) { await h.shutdown() }
        #expect(took >= 4, "only the two grace periods end it (\(took) virtual s)")
        for pid in pids {
            #expect(Procs.state(pid) == nil, "plugin \(pid) is still there (state \(String(describing: Procs.state(pid))))")
        }
        #expect(Procs.children(tagged: tag).isEmpty)
    }

    @Test func escapeSequencesFromPluginsAreShownEscaped() async throws {
        let h = try host(["escape-text"])
        let r = await h.run("show")
        #expect(r.ok, "\(r)")
        for bad: Unicode.Scalar in ["\u{1B}", "\u{07}", "\u{9B}", "\u{0D}", "\u{00}"] {
            #expect(!r.out.unicodeScalars.contains(bad), "raw U+\(String(bad.value, radix: 16)) in show output")
        }
        #expect(r.out.contains("\\e[31mred\\e[0m"), "\(r.out)")
        #expect(r.out.contains("bell\\x07"), "\(r.out)")
        #expect(r.out.contains("\\x9b31mC1 CSI"), "\(r.out)")
        for command in ["columns", "selection", "tabs", "plugin status"] {
            let out = await h.run(command)
            #expect(!out.out.unicodeScalars.contains("\u{1B}") && !out.out.unicodeScalars.contains("\u{07}"), "\(command)")
        }
        await h.shutdown()
    }

    @Test func hangOnInitHitsTheHandshakeTimeout() async throws {
        let h = try Host(dir, tabs: [.broken(modes: ["hang-on-init"], countFile: countFile, tag: tag)],
                         handshakeTimeout: .milliseconds(600))
        let r = await h.run("show")
        #expect(!r.ok)
        #expect(r.err.contains("tab broken") && r.err.contains("initialize"), "\(r)")
        #expect(await h.tab("broken")?.phase.name == "failed")
        await h.shutdown()
        #expect(Procs.children(tagged: tag).isEmpty)
    }

    @Test func aPluginThatCannotStartIsReportedWithItsCommand() async throws {
        let h = try Host(dir, tabs: [TabSpec(id: "nope", command: [dir.file("no-such-plugin")]),
                                     TabSpec(id: "notexec", command: [countFile]),
                                     TabSpec(id: "fine", command: ["python3", Repo.brokenPlugin])])
        FileManager.default.createFile(atPath: countFile, contents: Data("not a program".utf8))
        let r = await h.run("show")
        #expect(!r.ok)
        #expect(r.err == "error: tab nope: command not found: \(dir.file("no-such-plugin")) (no such file)", "\(r)")
        #expect((await h.run("tab select notexec")).ok)
        let x = await h.run("show")
        #expect(!x.ok && x.err.hasPrefix("error: tab notexec: cannot execute \(countFile): "), "\(x)")
        let line = await tabsLine(h, "nope")
        #expect(line.contains("(!)") && line.contains("failed"), "\(line)")
        #expect((await h.run("tab select fine")).ok)
        #expect((await h.run("show 1")).out.contains("alpha"))
        await h.shutdown()
    }

    @Test func aPageForAnOldSortOrderIsNeverShown() async throws {
        // Pages sorted by `word` ascending are held by the plugin until cancelled, so the page
        // for the old order is still in flight when the next sort comes, however loaded the
        // machine; every other page is answered at once.
        var spec = TabSpec.broken(modes: ["slow-rows"], countFile: countFile, tag: tag)
        spec.env["BROKEN_DELAY"] = "0"
        spec.env["BROKEN_HOLD_SORT"] = "word:asc"
        let h = try Host(dir, tabs: [spec])
        let first = await h.run("show 2")
        #expect(first.ok && first.out.contains("alpha"), "\(first)")
        // `goto` asks for the view's page without waiting for it; the plugin holds it.
        #expect((await h.run("sort word")).ok)
        #expect((await h.run("goto 1")).ok)
        await eventually { (await h.on { !$0.workspace.pagesAsked(tab: "broken").isEmpty }) ?? false }
        // The sort makes that page stale: it is cancelled, and the plugin answers the
        // cancellation (-32800), which the host drops.
        #expect((await h.run("sort word desc")).ok)
        let sorted = await h.run("show 3")
        #expect(sorted.ok, "\(sorted)")
        let rows = sorted.out.split(separator: "\n").dropFirst(2).prefix(3).map { $0.split(separator: " ").last.map(String.init) ?? "" }
        #expect(rows == ["juliett", "india", "hotel"], "\(sorted.out)")
        await eventually { (await h.on { $0.workspace.tabs["broken"]!.ignoredReplies } ?? 0) >= 1 }
        await h.shutdown()
    }

    @Test func aBackgroundPluginThatHangsNeverBlocksTheOtherTabs() async throws {
        var hanging = TabSpec.broken(modes: ["hang-on-init"], countFile: countFile, tag: tag)
        hanging.background = true
        // The handshake timeout applies to the healthy plugin too: long enough for a python
        // start-up on a busy machine.
        let h = try Host(dir, tabs: [TabSpec(id: "healthy", command: ["python3", Repo.brokenPlugin, "tag=\(tag)"]), hanging],
                         handshakeTimeout: .seconds(4))
        await h.launch()
        let tabs = await h.run("tabs")
        // Not blocked: had `tabs` waited for the hanging handshake, the tab would be failed by now.
        #expect(tabs.ok && tabs.out.contains("[broken] — background, starting"), "\(tabs)")
        // The healthy tab works meanwhile. Its own handshake has the same timeout: on a machine
        // loaded enough to start python slower than that, `show` tries again after the backoff
        // (the machine's load, not the behaviour under test).
        await eventually { await h.run("show 3").out.contains("charlie") }
        // The handshake timeout then marks the hanging tab as failed, without any command waiting on it.
        await eventually { await h.run("tabs").out.contains("[broken] (!) — background, failed") }
        let status = await h.run("plugin status broken")
        #expect(status.out.contains("did not answer \"initialize\" (request"), "\(status)")
        await h.shutdown()
        #expect(Procs.children(tagged: tag).isEmpty)
    }

    @Test func aBackgroundPluginThatFailsDoesNotFailTheCommandOfAnotherTab() async throws {
        let slow = TabSpec(id: "slow", command: ["python3", Repo.brokenPlugin, "tag=\(tag)"],
                           env: ["BROKEN_MODE": "slow-rows", "BROKEN_DELAY": "2.5"])
        let dies = TabSpec(id: "dies", command: ["/bin/sh", "-c", "sleep 1; exit 7", "tag=\(tag)"], background: true)
        let h = try Host(dir, tabs: [slow, dies])
        #expect((await h.run("columns")).ok, "the slow tab is selected and open")
        await h.launch()
        // While `show` waits for the slow tab's rows, the background plugin exits.
        let show = await h.run("show 3")
        #expect(show.ok, "\(show)")
        #expect(show.out.contains("charlie"))
        #expect(show.seconds > 1.5, "the show outlasted the other plugin (\(show.seconds) s)")
        let tabs = await h.run("tabs")
        // It restarts by itself (a background tab is always in use), so it is failed or starting.
        #expect(tabs.out.contains("[dies] (!) — background, failed") || tabs.out.contains("[dies] (!) — background, starting"),
                "\(tabs.out)")
        #expect((await h.tab("dies"))?.error?.contains("exited with status 7") == true)
        await h.shutdown()
    }
}
