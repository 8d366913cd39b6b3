import TabdeckProtocol

/// What the supervisor reports about plugin processes, delivered through `onEvent`
/// from the supervisor's own threads (readers, timer, reaper).
///
/// For one process, events come in a consistent order: every `.message` and `.stderrLine`
/// comes before its `.exited`, and `.exited` comes exactly once, last.
public enum SupervisorEvent: Sendable, Equatable {
    /// A line the plugin wrote on stdout, decoded. Replies to requests that are not pending
    /// (cancelled, timed out, never sent) are not delivered.
    case message(tab: String, Message)
    /// The plugin wrote a malformed or over-long line. The supervisor has SIGKILLed it;
    /// `.exited` follows.
    case protocolViolation(tab: String, reason: String)
    /// A request got no reply in time. A reply that comes later is dropped.
    case timedOut(tab: String, id: RequestID, method: String)
    /// A line the plugin wrote on stderr (decoded as UTF-8, lossily); also written to the log file.
    case stderrLine(tab: String, line: String)
    /// The process ended, for any reason. `pending` are the requests sent and not answered
    /// (not counting cancelled or timed-out ones), in the order they were sent.
    case exited(tab: String, PluginExit, pending: [RequestID])
}
