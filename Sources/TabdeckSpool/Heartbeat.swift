import Foundation

/// Says "still working" every `interval` seconds while the spool computes an answer of its own
/// (a sort of a million rows takes seconds, more on a loaded machine): the core times out a
/// request that hears nothing, and it is the spool, not the plugin, that is busy then.
/// Answers that take less than `interval` send nothing.
final class Heartbeat: @unchecked Sendable {
    private let timer: DispatchSourceTimer
    /// A beat runs under this lock, so none runs after ``stop()`` returns.
    private let lock = NSLock()
    private var stopped = false
    private var beaten = false

    init(every interval: Double, _ beat: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            lock.withLock {
                guard !stopped else { return }
                beaten = true
                beat()
            }
        }
        timer.resume()
    }

    /// Stops the beats; no beat runs after this returns. Returns whether any beat was sent, so
    /// that the caller can end the progress the beats started (a progress bar left at
    /// "sorting rows" after the answer would stay on screen).
    @discardableResult
    func stop() -> Bool {
        timer.cancel()
        return lock.withLock {
            stopped = true
            return beaten
        }
    }

    deinit { timer.cancel() }
}
