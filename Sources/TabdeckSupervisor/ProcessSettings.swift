import TabdeckProtocol

/// Limits and timeouts shared by every plugin process of one supervisor.
struct ProcessSettings: Sendable {
    var requestTimeout: Duration
    var hardTimeout: Duration
    var handshakeTimeout: Duration
    /// Longest protocol line, in either direction (excluding `\n`).
    var maxLineLength = LineSplitter.defaultMaxLineLength
    /// Longer stderr lines are logged as a note saying how long they were.
    var maxStderrLineLength = 1024 * 1024
    /// After the process exits, how long its pipes may stay open and idle (held by a child it
    /// left behind) before the supervisor SIGKILLs its process group; after that, how long it
    /// still waits for them before giving up. Readers busy delivering events are not idle.
    var pipeDrainIdle: Duration = .milliseconds(500)

    /// The timeout of a request: the handshake has its own.
    func timeout(forMethod method: String) -> Duration {
        method == "initialize" ? handshakeTimeout : requestTimeout
    }
}
