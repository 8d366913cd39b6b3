import Testing
import TabdeckCore
import TabdeckProtocol
import TabdeckSupervisor
@testable import TabdeckApp

/// How the runtime hands the supervisor's events to the core.
@Suite struct SupervisorTranslationTests {
    @Test func anIgnoredCancelReachesTheCoreAsAViolationNamingTheRequest() {
        let event = Runtime.translate(.cancelIgnored(tab: "t", id: .int(7), method: "rows", after: 5))
        #expect(event == .plugin(tab: "t", .violation(#"plugin ignored the cancel of "rows" (request 7) for 5 s; it was stopped"#)))
    }

    @Test func aTimeoutReachesTheCoreWithItsRequest() {
        let event = Runtime.translate(.timedOut(tab: "t", id: .int(7), method: "rows", after: 10))
        #expect(event == .plugin(tab: "t", .timedOut(.int(7), method: "rows", after: 10)))
    }
}
