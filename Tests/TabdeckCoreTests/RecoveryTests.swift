import Testing
import TabdeckCore
import TabdeckProtocol

/// A tab survives its plugin: the restart replays the session, failed requests back off, and
/// running work can be cancelled. Virtual time: the harness's `now` is moved by hand.
@Suite struct RecoveryTests {
    /// A harness on the screen's path (`refresh`, 20 rows in view) whose plugin hands out
    /// table handles per process.
    func screenHarness(children: Bool = false, failRows: Bool = false, badRows: Bool = false) -> Harness {
        var h = Harness(count: 1000)
        h.plugins["people"]!.handlesPerProcess = true
        h.plugins["people"]!.children = children
        h.plugins["people"]!.failRows = failRows
        h.plugins["people"]!.badRows = badRows
        h.plugins["people"]!.filters = true
        h.feed(.viewport(rows: 20))
        h.feed(.refresh)
        return h
    }

    func rowsRequests(_ h: Harness, since: Int = 0) -> [JSONValue] {
        h.sends(Method.rows).dropFirst(since).map(\.2)
    }

    @Test func aCrashRestartsThePluginAndReplaysTheWholeSession() throws {
        var h = screenHarness(children: true)
        #expect(h.run("sort id desc") != nil)
        #expect(h.run("filter 9") != nil)
        #expect(h.run("column hide name") != nil)
        #expect(h.run("goto 30") != nil)
        #expect(h.run("select 99 199") != nil)
        let rootRow = try #require(h.ws.tabs["people"]!.table!.cache.row(at: 29)).id
        #expect(h.run("open") != nil, "\(h.lastFailure ?? "")")
        #expect(h.run("goto 7") != nil)
        #expect(h.ws.tabs["people"]!.stack.count == 2)
        let before = h.effects.count

        h.feed(.plugin(tab: "people", .exited("exited with status 3")))
        let tab = h.ws.tabs["people"]!
        #expect(tab.problem == "plugin exited with status 3")
        #expect(h.effects[before...].contains(.wake(at: 0.5)))
        // Nothing is asked of a dead plugin however often the screen refreshes.
        let sent = h.sends(Method.rows).count
        for _ in 0..<50 { h.feed(.refresh); h.feed(.cursor(delta: 1)); h.feed(.cursor(delta: -1)) }
        #expect(h.sends(Method.rows).count == sent)
        #expect(h.sends(Method.initialize).count == 1)

        // The backoff passes: the plugin starts, and the stack is opened again level by level.
        h.now = 0.5
        h.feed(.wake)
        #expect(h.sends(Method.initialize).count == 2)
        #expect(h.sends(Method.open).count == 2)
        let reopenedChild = h.sends(Method.children).last!.2
        #expect(reopenedChild["table"]?.stringValue == "root@2")
        #expect(reopenedChild["row"]?.stringValue == rootRow)
        let t = h.ws.tabs["people"]!
        #expect(t.problem == nil)
        #expect(t.notice == "plugin restarted (1 of 5): plugin exited with status 3")
        // Said at once too (line mode prints it on stderr; the full screen shows the notice).
        #expect(h.effects.contains(.notice(tab: "people", "plugin restarted (1 of 5): plugin exited with status 3")))
        #expect(t.shownBadge != "!")
        #expect(t.stack.count == 2)
        #expect(t.stack[0].view.sort == [SortKey("id", .descending)])
        #expect(t.stack[0].view.filter == "9")
        #expect(t.stack[0].view.columns.first { $0.id == "name" }?.hidden == true)
        #expect(t.stack[0].view.cursor == 29)
        #expect(t.stack[0].view.selection.contains("99") && t.stack[0].view.selection.contains("199"))
        #expect(t.stack[1].view.cursor == 6)
        // The rows come from the new process's child table, and the screen shows them.
        let child = try #require(rowsRequests(h).last)
        #expect(child["table"]?.stringValue == "child@2")
        #expect(t.stack[1].cache.row(at: 6) != nil)
        // Back up a level: the root is the new process's too, in the same order and filter.
        #expect(h.run("back") != nil)
        h.feed(.refresh)  // the screen refreshes after each key
        let root = try #require(rowsRequests(h).last)
        #expect(root["table"]?.stringValue == "root@2")
        #expect(root["filter"]?.stringValue == "9")
        #expect(root["sort"]?.arrayValue?.first?["column"]?.stringValue == "id")
    }

