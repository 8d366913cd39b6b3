import Dispatch

/// Says "still working" every `interval` seconds while the spool computes an answer of its own
/// (a sort of a million rows takes seconds, more on a loaded machine): the core times out a
/// request that hears nothing, and it is the spool, not the plugin, that is busy then.
/// Answers that take less than `interval` send nothing.
final class Heartbeat: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(every interval: Double, _ beat: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler(handler: beat)
        timer.resume()
    }

    /// No beat after this returns... except one already running.
    func stop() { timer.cancel() }

    deinit { timer.cancel() }
}
