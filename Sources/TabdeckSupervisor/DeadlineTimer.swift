import Foundation

/// The supervisor's one timer thread. It calls `tick(now)` when the earliest deadline
/// `tick` last returned has come (or after `poke()`), and sleeps until the next one.
final class DeadlineTimer: @unchecked Sendable {
    typealias Instant = ContinuousClock.Instant

    private let condition = NSCondition()
    private var poked = false
    private var stopped = false

    /// Starts the thread. `tick` fires the deadlines that passed and returns the next one
    /// (nil: nothing pending, sleep until poked).
    init(name: String, tick: @escaping @Sendable (Instant) -> Instant?) {
        let thread = Thread { [self] in run(tick) }
        thread.name = name
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// A deadline earlier than the one the timer sleeps towards may exist: look again.
    func poke() {
        condition.lock()
        poked = true
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread.
    func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run(_ tick: @Sendable (Instant) -> Instant?) {
        let clock = ContinuousClock()
        while true {
            let next = tick(clock.now)
            condition.lock()
            while !poked && !stopped {
                guard let next else {
                    condition.wait()
                    continue
                }
                let remaining = clock.now.duration(to: next)
                if remaining <= .zero { break }
                // NSCondition waits on the wall clock: wake at least every second so that a
                // clock step cannot delay a deadline for long.
                _ = condition.wait(until: Date(timeIntervalSinceNow: min(remaining, .seconds(1)).seconds))
            }
            poked = false
            let done = stopped
            condition.unlock()
            if done { return }
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
