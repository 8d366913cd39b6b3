import Foundation
import Logging
import TabdeckCore
import TabdeckProtocol
import TabdeckSpool
import TabdeckStore
import TabdeckSupervisor
import TabdeckTerminal
import TabdeckTime

/// Endpoint events into the event queue, translated into the core's events.
extension Runtime {
    /// Puts an endpoint's event on the queue. A plugin's reader thread waits while its tab has
    /// too many events queued (it holds no lock the main thread needs); the timer, the reaper
    /// and the host's own threads (the spool's answers) never wait.
    static func enqueue(_ event: EndpointEvent, on queue: EventQueue) {
        switch event {
        case .plugin(let event):
            guard let translated = translate(event) else { return }
            if case .message = event { queue.put(translated, mayWait: true) } else { queue.put(translated) }
        case .host(let tab, let message):
            queue.put(.plugin(tab: tab, .message(message)))
        }
    }

    static func translate(_ event: SupervisorEvent) -> Event? {
        switch event {
        case .message(let tab, let message): .plugin(tab: tab, .message(message))
        case .protocolViolation(let tab, let reason): .plugin(tab: tab, .violation(reason))
        // The host's supervisor keeps no ledger of requests (the core's is the one): it never
        // times a request out nor judges a cancel.
        case .timedOut, .cancelIgnored: nil
        case .stderrLine(let tab, let line): .plugin(tab: tab, .stderr(line))
        case .exited(let tab, let exit, _):
            switch exit {
            case .exited(let code): .plugin(tab: tab, .exited("exited with status \(code)"))
            case .signalled(let signal): .plugin(tab: tab, .exited("was killed by signal \(signal)"))
            }
        }
    }
}
