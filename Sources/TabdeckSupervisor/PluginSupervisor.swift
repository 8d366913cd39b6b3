import Foundation
import TabdeckProtocol

/// Runs plugin processes and carries their JSON-lines traffic: the edge between the host and
/// its plugins. It reports what happens (`SupervisorEvent`) and keeps each process healthy
/// (timeouts, protocol violations, reaping); policy such as restarting is the caller's.
///
/// Every method returns quickly (`stopAll` excepted) and may be called from any thread.
/// Events arrive through `onEvent` on the supervisor's threads; hand them to your own queue,
/// and do not call `stopAll` from inside `onEvent`.
public final class PluginSupervisor: @unchecked Sendable {
    private let settings: ProcessSettings
    private let onEvent: @Sendable (SupervisorEvent) -> Void
    private let lock = NSLock()
    // Guarded by `lock`:
    private var processes: [String: PluginProcess] = [:]
    private var dropped: [String: Int] = [:]
    private var timer: DeadlineTimer? = nil

    /// Creates a supervisor.
    /// - Parameters:
    ///   - requestTimeout: how long a request may go unanswered; a `progress` notification
    ///     from the plugin gives its pending requests this long again.
    ///   - hardTimeout: the limit progress cannot extend, counted from when a request was sent.
    ///   - handshakeTimeout: the timeout of `initialize` requests.
    ///   - onEvent: receives every event, on the supervisor's threads.
    public init(
        requestTimeout: Duration = .seconds(10), hardTimeout: Duration = .seconds(120),
        handshakeTimeout: Duration = .seconds(5),
        onEvent: @escaping @Sendable (SupervisorEvent) -> Void
    ) {
        ignoreSIGPIPE()
        settings = ProcessSettings(requestTimeout: requestTimeout, hardTimeout: hardTimeout, handshakeTimeout: handshakeTimeout)
        self.onEvent = onEvent
        let timer = DeadlineTimer(name: "tabdeck.supervisor.timer") { [weak self] now in
            self?.expireRequests(now: now)
        }
        lock.withLock { self.timer = timer }
    }

    deinit {
        timer?.shutdown()
    }

    /// Starts the plugin process of `spec.tab`: stdin, stdout and stderr on pipes, in a
    /// process group of its own, stderr appended to `spec.logFile`.
    /// - Throws: `SupervisorError` naming the tab and the command: command not found, not
    ///   executable, working directory or log file unavailable, already running, ...
    public func start(_ spec: PluginSpec) throws(SupervisorError) {
        lock.lock()
        defer { lock.unlock() }
        if processes[spec.tab] != nil { throw .alreadyRunning(tab: spec.tab) }
        let process = try PluginProcess.launch(
            spec, settings: settings, emit: onEvent,
            onFinished: { [weak self] process in self?.forget(process) },
            onDroppedReply: { [weak self] in self?.countDroppedReply(spec.tab) })
        processes[spec.tab] = process
    }

    /// Sends one message (encoded as one line) to the plugin's stdin without waiting for the
    /// plugin to read it. A request starts its timer (`initialize`: the handshake timeout);
    /// a `$/cancel` notification stops the timer of the request it names, whose reply will
    /// then be dropped.
    /// - Throws: `SupervisorError` when the tab is not running, its stdin is closed (it is
    ///   stopping, or a write failed with EPIPE), the id is already pending, or the line is
    ///   longer than the protocol allows.
    public func send(_ message: Message, to tab: String) throws(SupervisorError) {
        guard let process = process(tab) else { throw .notRunning(tab: tab) }
        try process.send(message, now: ContinuousClock.now)
        if case .request = message {
            lock.withLock { timer }?.poke()
        }
    }

    /// Whether the tab has a process that has not yet been reported `.exited`.
    public func isRunning(_ tab: String) -> Bool {
        process(tab) != nil
    }

    /// Asks the plugin to quit and makes sure it does, without blocking: a `shutdown`
    /// request (id `"shutdown"`, its reply is not delivered), stdin closed, up to `grace`
    /// to exit, SIGTERM, up to `grace` more, SIGKILL. Ends with `.exited`.
    /// A tab that is not running (or already stopping) is left alone.
    public func stop(_ tab: String, grace: Duration = .seconds(2)) {
        process(tab)?.stop(grace: grace)
    }

    /// Stops every plugin in parallel (see `stop`) and blocks until each one is reaped and
    /// its `.exited` delivered: at most about 2 × `grace`.
    public func stopAll(grace: Duration = .seconds(2)) {
        let running = lock.withLock { Array(processes.values) }
        for process in running { process.stop(grace: grace) }
        for process in running { process.waitUntilDone() }
    }

    /// Kills the plugin's process group with SIGKILL now; `.exited` follows.
    public func kill(_ tab: String) {
        process(tab)?.kill()
    }

    /// How many replies from this tab's plugins were dropped because their id was not
    /// pending (cancelled, timed out, or never sent), over the supervisor's lifetime.
    public func droppedReplies(_ tab: String) -> Int {
        lock.withLock { dropped[tab, default: 0] }
    }

    /// The pid (and process group id) of the tab's process, for diagnostics and tests.
    func processID(_ tab: String) -> pid_t? {
        process(tab)?.pid
    }

    /// The tab's pending request ids, in the order they were sent.
    func pendingRequests(_ tab: String) -> [RequestID] {
        process(tab)?.pendingRequests ?? []
    }

    // MARK: Internals

    private func process(_ tab: String) -> PluginProcess? {
        lock.withLock { processes[tab] }
    }

    private func forget(_ process: PluginProcess) {
        lock.withLock {
            if processes[process.spec.tab] === process {
                processes[process.spec.tab] = nil
            }
        }
    }

    private func countDroppedReply(_ tab: String) {
        lock.withLock { dropped[tab, default: 0] += 1 }
    }

    /// Timer tick: fires the deadlines that passed, returns the next one.
    private func expireRequests(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let running = lock.withLock { Array(processes.values) }
        return running.compactMap { $0.expireRequests(now: now) }.min()
    }
}

/// SIGPIPE would kill the host when a plugin dies with bytes in flight; write(2) returns
/// EPIPE instead. Done once per process.
private let sigpipeIgnored: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

private func ignoreSIGPIPE() {
    _ = sigpipeIgnored
}
