import TabdeckProtocol
import TabdeckTime

/// Limits and timeouts shared by every plugin process of one supervisor. Times are seconds
/// on `clock`.
struct ProcessSettings: Sendable {
    /// Whether the supervisor keeps the ledger of each connection's requests (timeouts, cancel
    /// grace, dropping answers nobody waits for). A client that keeps its own ledger (the host's
    /// core) turns it off: a connection has one ledger, kept by whoever sends on it.
    var tracksRequests = true
    /// How long a request may go without an answer or progress.
    var requestTimeout: Double
    /// The same for `initialize`.
    var handshakeTimeout: Double
    /// How long a cancelled request may stay unanswered before the plugin is stopped.
    var cancelGrace: Double
    /// Between SIGTERM and SIGKILL when a process group is ended.
    var killGrace: Double
    /// The clock every deadline and grace period is read on.
    var clock: MonotonicClock
    /// Longest protocol line, in either direction (excluding `\n`).
    var maxLineLength = LineSplitter.defaultMaxLineLength
    /// Longer stderr lines are logged as a note saying how long they were.
    var maxStderrLineLength = ProcessSettings.stderrLineLimit
    /// The default of ``maxStderrLineLength``.
    static let stderrLineLimit = 1024 * 1024
    /// After the process group is gone, how long its pipes may stay open and idle (held by a
    /// process that left the group with setsid) before the supervisor stops waiting for them.
    /// Readers busy delivering events are not idle.
    var pipeDrainIdle = 0.5

    /// The timeout of a request: the handshake has its own.
    func timeout(forMethod method: String) -> Double {
        method == "initialize" ? handshakeTimeout : requestTimeout
    }
}
