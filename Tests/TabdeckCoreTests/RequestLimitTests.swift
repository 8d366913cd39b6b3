import Testing
import TabdeckCore
import TabdeckProtocol

/// A request's hard maximum (config.json's per-tab `"requestLimit"`, PROTOCOL.md 5): progress
/// keeps a request alive only up to it; then the request fails, gets `$/cancel`, and the
/// plugin is stopped only if it ignores the cancel. On virtual time.
@Suite struct RequestLimitTests {
    func config(limit: Double?) -> WorkspaceConfig {
        var c = sampleConfig()
        if let limit { c.tabs[0].requestLimit = limit }
        return c
    }

    /// `show 3` waiting on a `rows` request the plugin holds, as line mode waits.
    func holding(limit: Double? = 60) -> (Harness, RequestID) {
        var h = Harness(count: 10, config: config(limit: limit))
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        h.run("sort name")
        h.feed(.command("show 3"))
        return (h, h.sends(Method.rows).last!.1)
    }

    func progress(_ h: inout Harness, every step: Double, until end: Double) {
        var t = h.now
        while t + step < end {
            t += step
            h.now = t
            h.feed(.wake)
            h.notify("people", Method.progress, ["done": .int(Int64(t))])
        }
    }

    func kills(_ h: Harness) -> Int { h.effects.filter { $0 == .killPlugin(tab: "people") }.count }

    @Test func progressKeepsARequestAliveOnlyUpToItsLimitThenItFailsAndIsCancelled() {
        var (h, id) = holding()
        progress(&h, every: 9, until: 60)
        h.now = 59.999
        h.feed(.wake)
        #expect(h.failures.isEmpty, "progress every 9 s keeps it alive up to 60 s")
        #expect(h.effects.last == .wake(at: 60), "the wake-up is asked for at the limit, not 10 s after the last progress")
        h.now = 60
        h.feed(.wake)
        #expect(h.lastFailure == #"tab people: rows 1–100: plugin did not finish "rows" (request \#(id)) within 1 min; cancelled"#)
        #expect(h.effects.contains(.send(tab: "people", .notification(method: Method.cancel, params: ["id": id.json]))))
        #expect(h.ws.tabs["people"]!.problem?.contains(#"plugin did not finish "rows""#) == true, "the tab shows it")
        #expect(kills(h) == 0, "a cancel first: the plugin may still stop the work")
        h.feed(.plugin(tab: "people", .message(.failure(id: id, error: RPCError(code: -32800, message: "request cancelled")))))
        h.now = 120
        h.feed(.wake)
        #expect(kills(h) == 0)
        #expect(h.ws.tabs["people"]!.phase.name == "running")
    }

    @Test func aPluginThatIgnoresTheCancelIsStoppedAfterTheGrace() {
        var (h, id) = holding()
        progress(&h, every: 9, until: 60)
        h.now = 60
        h.feed(.wake)
        h.now = 62
        h.notify("people", Method.progress, ["done": 62])
        h.now = 64.999
        h.feed(.wake)
        #expect(kills(h) == 0)
        h.now = 65
        h.feed(.wake)
        #expect(kills(h) == 1)
        #expect(h.ws.tabs["people"]!.error?.hasPrefix(#"plugin ignored the cancel of "rows" (request \#(id)) for 5 s"#) == true)
    }

    @Test func theDefaultLimitIsHalfAnHour() {
        var (h, id) = holding(limit: nil)
        progress(&h, every: 9, until: 1800)
        #expect(h.failures.isEmpty)
        h.now = 1800
        h.feed(.wake)
        #expect(h.lastFailure == #"tab people: rows 1–100: plugin did not finish "rows" (request \#(id)) within 30 min; cancelled"#)
    }

    @Test func silenceStillTimesOutFirst() {
        var (h, _) = holding()
        h.now = 10
        h.feed(.wake)
        #expect(kills(h) == 1, "the 10 s timeout without progress is unchanged")
    }
}
