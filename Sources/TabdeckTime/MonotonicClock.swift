import Foundation

/// The host's one notion of time: seconds on a monotonic clock, from an arbitrary origin.
///
/// Everything that waits or times out (the supervisor's request deadlines, the event queue's
/// wake-ups, the full screen's Esc and save timers, the core's backoff through `now`) reads this
/// clock, so tests drive all of it on virtual time with ``ManualClock`` instead of sleeping.
///
/// A thread that waits for a deadline asks ``realWait(until:)`` how long to block in the real
/// world; a manual clock answers "until woken" and wakes every registered waiter when it is
/// advanced (``addWaiter(_:)``).
public protocol MonotonicClock: AnyObject, Sendable {
    /// Seconds since the clock's origin.
    func now() -> Double
    /// How long (real seconds) a thread should block to wait for `deadline` on this clock:
    /// the time left for the system clock, nil ("until something wakes you") for a manual one.
    func realWait(until deadline: Double) -> Double?
    /// Registers a wake-up called (on the advancing thread) whenever time jumps forward. The
    /// system clock never calls it. Returns a token for ``removeWaiter(_:)``.
    @discardableResult
    func addWaiter(_ wake: @escaping @Sendable () -> Void) -> Int
    /// Unregisters a wake-up.
    func removeWaiter(_ token: Int)
}

/// Real monotonic time (`ContinuousClock`), from the moment the clock was made.
public final class SystemClock: MonotonicClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Double {
        let d = ContinuousClock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    public func realWait(until deadline: Double) -> Double? { max(0, deadline - now()) }

    public func addWaiter(_ wake: @escaping @Sendable () -> Void) -> Int { 0 }

    public func removeWaiter(_ token: Int) {}
}

/// Virtual time for tests: it stands still until ``advance(by:)`` moves it, which wakes every
/// waiter so that deadlines now due fire, without any real waiting.
public final class ManualClock: MonotonicClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Double
    private var waiters: [Int: @Sendable () -> Void] = [:]
    private var nextToken = 1

    public init(now: Double = 0) { current = now }

    public func now() -> Double { lock.withLock { current } }

    public func realWait(until deadline: Double) -> Double? {
        lock.withLock { deadline <= current ? 0 : nil }
    }

    public func addWaiter(_ wake: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            let token = nextToken
            nextToken += 1
            waiters[token] = wake
            return token
        }
    }

    public func removeWaiter(_ token: Int) { lock.withLock { _ = waiters.removeValue(forKey: token) } }

    /// Moves time forward by `seconds` (not backwards) and wakes every waiter.
    public func advance(by seconds: Double) {
        precondition(seconds >= 0, "a monotonic clock does not go back")
        let wakes = lock.withLock { () -> [@Sendable () -> Void] in
            current += seconds
            return Array(waiters.values)
        }
        for wake in wakes { wake() }
    }
}
