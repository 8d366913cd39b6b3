import Testing
import TabdeckCore
import TabdeckProtocol

/// Errors for people say what failed in words, not in protocol terms (capability names,
/// JSON-RPC codes); the code stays in the log.
@Suite struct PlainErrorTests {
    @Test func aTableWithoutChildrenSaysItsRowsCannotBeOpened() {
        var h = Harness(count: 10)
        h.run("show 1")
        #expect(h.run("open") == nil)
        #expect(h.lastFailure == "rows of People cannot be opened")
    }

    @Test func aPluginErrorIsQuotedWithoutItsCodeWhichGoesToTheLog() {
        var h = Harness(count: 10)
        h.plugins["people"]!.failRows = true
        #expect(h.run("show 1") == nil)
        let failure = h.lastFailure ?? ""
        #expect(failure.contains("the plugin says: disk on fire"), "\(failure)")
        #expect(!failure.contains("code"), "\(failure)")
        let logged = h.effects.contains { if case .log(let tab, let text) = $0 { tab == "people" && text.contains("disk on fire (code -32603)") } else { false } }
        #expect(logged)
    }
}
