import Foundation
import TabdeckProtocol
import TabdeckTime

/// One running plugin process: its pipes, its threads (stdout reader, stderr reader, stdin
/// writer, reaper), its pending requests, and the quit sequence.
///
/// Locks: `emitLock` orders the events of this process (held while calling `emit`, so an
/// `.exited` can never overtake a `.message` or a `.timedOut`); `state` guards the fields
/// below and is never held while calling out. Order: `emitLock`, then `state`, then the writer's.
///
/// Every wait (grace periods, idle pipes) is on `settings.clock`: a waiter registered on the
/// clock wakes threads waiting on `state` when a manual clock is advanced.
final class PluginProcess: @unchecked Sendable {

    let spec: PluginSpec
    let pid: pid_t
    let settings: ProcessSettings
    let writer: PipeWriter
    /// Delivers an event to the supervisor's consumer.
    let emit: @Sendable (SupervisorEvent) -> Void
    /// Called once the process is reaped, just before `.exited` is emitted.
    let onFinished: @Sendable (PluginProcess) -> Void
    /// Called for every reply dropped because its id was not pending, with that id.
    let onDroppedReply: @Sendable (RequestID) -> Void

    let emitLock = NSLock()
    let state = NSCondition()
    // Guarded by `state`:
    /// The requests sent and not answered, when the supervisor tracks them (``ProcessSettings/tracksRequests``).
    var deadlines = RequestLedger<Void>()
    var shutdownSent = false
    var stopping = false
    var violated = false
    var readersRunning = 2
    var readersInRead = 0
    var lastReadTransition: Double
    /// Bytes read from stdout so far.
    var stdoutBytesRead = 0
    /// The group is being ended on the host's initiative (a cancel ignored): no quit sequence.
    var terminating = false
    /// The clock time the current step of the quit sequence (or of `terminate`) waits for;
    /// tests read it to know when to advance a manual clock.
    var stopDeadline: Double? = nil
    /// The clock time the reaper sends SIGKILL to what is left of the group after SIGTERM.
    var groupDeadline: Double? = nil
    var leaderExited = false
    var reaped = false
    /// `.exited` is decided: nothing else is emitted for this process.
    var finished = false
    /// `.exited` has been delivered.
    var done = false

    /// The token of the clock waiter that wakes `state`.
    private var clockWaiter = 0

    /// The internal `shutdown` request's id; its reply is swallowed.
    static let shutdownID = RequestID.string("shutdown")

    /// Spawns the process and starts its threads.
    static func launch(
        _ spec: PluginSpec, settings: ProcessSettings,
        emit: @escaping @Sendable (SupervisorEvent) -> Void,
        onFinished: @escaping @Sendable (PluginProcess) -> Void,
        onDroppedReply: @escaping @Sendable (RequestID) -> Void
    ) throws(SupervisorError) -> PluginProcess {
        var log: StderrLog? = nil
        if !spec.logFile.isEmpty {
            do {
                log = try StderrLog(path: spec.logFile, rotation: spec.logRotation)
            } catch {
                throw .logFileUnavailable(tab: spec.tab, path: spec.logFile, errno: error.code)
            }
        }
        let child = try spawnPlugin(spec)
        let process = PluginProcess(spec: spec, child: child, settings: settings, emit: emit, onFinished: onFinished, onDroppedReply: onDroppedReply)
        process.startThreads(child: child, log: UncheckedBox(log))
        return process
    }

    private init(
        spec: PluginSpec, child: SpawnedChild, settings: ProcessSettings,
        emit: @escaping @Sendable (SupervisorEvent) -> Void,
        onFinished: @escaping @Sendable (PluginProcess) -> Void,
        onDroppedReply: @escaping @Sendable (RequestID) -> Void
    ) {
        self.spec = spec
        self.pid = child.pid
        self.settings = settings
        self.emit = emit
        self.onFinished = onFinished
        self.onDroppedReply = onDroppedReply
        self.writer = PipeWriter(fd: child.stdin, name: "tabdeck.\(spec.tab).stdin")
        self.lastReadTransition = settings.clock.now()
        let state = self.state
        clockWaiter = settings.clock.addWaiter {
            state.lock()
            state.broadcast()
            state.unlock()
        }
    }

    /// Unregisters the clock waiter (the process is done).
    func releaseClock() {
        settings.clock.removeWaiter(clockWaiter)
    }

