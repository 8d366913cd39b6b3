import Testing
import TabdeckCore
import TabdeckProtocol

/// A restart does not replay silently a sorted or filtered view whose request just killed or
/// hung the plugin: its notice names the sort and filter and the commands that clear them.
@Suite struct LostViewTests {
    func harness() -> Harness {
        var h = Harness(count: 10)
        h.plugins["people"]!.filters = true
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        h.plugins["people"]!.holdRows = true
        return h
    }

    /// The backoff passes and the plugin is back, the session replayed.
    func restart(_ h: inout Harness) {
        h.plugins["people"]!.holdRows = false
        h.now += 0.5
        h.feed(.wake)
        #expect(h.ws.tabs["people"]!.phase.name == "running")
    }

    @Test func aSortWhosePageTimedOutIsNamedWithHowToClearIt() {
        var h = harness()
        h.run("sort name")
        let before = h.sends(Method.rows).count
        h.feed(.refresh)
        let id = h.sends(Method.rows)[before].1  // the first page of the new order
        h.now = 10
        h.feed(.wake)
        restart(&h)
        let notice = #"plugin restarted (1 of 5); the last request with sort name asc failed: plugin did not answer "rows" (request \#(id)) within 10 s; it was stopped (was killed by signal 9); :sort clear"#
        #expect(h.ws.tabs["people"]!.notice == notice)
        #expect(h.effects.contains(.notice(tab: "people", notice)))
    }

    @Test func aFilterWhosePageWasRunningWhenThePluginDiedIsNamed() {
        var h = harness()
        h.feed(.command("filter 9"))
        h.feed(.plugin(tab: "people", .exited("exited with status 3")))
        restart(&h)
        #expect(h.ws.tabs["people"]!.notice == #"plugin restarted (1 of 5); the last request with filter "9" failed: plugin exited with status 3; :filter clear"#)
    }

    @Test func aCrashWithNoPageOfTheViewLostSaysOnlyTheRestart() {
        var h = harness()
        h.run("sort name")
        h.plugins["people"]!.holdRows = false
        h.feed(.refresh)
        h.feed(.plugin(tab: "people", .exited("exited with status 3")))
        restart(&h)
        #expect(h.ws.tabs["people"]!.notice == "plugin restarted (1 of 5): plugin exited with status 3")
    }
}