    @Test func theCursorFollowsItsRowWhenRowsMovedWhileThePluginWasDown() {
        var h = screenHarness()
        #expect(h.run("goto 50") != nil)
        #expect(h.ws.tabs["people"]!.table!.cache.row(at: 49)?.id == "49")
        h.feed(.plugin(tab: "people", .exited("was killed by signal 9")))
        h.plugins["people"]!.idOffset = -5  // five rows were inserted at the top meanwhile
        h.now = 1
        h.feed(.wake)
        let t = h.ws.tabs["people"]!.table!
        #expect(t.view.cursor == 54)
        #expect(t.cache.row(at: t.view.cursor)?.id == "49")
    }

    @Test func aLevelThatCannotBeOpenedAgainIsDroppedAndSaid() {
        var h = screenHarness(children: true)
        #expect(h.run("open") != nil)
        h.feed(.plugin(tab: "people", .exited("exited with status 1")))
        h.plugins["people"]!.failChildren = true
        h.now = 1
        h.feed(.wake)
        let t = h.ws.tabs["people"]!
        #expect(t.stack.count == 1)
        #expect(t.notice?.contains("could not be opened again") == true)
        #expect(h.run("show 1") != nil)
    }

    @Test func theCrashBudgetLeavesTheTabDownSayingHowToRetryAndOtherTabsWork() {
        var h = screenHarness()
        for i in 0..<5 {
            // Each crash comes right after the restart its backoff allowed (0.5, 1, 2, 4 s).
            h.feed(.plugin(tab: "people", .exited("exited with status 2")))
            h.now += 5
            h.feed(.wake)
            #expect(h.sends(Method.initialize).count == min(i + 2, 5))
        }
        let tab = h.ws.tabs["people"]!
        guard case .down(let reason) = tab.phase else { Issue.record("not down: \(tab.phase)"); return }
        #expect(reason.contains("press r or run `restart`"))
        #expect(tab.shownBadge == "!")
        let starts = h.sends(Method.initialize).count
        h.now += 100
        h.feed(.wake)
        #expect(h.sends(Method.initialize).count == starts)  // no restart by itself
        // Another tab is untouched.
        #expect(h.run("tab select orders") != nil)
        #expect(h.run("show 2")?.json["rows"]?.arrayValue?.count == 2)
        #expect(h.run("tab select people") != nil)
        // `restart` brings it back, where it was.
        #expect(h.run("restart") != nil)
        #expect(h.ws.tabs["people"]!.problem == nil)
        #expect(h.run("show 2")?.json["rows"]?.arrayValue?.count == 2)
    }

    @Test func refreshTriesATableThatFailedToOpenAtOnce() {
        var h = Harness(count: 1000)
        h.plugins["people"]!.failOpen = true
        h.feed(.viewport(rows: 20))
        h.feed(.refresh)
        #expect(h.sends(Method.open).count == 1)
        #expect(h.ws.tabs["people"]!.openFailure?.message.contains("disk on fire") == true)
        // The screen's own refreshes (after every key) wait for the back-off.
        for _ in 0..<20 { h.feed(.refresh) }
        #expect(h.sends(Method.open).count == 1)
        // `r` (`refresh`), once the plugin behaves: tried now, and the rows come.
        h.plugins["people"]!.failOpen = false
        #expect(h.run("refresh") != nil, "\(h.lastFailure ?? "")")
        #expect(h.sends(Method.open).count == 2)
        #expect(h.ws.tabs["people"]!.openFailure == nil)
        #expect(h.run("show 2")?.json["rows"]?.arrayValue?.count == 2)
    }

    /// `r` while the host is still stopping a plugin that speaks another protocol version (it is
    /// in its grace period): the restart waits for the old process to end, then starts a new one,
    /// and does not fail with the old error.
    @Test func restartDuringAStopWaitsForTheOldProcess() {
        var h = Harness(count: 1000)
        h.plugins["people"]!.protocolVersion = ProtocolVersion.current + 1
        h.plugins["people"]!.slowStop = true
        h.feed(.viewport(rows: 20))
        h.feed(.refresh)
        guard case .down = h.ws.tabs["people"]!.phase else { Issue.record("\(h.ws.tabs["people"]!.phase)"); return }
        #expect(h.stopping == ["people"], "the host is stopping the plugin")
        h.plugins["people"]!.protocolVersion = ProtocolVersion.current  // the plugin was fixed meanwhile
        let failed = h.failures.count
        h.feed(.command("refresh"))
        #expect(h.failures.count == failed, "\(h.failures)")
        #expect(h.sends(Method.initialize).count == 1, "no second process before the first is gone")
        h.exitStopped("people")
        #expect(h.failures.count == failed, "\(h.failures)")
        #expect(h.sends(Method.initialize).count == 2)
        #expect(h.outputs.last?.text.hasPrefix("restarted") == true, "\(h.outputs.map(\.text))")
        #expect(h.run("show 2")?.json["rows"]?.arrayValue?.count == 2, "\(h.lastFailure ?? "")")
    }

