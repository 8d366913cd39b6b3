import Foundation
import TabdeckTime

/// The supervisor's one timer thread. It calls `tick(now)` when the earliest deadline
/// `tick` last returned has come on `clock` (or after `poke()`), and sleeps until the next one.
///
/// It waits as long as `clock.realWait(until:)` says: the time left on the system clock, or
/// "until woken" on a manual clock, whose `advance(by:)` pokes the timer through a waiter.
final class DeadlineTimer: @unchecked Sendable {
    private let condition = NSCondition()
    private var poked = false
    private var stopped = false
    private let clock: MonotonicClock
    private var waiterToken = 0

    /// Starts the thread. `tick` fires the deadlines that passed and returns the next one
    /// (nil: nothing pending, sleep until poked).
    init(name: String, clock: MonotonicClock, tick: @escaping @Sendable (Double) -> Double?) {
        self.clock = clock
        let thread = Thread { [self] in run(tick) }
        thread.name = name
        thread.stackSize = 256 * 1024
        waiterToken = clock.addWaiter { [weak self] in self?.poke() }
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
        clock.removeWaiter(waiterToken)
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run(_ tick: @Sendable (Double) -> Double?) {
        while true {
            let next = tick(clock.now())
            condition.lock()
            while !poked && !stopped {
                guard let next else {
                    condition.wait()
                    continue
                }
                guard let remaining = clock.realWait(until: next) else {
                    condition.wait()  // a manual clock: its advance pokes
                    continue
                }
                if remaining <= 0 { break }
                // NSCondition waits on the wall clock: wake at least every second so that a
                // wall-clock step cannot delay a deadline for long.
                _ = condition.wait(until: Date(timeIntervalSinceNow: min(remaining, 1)))
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

/// A duration in seconds as people read it: `10 s`, `0.5 s`.
func secondsText(_ seconds: Double) -> String {
    if seconds == seconds.rounded() && abs(seconds) < 1e15 { return "\(Int64(seconds)) s" }
    return "\((seconds * 1000).rounded() / 1000) s"
}
