import Foundation
import TabdeckTime

extension MonotonicClock {
    /// The time from `start` (an earlier reading of this clock) to now.
    func since(_ start: Double) -> Duration { .seconds(now() - start) }
}

extension NSCondition {
    /// Waits, holding the lock, until signalled or until `deadline` on `clock`: true while the
    /// deadline is still ahead, false once it has passed. A manual clock is looked at again every
    /// `slice` real seconds (it moves only when a test moves it).
    func wait(until deadline: Double, on clock: any MonotonicClock, slice: Double = 0.05) -> Bool {
        guard clock.now() < deadline else { return false }
        _ = wait(until: Date(timeIntervalSinceNow: min(clock.realWait(until: deadline) ?? slice, slice)))
        return clock.now() < deadline
    }
}
