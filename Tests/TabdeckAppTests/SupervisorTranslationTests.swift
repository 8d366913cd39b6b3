import Testing
import TabdeckCore
import TabdeckProtocol
import TabdeckSupervisor
@testable import TabdeckApp

/// How the runtime hands the supervisor's events to the core.
@Suite struct SupervisorTranslationTests {
    @Test func messagesAndExitsReachTheCore() {
        #expect(Runtime.translate(.message(tab: "t", .notification(method: "badge", params: ["value": 1])))
            == .plugin(tab: "t", .message(.notification(method: "badge", params: ["value": 1]))))
        #expect(Runtime.translate(.exited(tab: "t", .signalled(9), pending: [])) == .plugin(tab: "t", .exited("was killed by signal 9")))
    }

    /// The core's ledger is the one ledger of the host's connections: the host's supervisor
    /// tracks no requests, and a request event of a tracking supervisor would not be the core's.
    @Test func requestEventsOfATrackingSupervisorAreNotTheCores() {
        #expect(Runtime.translate(.cancelIgnored(tab: "t", id: .int(7), method: "rows", after: 5)) == nil)
        #expect(Runtime.translate(.timedOut(tab: "t", id: .int(7), method: "rows", after: 10)) == nil)
    }
}
