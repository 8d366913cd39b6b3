import Testing
import TabdeckCore
import TabdeckProtocol

/// The core's ledger decides, on its own clock, when a request is given up: timeouts, progress
/// and the cancel grace, on virtual time (the `now` of each event).
@Suite struct RequestTimeoutTests {
    /// A harness whose `people` tab is open and whose next `rows` requests are held.
    func holding() -> (Harness, RequestID) {
        var h = Harness(count: 10)
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        h.run("sort name")
        h.feed(.command("show 3"))
        return (h, h.sends(Method.rows).last!.1)
    }

    func kills(_ h: Harness) -> Int { h.effects.filter { $0 == .killPlugin(tab: "people") }.count }

    @Test func aRequestTimesOutAtItsTimeoutAndNotBefore() {
        var (h, id) = holding()
        #expect(h.effects.contains(.wake(at: 5)), "the handshake's deadline was asked for first")
        h.now = 5
        h.feed(.wake)
        #expect(h.effects.contains(.wake(at: 10)), "then the next deadline")
        h.now = 9.999
        h.feed(.wake)
        #expect(kills(h) == 0)
        h.now = 10
        h.feed(.wake)
        #expect(kills(h) == 1)
        #expect(h.lastFailure == #"tab people: plugin did not answer "rows" (request \#(id)) within 10 s; it was stopped (was killed by signal 9)"#)
        #expect(h.ws.tabs["people"]!.error?.hasPrefix(#"plugin did not answer "rows""#) == true)
        #expect(h.ws.pendingRequests(tab: "people") == 0)
    }

    /// The runtime keeps one timer, the earliest wake-up asked for: a wake-up for something else
    /// (a restart's backoff) uses it, so the core asks again for its request deadline.
    @Test func anEarlierWakeUpForSomethingElseAsksAgainForTheDeadline() {
        var (h, _) = holding()
        h.now = 5
        h.feed(.wake)
        let asked = { (h: Harness) in h.effects.filter { $0 == .wake(at: 10) }.count }
        #expect(asked(h) == 1)
        h.now = 7
        h.feed(.wake)
        #expect(asked(h) == 2, "the wake-up at 7 used the runtime's timer: 10 is asked for again")
        h.now = 10
        h.feed(.wake)
        #expect(kills(h) == 1)
    }

    @Test func launchingBackgroundPluginsAsksForTheirHandshakeDeadline() {
        let config = WorkspaceConfig(file: "/w/config.json", directory: "/w", sections: [],
                                     tabs: [TabConfig(id: "bg", title: "Bg", section: nil, command: ["plug"], background: true)])
        var w = Workspace(config: config, storedLayout: nil, storedViews: [:])
        #expect(w.launch(now: 1).contains(.wake(at: 6)))
    }

    @Test func anAnswerTakenAfterItsDeadlineButBeforeTheWakeIsStillTheAnswer() {
        var (h, id) = holding()
        h.now = 12
        h.feed(.viewport(rows: 20))
        h.feed(.plugin(tab: "people", .message(.response(id: id, result: h.plugins["people"]!.rows(h.plugins["people"]!.held.last!.1)))))
        h.feed(.wake)
        #expect(kills(h) == 0, "the runtime takes queued events before the wake-up: only the wake gives a request up")
        #expect(h.ws.pendingRequests(tab: "people") == 0)
    }

    @Test func progressGivesRunningRequestsTheirFullTimeoutAgainWithoutLimit() {
        var (h, _) = holding()
        for step in 1...100 {
            h.now = Double(step) * 9
            h.feed(.plugin(tab: "people", .message(.notification(method: Method.progress, params: ["done": .int(Int64(step))]))))
        }
        #expect(kills(h) == 0, "15 minutes of work reporting progress every 9 s is never cut off")
        h.now = 900 + 9.999
        h.feed(.wake)
        #expect(kills(h) == 0)
        h.now = 910
        h.feed(.wake)
        #expect(kills(h) == 1)
    }

