import Foundation
import Testing
import TabdeckTime
@testable import TabdeckConformance

/// The checker runs on the clock it is given (`CheckOptions.clock`): its deadlines pass when a
/// test moves a manual clock, and the times it reports are that clock's.
@Suite struct VirtualTimeTests {
    /// A plugin that never answers `initialize`: the handshake fails once 5 s have passed on the
    /// manual clock, not on the wall clock, and the report says 5 s.
    @Test func theHandshakeTimesOutOnTheInjectedClock() throws {
        let clock = ManualClock()
        let options = CheckOptions(command: ["sh", "-c", "cat > /dev/null"], timeout: .seconds(10),
                                   handshakeTimeout: .seconds(5), workingDirectory: repo, clock: clock)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var report: Report?
        DispatchQueue.global().async {
            report = try? PluginChecker(options: options).run()
            done.signal()
        }
        // Virtual time moves a second at a time until the checker is done (the wait on the
        // semaphore is only a hang guard: it bounds nothing the checker decides).
        var moved = 0.0
        while done.wait(timeout: .now() + 0.05) == .timedOut {
            #expect(moved < 600, "the checker still runs after 600 s of virtual time")
            if moved >= 600 { return }
            clock.advance(by: 1)
            moved += 1
        }
        let result = try #require(report?.result("handshake"))
        #expect(result.status == .failed, "\(report!.text)")
        // Said in virtual seconds: the deadline (5 s) or the step of the clock that passed it.
        #expect(["no answer to initialize (id 1) within 5.00 s", "no answer to initialize (id 1) within 6.00 s"]
            .contains(result.summary), "\(report!.text)")
        #expect(moved >= 5, "the deadline passed only when the clock moved past it")
    }
}
