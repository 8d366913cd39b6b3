import Foundation
import TabdeckProtocol
import TabdeckTime

/// One tab's plugin process as a ``PluginEndpoint``: a thin adapter over the
/// ``PluginSupervisor`` that traces what it writes and reads (`→`, `←`, `!`). Made by
/// ``ProcessEndpoints``, which hands it the supervisor's events of its tab.
public final class ProcessEndpoint: PluginEndpoint, @unchecked Sendable {
    public let tab: String
    private let supervisor: PluginSupervisor
    private let trace: (any EndpointTrace)?
    private let onEvent: EndpointEvents

    init(tab: String, supervisor: PluginSupervisor, trace: (any EndpointTrace)?, onEvent: @escaping EndpointEvents) {
        self.tab = tab
        self.supervisor = supervisor
        self.trace = trace
        self.onEvent = onEvent
    }

    public var isRunning: Bool { supervisor.isRunning(tab) }

    public func start(_ spec: PluginSpec) throws(SupervisorError) {
        do { try supervisor.start(spec) } catch {
            trace?.note("could not start: \(error.description)", tab: tab)
            throw error
        }
        trace?.note("started: \(spec.command.joined(separator: " "))", tab: tab)
    }

    public func send(_ message: Message) throws(SupervisorError) {
        trace?.sent(message, tab: tab)
        do { try supervisor.send(message, to: tab) } catch {
            trace?.note("could not send: \(error)", tab: tab)
            throw error
        }
    }

    public func stop() {
        if supervisor.isRunning(tab) {
            trace?.sent(.request(id: .string("shutdown"), method: "shutdown", params: .null), tab: tab)
            trace?.note("stdin closed after shutdown (the answer to shutdown is not traced)", tab: tab)
        }
        supervisor.stop(tab)
    }

    public func kill() {
        trace?.note("killed by the host (SIGKILL)", tab: tab)
        supervisor.kill(tab)
    }

    /// Nothing but the process, which ``stop()`` ends.
    public func close() {}

    /// An event of this tab's process, from the supervisor: traced, then passed on.
    func received(_ event: SupervisorEvent) {
        trace?.record(event)
        onEvent(.plugin(event))
    }
}

/// The processes of one ``PluginSupervisor`` as endpoints, one ``ProcessEndpoint`` per tab:
/// routes each supervisor event to the endpoint of its tab.
public final class ProcessEndpoints: @unchecked Sendable {
    /// The supervisor that runs the processes (diagnostics such as dropped replies).
    public let supervisor: PluginSupervisor
    private let trace: (any EndpointTrace)?
    private let routes: Routes

    /// A supervisor on `clock` that keeps no ledger of requests: the host's core keeps the one
    /// ledger of each connection and decides timeouts and the cancel grace itself (see
    /// ``PluginSupervisor/init(requestTimeout:handshakeTimeout:cancelGrace:killGrace:clock:tracksRequests:onEvent:)``).
    /// Every endpoint traces to `trace`.
    public init(clock: MonotonicClock, trace: (any EndpointTrace)? = nil) {
        let routes = Routes()
        self.routes = routes
        self.trace = trace
        supervisor = PluginSupervisor(clock: clock, tracksRequests: false,
                                      onEvent: { event in routes.endpoint(event.tab)?.received(event) })
    }

    /// The endpoint of `tab`'s process; its events go to `onEvent`. A second call for the same
    /// tab replaces the first endpoint (its events go to the new one).
    public func endpoint(tab: String, onEvent: @escaping EndpointEvents) -> ProcessEndpoint {
        let endpoint = ProcessEndpoint(tab: tab, supervisor: supervisor, trace: trace, onEvent: onEvent)
        routes.set(endpoint, tab: tab)
        return endpoint
    }

    /// Stops every process and waits until each is gone (``PluginSupervisor/stopAll(grace:)``).
    public func stopAll() {
        supervisor.stopAll()
    }

    /// The endpoints by tab, read on the supervisor's threads.
    final class Routes: @unchecked Sendable {
        private let lock = NSLock()
        private var byTab: [String: ProcessEndpoint] = [:]

        func set(_ endpoint: ProcessEndpoint, tab: String) { lock.withLock { byTab[tab] = endpoint } }
        func endpoint(_ tab: String) -> ProcessEndpoint? { lock.withLock { byTab[tab] } }
    }
}

extension SupervisorEvent {
    /// The tab whose process the event is about.
    public var tab: String {
        switch self {
        case .message(let tab, _), .protocolViolation(let tab, _), .timedOut(let tab, _, _, _),
             .cancelIgnored(let tab, _, _, _), .stderrLine(let tab, _), .exited(let tab, _, _):
            return tab
        }
    }
}
