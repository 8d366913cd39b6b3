import TabdeckProtocol
import TabdeckSupervisor

/// A tab's plugin behind the host's spool: a ``PluginEndpoint`` that wraps the plugin's own
/// endpoint (its process) and gives the core sorting, paging, filtering and export when the
/// plugin cannot sort or page. The ``SpoolRouter`` of the tab does the work:
/// - the core's messages go through ``SpoolRouter/outgoing(_:tab:)``: what the spool answers
///   is traced `⇢` and not sent, the rest goes to the plugin unchanged;
/// - the plugin's events go through ``SpoolRouter/incoming(_:tab:)`` (replies to the spool's
///   own `"spool-N"` requests stay here) and ``SpoolRouter/pluginEnded(tab:)`` (its exit
///   deletes the spool);
/// - the spool times nothing out: the core's ledger does, for the requests it waits for, and
///   the spool reports progress on every arrival while a core request waits for its rows;
/// - the spool's own requests go to the plugin's endpoint, and its answers and announcements
///   reach the core as ``EndpointEvent/host(tab:_:)``, traced `⇠`.
///
/// Whether a tab is spooled is decided by its plugin's `initialize` result (no `sort`, or
/// `paging: false`); until then, and for plugins that sort and page, it passes everything through.
public final class SpooledEndpoint: PluginEndpoint, @unchecked Sendable {
    public let tab: String
    private let trace: (any EndpointTrace)?
    private let onEvent: EndpointEvents
    // Set once in `init`, then only read.
    private var router: SpoolRouter!
    private var plugin: (any PluginEndpoint)!

    /// Wraps the endpoint that `connect` makes (given the callback for its events, which this
    /// endpoint filters before passing them to `onEvent`). The spool file lives in `folder`.
    /// `viewsSoFar`: see ``SpoolRouter/viewsSoFar``.
    public init(tab: String, folder: String, viewsSoFar: Bool = true, trace: (any EndpointTrace)?, onEvent: @escaping EndpointEvents,
                connect: (_ onEvent: @escaping EndpointEvents) -> any PluginEndpoint) {
        self.tab = tab
        self.trace = trace
        self.onEvent = onEvent
        router = SpoolRouter(folder: folder, viewsSoFar: viewsSoFar, send: { [weak self] _, message in self?.sendOwn(message) },
                             deliver: { tab, message in
            trace?.fromSpool(message, tab: tab)
            onEvent(.host(tab: tab, message))
        })
        plugin = connect { [weak self] event in self?.received(event) }
    }

    /// Whether the tab's plugin is answered from the spool (it lacks `sort` or `paging`).
    public var isSpooled: Bool { router.isSpooled(tab: tab) }

    /// Whether rows are still arriving into the spool (``SpoolRouter/isFilling(tab:)``).
    public var isFilling: Bool { router.isFilling(tab: tab) }

    public var isRunning: Bool { plugin.isRunning }

    public func start(_ spec: PluginSpec) throws(SupervisorError) {
        try plugin.start(spec)
    }

    public func send(_ message: Message) throws(SupervisorError) {
        if router.outgoing(message, tab: tab) {  // answered from the spool
            trace?.toSpool(message, tab: tab)
            return
        }
        try plugin.send(message)
    }

    public func stop() { plugin.stop() }

    public func kill() { plugin.kill() }

    /// Deletes the spool, then lets the plugin's endpoint go.
    public func close() {
        router.removeAll()
        plugin.close()
    }

    /// A request of the spool's own (filling it); a failure is traced by the plugin's endpoint,
    /// and the spool learns of a dead plugin from its exit.
    private func sendOwn(_ message: Message) {
        try? plugin.send(message)
    }

    /// An event of the plugin: what the spool keeps stays here, the rest goes on to the core.
    private func received(_ event: EndpointEvent) {
        switch event {
        case .plugin(.message(_, let message)):
            if router.incoming(message, tab: tab) { return }
        case .plugin(.exited):
            router.pluginEnded(tab: tab)
        default:
            break
        }
        onEvent(event)
    }
}
