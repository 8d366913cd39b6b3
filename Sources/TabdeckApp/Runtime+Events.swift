import Foundation
import Logging
import TabdeckCore
import TabdeckProtocol
import TabdeckSpool
import TabdeckStore
import TabdeckSupervisor
import TabdeckTerminal
import TabdeckTime

/// The runtime's event loop: waiting for the next event (a due wake-up among them) and
/// handling it.
extension Runtime {
    /// Handles events until `done()` holds.
    func pump(until done: () -> Bool) {
        while !done() {
            if let event = next(until: nil) { handle(event) }
            progressLine?.update(workspace)
        }
    }

    /// The next event, waiting at most until `limit` (``now()`` seconds; nil when it passes);
    /// a due wake-up comes as `.core(.wake)`. Until `holdEventsUntil` only terminal input comes
    /// (``EventQueue/take(until:holdEventsUntil:)``).
    func next(until limit: Double?, holdEventsUntil hold: Double? = nil) -> HostEvent? {
        while true {
            let deadline = [wakeAt, limit].compactMap { $0 }.min()
            if let event = queue.take(until: deadline.map { $0 + started }, holdEventsUntil: hold.map { $0 + started }) {
                return event
            }
            // Compared on the clock as the queue compares, so a due deadline is never missed by rounding.
            let clockNow = clock.now()
            if let wake = wakeAt, clockNow >= wake + started {
                wakeAt = nil
                return .core(.wake)
            }
            if let limit, clockNow >= limit + started { return nil }
        }
    }

    /// Handles the events queued now (only those: a plugin that keeps writing must not hold the
    /// caller back). `interruptQuits`: a SIGINT among them quits too (between commands, where
    /// there is no command for it to stop).
    public func takeQueuedEvents(interruptQuits: Bool) {
        for _ in 0..<queue.count {
            guard let event = queue.take(until: clock.now()) else { break }
            handle(event, interruptQuits: interruptQuits)
        }
    }

    /// Line mode handles only core events (no terminal input arrives there) and signals: SIGINT
    /// stops the running command (and quits when `interruptQuits`); SIGTERM and SIGHUP stop it
    /// and quit.
    func handle(_ event: HostEvent, interruptQuits: Bool = false) {
        switch event {
        case .core(let e): dispatch(e)
        case .signal(let number):
            dispatch(.cancel)
            if number != SIGINT || interruptQuits { quitRequested = true }
        default: break
        }
    }
}
