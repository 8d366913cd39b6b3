import Foundation
import Testing
@testable import TabdeckSpool

/// While the spool computes an answer it says so at intervals, so that the core's request
/// timeout does not blame (and kill) the plugin for the spool's own sort.
@Suite(.timeLimit(.minutes(10))) struct HeartbeatTests {
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var current: Int { lock.withLock { value } }
    }

    @Test func itBeatsUntilStopped() async throws {
        let count = Count()
        let heartbeat = Heartbeat(every: 0.01) { count.add() }
        while count.current < 3 { try await Task.sleep(for: .milliseconds(5)) }  // ends by the beats, not a time
        #expect(heartbeat.stop(), "the caller learns that beats were sent (and ends their progress)")
        let after = count.current
        #expect(after >= 3)
        // No beat runs after stop returns.
        for _ in 0..<5 { await Task.yield() }
        #expect(count.current == after)
    }

    @Test func aQuickAnswerSendsNothing() {
        let count = Count()
        let heartbeat = Heartbeat(every: 3600) { count.add() }
        #expect(!heartbeat.stop())
        #expect(count.current == 0)
    }
}
