import TabdeckProtocol

/// What the host needs of one tab's plugin: start it, send it messages, stop or kill it, and
/// hear what it says. The runtime talks to every tab through one endpoint and nothing else.
///
/// Two kinds implement it: ``ProcessEndpoint`` (the plugin process, run by the
/// ``PluginSupervisor``) and `SpooledEndpoint` (`TabdeckSpool`: wraps a process endpoint and
/// answers the core from the host's spool when the plugin cannot sort or page). Each delivers
/// its events through the one ``EndpointEvents`` callback it was made with.
///
/// Every method returns quickly and may be called from any thread.
public protocol PluginEndpoint: AnyObject, Sendable {
    /// The tab this endpoint serves.
    var tab: String { get }
    /// Whether the plugin process runs (until its `.exited` has been reported).
    var isRunning: Bool { get }
    /// Starts the plugin process.
    /// - Throws: ``SupervisorError`` naming the tab and the command (not found, not
    ///   executable, already running, ...).
    func start(_ spec: PluginSpec) throws(SupervisorError)
    /// Sends one message of the core to the plugin (or answers it in the plugin's name).
    /// - Throws: ``SupervisorError`` when it cannot reach the plugin (not running, stdin
    ///   closed, id already pending, line too long).
    func send(_ message: Message) throws(SupervisorError)
    /// Asks the plugin to quit and makes sure it does (``PluginSupervisor/stop(_:grace:)``).
    func stop()
    /// Kills the plugin's process group now; `.exited` follows.
    func kill()
    /// The host is leaving and the plugin has been stopped: deletes whatever the endpoint keeps
    /// besides the process (the spool's file).
    func close()
}

/// What an endpoint reports, and on whose thread.
public enum EndpointEvent: Sendable, Equatable {
    /// Something the plugin process did, reported on the supervisor's threads (a `.message`
    /// comes on the plugin's reader thread, which may wait for room: backpressure).
    case plugin(SupervisorEvent)
    /// A message the host gives the core in the plugin's name (the spool's answers and
    /// announcements), on the host's own threads, which must never wait.
    case host(tab: String, Message)
}

/// The one callback through which an endpoint delivers its events.
public typealias EndpointEvents = @Sendable (EndpointEvent) -> Void

/// Where endpoints report the traffic they carry (the host's protocol trace, `ProtocolTracer`):
/// each endpoint traces what crosses its own edge.
public protocol EndpointTrace: AnyObject, Sendable {
    /// A message written to the plugin (`→`).
    func sent(_ message: Message, tab: String)
    /// An event of the plugin process: a message read from it (`←`), a violation, a timeout,
    /// its exit (`!`).
    func record(_ event: SupervisorEvent)
    /// A message of the core answered by the host in the plugin's name, never sent (`⇢`).
    func toSpool(_ message: Message, tab: String)
    /// A message the host gives the core in the plugin's name (`⇠`).
    func fromSpool(_ message: Message, tab: String)
    /// Something that is not a line on the wire (`!`).
    func note(_ text: String, tab: String)
}
