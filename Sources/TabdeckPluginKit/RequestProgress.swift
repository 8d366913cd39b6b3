import Foundation
import TabdeckTime

/// `progress` notifications of a long request (PROTOCOL.md 5): the work's own reports, at most
/// ~10 a second, and while it runs a beat that repeats the last one when nothing was sent for
/// `interval` seconds, so that a phase that does not report (waiting for an index, merging,
/// sorting a table) is still heard before the host's request deadline.
public final class RequestProgress: @unchecked Sendable {
    public typealias Send = @Sendable (_ done: Double, _ total: Double?, _ message: String) -> Void

    private let send: Send
    private let clock: any MonotonicClock
    /// The longest silence while running, in seconds.
    public let interval: Double
    private let lock = NSLock()
    private var lastSent: Double
    private var done = 0.0, total: Double?, message: String
    private var timer: DispatchSourceTimer?

    /// - Parameter clock: paces the reports and beats (the plugin's, ``Notifier/clock``).
    public init(message: String, interval: Double = 0.5, clock: any MonotonicClock, send: @escaping Send) {
        self.message = message; self.interval = interval; self.clock = clock; self.send = send
        lastSent = clock.now()
    }

    /// Progress sent as notifications through `notifier`, on its clock (none without one: then
    /// nothing is sent, on a clock that stands still).
    public convenience init(message: String, notifier: Notifier?) {
        self.init(message: message, clock: notifier?.clock ?? ManualClock()) { done, total, message in
            notifier?.progress(done: done, total: total, message: message)
        }
    }

    private func now() -> Double { clock.now() }

    /// The work's progress: sent unless something was sent in the last 0.1 s.
    public func report(_ done: Int, _ all: Int) {
        let t = now()
        lock.lock()
        self.done = Double(done); total = Double(all)
        guard t - lastSent >= 0.1 else { lock.unlock(); return }
        lastSent = t
        let message = self.message
        lock.unlock()
        send(Double(done), Double(all), message)
    }

    /// A new phase of the work (its message, with no count yet), sent at once.
    public func phase(_ message: String) {
        let t = now()
        lock.lock()
        self.message = message; done = 0; total = nil; lastSent = t
        lock.unlock()
        send(0, nil, message)
    }

    /// Repeats the last progress when nothing was sent for `interval` seconds.
    public func beat() {
        let t = now()
        lock.lock()
        guard t - lastSent >= interval else { lock.unlock(); return }
        lastSent = t
        let (done, total, message) = (self.done, self.total, self.message)
        lock.unlock()
        send(done, total, message)
    }

    /// Beats every half `interval` on a background queue until ``stop()``.
    public func start() {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let ms = Int(interval * 500)
        timer.schedule(deadline: .now() + .milliseconds(ms), repeating: .milliseconds(ms))
        timer.setEventHandler { [weak self] in self?.beat() }
        lock.lock(); self.timer?.cancel(); self.timer = timer; lock.unlock()
        timer.resume()
    }

    /// Ends the beat.
    public func stop() {
        lock.lock(); let timer = self.timer; self.timer = nil; lock.unlock()
        timer?.cancel()
    }

    deinit { timer?.cancel() }
}
