import Foundation
import TabdeckProtocol

/// One running plugin process: its pipes, its threads (stdout reader, stderr reader, stdin
/// writer, reaper), its pending requests, and the quit sequence.
///
/// Locks: `emitLock` orders the events of this process (held while calling `emit`, so an
/// `.exited` can never overtake a `.message` or a `.timedOut`); `state` guards the fields
/// below and is never held while calling out. Order: `emitLock`, then `state`, then the writer's.
final class PluginProcess: @unchecked Sendable {
    typealias Instant = ContinuousClock.Instant

    let spec: PluginSpec
    let pid: pid_t
    let settings: ProcessSettings
    let writer: PipeWriter
    /// Delivers an event to the supervisor's consumer.
    let emit: @Sendable (SupervisorEvent) -> Void
    /// Called once the process is reaped, just before `.exited` is emitted.
    let onFinished: @Sendable (PluginProcess) -> Void
    /// Called for every reply dropped because its id was not pending.
    let onDroppedReply: @Sendable () -> Void

    let emitLock = NSLock()
    let state = NSCondition()
    // Guarded by `state`:
    var deadlines = Deadlines()
    var shutdownSent = false
    var stopping = false
    var violated = false
    var readersRunning = 2
    var readersInRead = 0
    var lastReadTransition = ContinuousClock.now
    var leaderExited = false
    var reaped = false
    /// `.exited` is decided: nothing else is emitted for this process.
    var finished = false
    /// `.exited` has been delivered.
    var done = false

    /// The internal `shutdown` request's id; its reply is swallowed.
    static let shutdownID = RequestID.string("shutdown")

    /// Spawns the process and starts its threads.
    static func launch(
        _ spec: PluginSpec, settings: ProcessSettings,
        emit: @escaping @Sendable (SupervisorEvent) -> Void,
        onFinished: @escaping @Sendable (PluginProcess) -> Void,
        onDroppedReply: @escaping @Sendable () -> Void
    ) throws(SupervisorError) -> PluginProcess {
        var log: StderrLog? = nil
        if !spec.logFile.isEmpty {
            do {
                log = try StderrLog(path: spec.logFile)
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
        onDroppedReply: @escaping @Sendable () -> Void
    ) {
        self.spec = spec
        self.pid = child.pid
        self.settings = settings
        self.emit = emit
        self.onFinished = onFinished
        self.onDroppedReply = onDroppedReply
        self.writer = PipeWriter(fd: child.stdin, name: "tabdeck.\(spec.tab).stdin")
    }

    private func startThreads(child: SpawnedChild, log: UncheckedBox<StderrLog?>) {
        let tab = spec.tab
        startReaderThread(
            name: "tabdeck.\(tab).stdout", fd: child.stdout, maxLineLength: settings.maxLineLength,
            onReading: { [self] reading in readerIsReading(reading) },
            onPiece: { [self] piece in handleStdout(piece) },
            onEnd: { [self] in readerEnded() })
        startReaderThread(
            name: "tabdeck.\(tab).stderr", fd: child.stderr, maxLineLength: settings.maxStderrLineLength,
            onReading: { [self] reading in readerIsReading(reading) },
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
    /// stops the timer of the request it names.
    func send(_ message: Message, now: Instant) throws(SupervisorError) {
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
        case .request(let id, let method, _):
            guard deadlines.insert(id, method: method, timeout: settings.timeout(forMethod: method), hardTimeout: settings.hardTimeout, now: now) else {
                throw .duplicateRequestID(tab: spec.tab, id: id)
            }
            registered = id
        case .notification("$/cancel", let params):
            if let id = cancelledRequestID(params) {
                deadlines.remove(id)
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

    /// Emits `.timedOut` for the requests whose deadline passed; returns the next deadline.
    func expireRequests(now: Instant) -> Instant? {
        emitLock.lock()
        defer { emitLock.unlock() }
        state.lock()
        if finished {
            state.unlock()
            return nil
        }
        let expired = deadlines.expire(now: now)
        let next = deadlines.earliest
        state.unlock()
        for request in expired {
            emit(.timedOut(tab: spec.tab, id: request.id, method: request.method))
        }
        return next
    }

    /// The pending request ids, in the order they were sent.
    var pendingRequests: [RequestID] {
        state.lock()
        defer { state.unlock() }
        return deadlines.pendingIDs
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