    @Test func crashesOlderThanTheWindowNoLongerCount() {
        var h = screenHarness()
        for _ in 0..<4 {
            h.feed(.plugin(tab: "people", .exited("exited with status 2")))
            h.now += 5
            h.feed(.wake)
        }
        h.now += 61  // the four crashes leave the 60 s window
        h.feed(.plugin(tab: "people", .exited("exited with status 2")))
        guard case .failed = h.ws.tabs["people"]!.phase else { Issue.record("\(h.ws.tabs["people"]!.phase)"); return }
        h.now += 0.5
        h.feed(.wake)
        #expect(h.ws.tabs["people"]!.notice == "plugin restarted (1 of 5): plugin exited with status 2")
    }

    /// An error answer and a result of the wrong shape alike (a timeout kills the plugin: it is
    /// a crash, with the crash budget's backoff).
    @Test(arguments: ["error answer", "bad result"])
    func aPluginFailingEveryRowsIsAskedAtMostTenTimesInTenSeconds(_ failure: String) {
        var h = screenHarness(failRows: failure == "error answer", badRows: failure == "bad result")
        h.feed(.plugin(tab: "people", .message(.notification(method: "badge", params: ["value": 1]))))
        // Ten seconds of a busy screen: events every 10 ms, wake-ups as asked.
        var wakes: [Double] = []
        for step in 1...1000 {
            h.now = Double(step) * 0.01
            let seen = h.effects.count
            if step % 3 == 0 { h.feed(.plugin(tab: "people", .message(.notification(method: "badge", params: ["value": .int(Int64(step))])))) }
            if step % 7 == 0 { h.feed(.refresh) }
            if let due = wakes.first, due <= h.now { wakes.removeFirst(); h.feed(.wake) }
            for case .wake(let at) in h.effects[seen...] { wakes.append(at); wakes.sort() }
        }
        let sent = h.sends(Method.rows).count  // everything since the plugin started, at t = 0
        // 2 pages at first (the view and its read-ahead), then the page in view alone, after its
        // own backoff: at 0.25, 0.75, 1.75, 3.75 and 7.75 s (the failed read-ahead page waits
        // until it is needed).
        #expect(sent == 7, "\(sent) rows requests in 10 s")
        let tab = h.ws.tabs["people"]!
        #expect(tab.problem?.hasPrefix("rows 1–100: ") == true, "\(tab.problem ?? "nil")")
        let said = failure == "error answer" ? "the plugin says: disk on fire" : "bad result: result.rows: expected an array, got a string"
        #expect(tab.problem == "rows 1–100: " + said, "\(tab.problem ?? "nil")")
        #expect(tab.shownBadge == "!")
        // A command says what failed at once instead of waiting for the backoff.
        h.feed(.command("show 3"))
        #expect(h.lastFailure?.hasPrefix("rows 1–100") == true, "\(h.lastFailure ?? "nil")")
        // The plugin behaves again: the next try (at most 30 s on) brings the rows back.
        h.plugins["people"]!.failRows = false
        h.plugins["people"]!.badRows = false
        h.now += 30
        h.feed(.wake)
        #expect(h.ws.tabs["people"]!.problem == nil)
        #expect(h.run("show 3")?.json["rows"]?.arrayValue?.count == 3)
    }

    @Test func cancelStopsTheRunningCommandAndTellsThePlugin() {
        var h = Harness(count: 1000)
        h.feed(.viewport(rows: 20))
        #expect(h.run("show 1") != nil)
        h.plugins["people"]!.holdRows = true
        h.feed(.command("export /tmp/never.csv"))
        #expect(h.ws.isBusy)
        h.feed(.command("cancel"))
        #expect(h.outputs.last?.text == "cancelled \"export /tmp/never.csv\"")
        #expect(!h.ws.isBusy)
        #expect(h.failures.last == "cancelled \"export /tmp/never.csv\"")
        let cancels = h.effects.filter { if case .send(_, .notification(Method.cancel, _)) = $0 { true } else { false } }
        #expect(!cancels.isEmpty)
        #expect(h.run("cancel")?.text == "nothing to cancel")
        // The Esc / Ctrl-C path does the same without a command.
        h.feed(.command("export /tmp/never.csv"))
        h.feed(.cancel)
        #expect(!h.ws.isBusy)
    }
}
