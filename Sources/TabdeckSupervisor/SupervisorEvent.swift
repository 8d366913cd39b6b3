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
    /// The plugin wrote a malformed line, or a line that grew past the limit (reported as soon
    /// as it crosses it, without waiting for its end). The supervisor has SIGKILLed its process
    /// group; `.exited` follows.
    case protocolViolation(tab: String, reason: String)
    /// A request got no reply within `after` seconds (its timeout, counted from when it was
    /// sent or from the plugin's last progress). A reply that comes later is dropped.
    /// The plugin is left running: what to do is the caller's policy.
    case timedOut(tab: String, id: RequestID, method: String, after: Double)
    /// The host cancelled a request (`$/cancel`) and, `after` seconds later (the cancel grace,
    /// which progress does not extend), the plugin had neither answered it nor answered a
    /// request sent after the cancel. The supervisor is stopping the plugin's process group
    /// (SIGTERM, then SIGKILL); `.exited` follows.
    case cancelIgnored(tab: String, id: RequestID, method: String, after: Double)
    /// A line the plugin wrote on stderr (decoded as UTF-8, lossily); also written to the log file.
    case stderrLine(tab: String, line: String)
    /// The process ended, for any reason, and so did every other process of its group.
    /// `pending` are the requests sent and not answered (not counting cancelled or timed-out
    /// ones), in the order they were sent.
    case exited(tab: String, PluginExit, pending: [RequestID])

    /// What went wrong, in words that name the request, its method and the time it had
    /// (e.g. `plugin did not answer "rows" (request 7) within 10 s`); nil for events that
    /// are not failures of a request.
    public var reason: String? {
        switch self {
        case .timedOut(_, let id, let method, let after):
            return "plugin did not answer \"\(method)\" (request \(id)) within \(secondsText(after))"
        case .cancelIgnored(_, let id, let method, let after):
            return "plugin ignored the cancel of \"\(method)\" (request \(id)) for \(secondsText(after)); it was stopped"
        default:
            return nil
        }
    }
}