    private func startThreads(child: SpawnedChild, log: UncheckedBox<StderrLog?>) {
        let tab = spec.tab
        startReaderThread(
            name: "tabdeck.\(tab).stdout", fd: child.stdout, maxLineLength: settings.maxLineLength, cutOverlongLines: true,
            onReading: { [self] reading, bytes in readerIsReading(reading, stdoutBytes: bytes) },
            onPiece: { [self] piece in handleStdout(piece) },
            onEnd: { [self] in readerEnded() })
        startReaderThread(
            name: "tabdeck.\(tab).stderr", fd: child.stderr, maxLineLength: settings.maxStderrLineLength, cutOverlongLines: false,
            onReading: { [self] reading, _ in readerIsReading(reading, stdoutBytes: 0) },
            onPiece: { [self] piece in handleStderr(piece, log: log.value) },
            onEnd: { [self] in
                log.value?.closeFile()
                readerEnded()
            })
        let reaper = Thread { [self] in reap() }
        reaper.name = "tabdeck.\(tab).reaper"
        reaper.stackSize = 256 * 1024
        reaper.start()
    }

    // MARK: Host → plugin

    /// Queues a message for the plugin's stdin; a request starts its timer, a `$/cancel`
    /// replaces the timer of the request it names by the cancel grace.
    func send(_ message: Message, now: Double) throws(SupervisorError) {
        var line = MessageCodec.encode(message)
        guard line.count <= settings.maxLineLength else {
            throw .messageTooLong(tab: spec.tab, byteCount: line.count, limit: settings.maxLineLength)
        }
        line.append(UInt8(ascii: "\n"))
        state.lock()
        defer { state.unlock() }
        if finished { throw .notRunning(tab: spec.tab) }
        var registered: RequestID? = nil
        switch message {
        case .request(let id, let method, _) where settings.tracksRequests:
            guard deadlines.insert(id, method: method, timeout: settings.timeout(forMethod: method), now: now) else {
                throw .duplicateRequestID(tab: spec.tab, id: id)
            }
            registered = id
        case .notification("$/cancel", let params) where settings.tracksRequests:
            if let id = cancelledRequestID(params) {
                deadlines.cancel(id, grace: settings.cancelGrace, now: now)
            }
        default:
            break
        }
        if let refused = writer.enqueue(line) {
            if let registered { deadlines.remove(registered) }
            if case .closed(let code) = refused { throw .stdinClosed(tab: spec.tab, errno: code) }
            throw .stdinClosed(tab: spec.tab, errno: nil)
        }
    }

    // MARK: Deadlines

    /// Emits `.timedOut` for the requests whose deadline passed, and `.cancelIgnored` for the
    /// cancelled ones whose grace ran out (then ends the process group); returns the next deadline.
    func expireRequests(now: Double) -> Double? {
        emitLock.lock()
        state.lock()
        if finished {
            state.unlock()
            emitLock.unlock()
            return nil
        }
        let expired = deadlines.expire(now: now)
        let next = deadlines.earliest
        state.unlock()
        var ignoredCancel = false
        for request in expired {
            switch request.expiry {
            case .timedOut(let seconds):
                emit(.timedOut(tab: spec.tab, id: request.id, method: request.method, after: seconds))
            case .cancelIgnored(let seconds):
                emit(.cancelIgnored(tab: spec.tab, id: request.id, method: request.method, after: seconds))
                ignoredCancel = true
            case .limitReached:
                break  // never: the supervisor's requests have no hard maximum (the core's do)
            }
        }
        emitLock.unlock()
        if ignoredCancel { terminate() }
        return next
    }

    /// The pending request ids, in the order they were sent.
    var pendingRequests: [RequestID] {
        state.lock()
        defer { state.unlock() }
        return deadlines.pendingIDs
    }

    /// The earliest deadline of the pending requests.
    var earliestRequestDeadline: Double? {
        state.lock()
        defer { state.unlock() }
        return deadlines.earliest
    }

    /// The grace deadlines being waited out (see `stopDeadline`, `groupDeadline`).
    var graceDeadlines: (stop: Double?, group: Double?) {
        state.lock()
        defer { state.unlock() }
        return (stopDeadline, groupDeadline)
    }

    /// Waits on `state` (held by the caller) until it is signalled, `deadline` comes on the
    /// clock, or `poll` real seconds pass, whichever is first. Returns at once if `deadline`
    /// has passed.
    func waitLocked(until deadline: Double?, poll: Double? = nil) {
        var real = deadline.flatMap { settings.clock.realWait(until: $0) }
        if let left = real, left <= 0 { return }
        if let poll { real = min(real ?? poll, poll) }
        if let real {
            _ = state.wait(until: Date(timeIntervalSinceNow: real))
        } else {
            state.wait()
        }
    }
}

/// The request a `$/cancel` notification names (`{"id": N}`).
func cancelledRequestID(_ params: JSONValue) -> RequestID? {
    guard case .object(let object) = params else { return nil }
    switch object["id"] {
    case .int(let value)?: return .int(value)
    case .string(let value)?: return .string(value)
    default: return nil
    }
}

/// Hands a non-Sendable value to the one thread that uses it.
struct UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
