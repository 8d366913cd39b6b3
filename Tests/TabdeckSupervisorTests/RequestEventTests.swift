import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor

/// What the supervisor says about requests when it tracks them (the plugin checker's connections).
@Suite(hangGuard) struct RequestEventTests {
    @Test func cancelParamsNameTheRequest() {
        #expect(cancelledRequestID(json(#"{"id":12}"#)) == .int(12))
        #expect(cancelledRequestID(json(#"{"id":"a"}"#)) == .string("a"))
        #expect(cancelledRequestID(json(#"{"other":1}"#)) == nil)
        #expect(cancelledRequestID(.null) == nil)
    }

    @Test func reasonsNameTheRequestTheMethodAndTheTime() {
        #expect(SupervisorEvent.timedOut(tab: "t", id: .int(7), method: "rows", after: 10).reason
            == #"plugin did not answer "rows" (request 7) within 10 s"#)
        #expect(SupervisorEvent.timedOut(tab: "t", id: .string("a"), method: "initialize", after: 0.25).reason
            == #"plugin did not answer "initialize" (request "a") within 0.25 s"#)
        #expect(SupervisorEvent.cancelIgnored(tab: "t", id: .int(3), method: "rows", after: 5).reason
            == #"plugin ignored the cancel of "rows" (request 3) for 5 s; it was stopped"#)
        #expect(SupervisorEvent.stderrLine(tab: "t", line: "x").reason == nil)
    }
}