    @Test func progressOfAnotherTabDoesNotExtendThisOne() {
        var (h, _) = holding()
        h.run("tab orders")
        h.run("show 1")
        h.now = 9
        h.feed(.plugin(tab: "orders", .message(.notification(method: Method.progress, params: ["done": 1]))))
        h.now = 10
        h.feed(.wake)
        #expect(kills(h) == 1)
    }

    @Test func aCancelledRequestHasTheGraceAndIsStoppedWhenItIgnoresIt() {
        var (h, id) = holding()
        h.now = 2
        h.feed(.cancel)
        #expect(h.effects.contains(.send(tab: "people", .notification(method: Method.cancel, params: ["id": id.json]))))
        h.now = 5
        h.feed(.wake)
        #expect(h.effects.contains(.wake(at: 7)), "the wake-up asked for comes at the grace's end")
        h.now = 6
        h.feed(.plugin(tab: "people", .message(.notification(method: Method.progress, params: ["done": 1]))))
        h.now = 6.999
        h.feed(.wake)
        #expect(kills(h) == 0)
        h.now = 7
        h.feed(.wake)
        #expect(kills(h) == 1, "progress does not extend a cancelled request's grace")
        #expect(h.ws.tabs["people"]!.error?.hasPrefix(#"plugin ignored the cancel of "rows" (request \#(id)) for 5 s; it was stopped"#) == true)
    }

    @Test func aCancelledRequestAnsweredLateIsSettledAndItsAnswerIgnored() {
        var (h, id) = holding()
        h.now = 2
        h.feed(.cancel)
        let before = h.outputs.count
        h.feed(.plugin(tab: "people", .message(.response(id: id, result: RowsResult(generation: 1, offset: 0, rows: [], total: 10).json))))
        h.now = 60
        h.feed(.wake)
        #expect(kills(h) == 0)
        #expect(h.outputs.count == before)
    }

    @Test func aCancelledRequestIsSettledByTheAnswerToALaterRequest() {
        var (h, _) = holding()
        h.now = 2
        h.feed(.cancel)
        h.plugins["people"]!.holdRows = false
        h.now = 3
        h.run("show 2")
        h.now = 60
        h.feed(.wake)
        #expect(kills(h) == 0, "the plugin answered a later request: it dropped the cancelled one")
    }

    @Test func theHandshakeHasItsOwnTimeout() {
        var w = Workspace(config: sampleConfig(), storedLayout: nil, storedViews: [:])
        let effects = w.update(.command("show 1"), now: 0)
        #expect(effects.contains(.wake(at: 5)))
        #expect(!w.update(.wake, now: 4.999).contains(.killPlugin(tab: "people")))
        let late = w.update(.wake, now: 5)
        #expect(late.contains(.killPlugin(tab: "people")))
        #expect(late.contains(.log(tab: "people", "tabdeck: request 1 (initialize) timed out; killing the plugin")))
    }

    @Test func answersNobodyWaitsForAreIgnored() {
        var (h, _) = holding()
        let before = h.effects.count
        h.feed(.plugin(tab: "people", .message(.response(id: .int(9999), result: .null))))
        h.feed(.plugin(tab: "people", .message(.response(id: .string("x"), result: .null))))
        #expect(h.effects.count == before)
        #expect(h.ws.pendingRequests(tab: "people") == 1)
        #expect(h.ws.tabs["people"]!.ignoredReplies == 2)
    }

    @Test func theSettingsNameTheTimeouts() {
        var settings = CoreSettings()
        settings.requestTimeout = 2
        var w = Workspace(config: sampleConfig(), storedLayout: nil, storedViews: [:], settings: settings)
        #expect(w.update(.command("show 1"), now: 0).contains(.wake(at: 5)), "initialize keeps the handshake timeout")
    }
}
