import Foundation
import TabdeckProtocol
import TabdeckTime

/// Runs plugin processes and carries their JSON-lines traffic: the edge between the host and
/// its plugins. It reports what happens (`SupervisorEvent`) and keeps each process healthy
/// (timeouts, protocol violations, reaping); policy such as restarting is the caller's.
///
/// Every deadline and grace period is read on the injected `MonotonicClock`, so tests run the
/// supervisor on virtual time (`ManualClock`).
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
    private var droppedIDs: [String: [RequestID]] = [:]
    private var stdoutBytes: [String: Int] = [:]
    private var timer: DeadlineTimer? = nil

    /// Creates a supervisor.
    /// - Parameters:
    ///   - requestTimeout: how long a request may go without an answer or progress: every
    ///     `progress` (or `rows/chunk`) notification from the plugin gives its running requests
    ///     this long again, without limit, so long work that reports progress is never cut off.
    ///   - handshakeTimeout: the same for `initialize` requests.
    ///   - cancelGrace: how long a request the host cancelled (`$/cancel`) may stay unanswered
    ///     before the plugin is stopped (`.cancelIgnored`); progress does not extend it.
    ///   - killGrace: between SIGTERM and SIGKILL when a process group is ended (after the
    ///     plugin exited, or when a cancel was ignored).
    ///   - clock: where every deadline and grace period is read; `ManualClock` in tests.
    ///   - tracksRequests: whether the supervisor keeps each connection's ledger of requests
    ///     (the timeouts and the cancel grace above, dropping answers nobody waits for). The
    ///     host's core keeps its own (``RequestLedger``) and passes false: the supervisor then
    ///     delivers every answer and never times a request out.
    ///   - onEvent: receives every event, on the supervisor's threads.
    public init(
        requestTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(5),
        cancelGrace: Duration = .seconds(5), killGrace: Duration = PluginSupervisor.defaultKillGrace,
        clock: MonotonicClock, tracksRequests: Bool = true,
        onEvent: @escaping @Sendable (SupervisorEvent) -> Void
    ) {
        ignoreSIGPIPE()
        settings = ProcessSettings(
            tracksRequests: tracksRequests,
            requestTimeout: requestTimeout.seconds, handshakeTimeout: handshakeTimeout.seconds,
            cancelGrace: cancelGrace.seconds, killGrace: killGrace.seconds, clock: clock)
        self.onEvent = onEvent
        let timer = DeadlineTimer(name: "tabdeck.supervisor.timer", clock: clock) { [weak self] now in
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
            onDroppedReply: { [weak self] id in self?.countDroppedReply(spec.tab, id) })
        processes[spec.tab] = process
    }

    /// Sends one message (encoded as one line) to the plugin's stdin without waiting for the
    /// plugin to read it. A request starts its timer (`initialize`: the handshake timeout);
    /// a `$/cancel` notification replaces the timer of the request it names by the cancel
    /// grace (its reply, if any, will be dropped).
    /// - Throws: `SupervisorError` when the tab is not running, its stdin is closed (it is
    ///   stopping, or a write failed with EPIPE), the id is already pending, or the line is
    ///   longer than the protocol allows.
    public func send(_ message: Message, to tab: String) throws(SupervisorError) {
        guard let process = process(tab) else { throw .notRunning(tab: tab) }
        try process.send(message, now: settings.clock.now())
        switch message {
        case .request, .notification("$/cancel", _): lock.withLock { timer }?.poke()
        default: break
        }
    }

    /// Whether the tab has a process that has not yet been reported `.exited`.
    public func isRunning(_ tab: String) -> Bool {
        process(tab) != nil
    }

    /// Time a plugin gets to exit after `shutdown` and stdin closed, and again after SIGTERM.
    public static let stopGrace: Duration = .seconds(2)
    /// Time the rest of an ended plugin's process group gets between SIGTERM and SIGKILL.
    public static let defaultKillGrace: Duration = .seconds(2)

    /// Asks the plugin to quit and makes sure it does, without blocking: a `shutdown`
    /// request (id `"shutdown"`, its reply is not delivered), stdin closed, up to `grace`
    /// to exit, SIGTERM to the group, up to `grace` more, SIGKILL. Once the plugin is gone, the
    /// rest of its group is ended (SIGTERM, the kill grace, SIGKILL). Ends with `.exited`.
    /// A tab that is not running (or already stopping) is left alone.
    public func stop(_ tab: String, grace: Duration = PluginSupervisor.stopGrace) {
        process(tab)?.stop(grace: grace.seconds)
    }

    /// Stops every plugin in parallel (see `stop`) and blocks until each one is reaped, every
    /// process of its group is gone, and its `.exited` is delivered: at most about
    /// 2 × `grace` + the kill grace on the clock.
    public func stopAll(grace: Duration = PluginSupervisor.stopGrace) {
        let running = lock.withLock { Array(processes.values) }
        for process in running { process.stop(grace: grace.seconds) }
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

    /// The ids of the last (at most 8) replies dropped because their id was not pending, oldest
    /// first: lets a diagnostic say that a plugin answered with an id that was never sent.
    public func droppedReplyIDs(_ tab: String) -> [RequestID] {
        lock.withLock { droppedIDs[tab, default: []] }
    }

    /// The pid (and process group id) of the tab's process, for diagnostics and tests.
    func processID(_ tab: String) -> pid_t? {
        process(tab)?.pid
    }

    /// The tab's pending request ids, in the order they were sent.
    func pendingRequests(_ tab: String) -> [RequestID] {
        process(tab)?.pendingRequests ?? []
    }

    /// Bytes read from the stdout of this tab's plugins, over the supervisor's lifetime
    /// (counted when each process ends, and for the running one).
    func stdoutBytesRead(_ tab: String) -> Int {
        let running = process(tab).map { process in process.state.withLock { process.stdoutBytesRead } } ?? 0
        return lock.withLock { stdoutBytes[tab, default: 0] } + running
    }

    /// The grace deadlines the tab's process is waiting out, on the clock: the current step of
    /// the quit sequence (or of a termination), and the reaper's SIGKILL of what is left of
    /// the group. For tests on a manual clock.
    func graceDeadlines(_ tab: String) -> (stop: Double?, group: Double?) {
        process(tab)?.graceDeadlines ?? (nil, nil)
    }

    /// The earliest deadline of the tab's pending requests, on the clock. For tests on a manual
    /// clock that move it on to a stalled plugin's timeout.
    func earliestRequestDeadline(_ tab: String) -> Double? {
        process(tab)?.earliestRequestDeadline
    }

    /// Fires the deadlines that have passed now, as the timer thread does; for tests that
    /// check on a manual clock that nothing is due yet.
    func fireDueDeadlines() {
        _ = expireRequests(now: settings.clock.now())
    }

    // MARK: Internals

    private func process(_ tab: String) -> PluginProcess? {
        lock.withLock { processes[tab] }
    }

    private func forget(_ process: PluginProcess) {
        let read = process.state.withLock { process.stdoutBytesRead }
        lock.withLock {
            stdoutBytes[process.spec.tab, default: 0] += read
            if processes[process.spec.tab] === process {
                processes[process.spec.tab] = nil
            }
        }
    }

    private func countDroppedReply(_ tab: String, _ id: RequestID) {
        lock.withLock {
            dropped[tab, default: 0] += 1
            droppedIDs[tab, default: []].append(id)
            if droppedIDs[tab]!.count > 8 { droppedIDs[tab]!.removeFirst() }
        }
    }

    /// Timer tick: fires the deadlines that passed, returns the next one.
    private func expireRequests(now: Double) -> Double? {
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
