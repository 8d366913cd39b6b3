import Foundation
import TabdeckProtocol
import TabdeckSupervisor
import TabdeckTime

/// How a request ended, as the checker sees it.
enum Answer: Sendable {
    case result(JSONValue, Duration)
    case error(RPCError, Duration)
    /// The supervisor's timer fired (the host would fail the request).
    case timedOut(Duration)
    /// The process ended while the request was pending.
    case exited(PluginExit)
    /// The plugin wrote a line the host cannot accept; the supervisor killed it.
    case violation(String)
    /// The message could not even be sent (stdin closed, not running).
    case notSent(String)
    /// A reply came with an id the checker never sent (the supervisor dropped it): the
    /// request's number echoed back as a string (said at once), or any such reply while the
    /// request went unanswered (said instead of the timeout).
    case misaddressed(RequestID)
}

/// One plugin process run through `PluginSupervisor`, the way the host runs it: the
/// checker sends messages and waits for answers; every event is kept for later checks
/// (notifications, stderr, exit).
final class PluginSession: @unchecked Sendable {
    static let tab = "check"

    let supervisor: PluginSupervisor
    let tracer: ProtocolTracer?
    private let condition = NSCondition()
    // Guarded by `condition`:
    /// Readings of ``clock``.
    private var replies: [RequestID: (Message, Double)] = [:]
    private var timedOut: Set<RequestID> = []
    private var sentAt: [RequestID: Double] = [:]
    /// Dropped replies already looked at, and the ids among them that were never sent.
    private var explainedDrops = 0
    private var strays: [RequestID] = []
    private var exit: PluginExit?
    private var exitedAt: Double?
    private var violation: String?
    private var notifications: [(method: String, params: JSONValue)] = []
    private var pluginRequests: [String] = []
    private var nullIDErrors: [RPCError] = []
    private var invalidates = 0
    private var stderrTail: [String] = []
    /// Everything the plugin wrote to stderr: bytes (of the lines as delivered) and lines.
    private var stderrBytes = 0, stderrLines = 0
    private var nextID: Int64 = 1

    /// The checker's clock (``CheckOptions/clock``): its deadlines and the times it reports.
    let clock: any MonotonicClock

    init(timeout: Duration, handshakeTimeout: Duration, clock: any MonotonicClock, tracer: ProtocolTracer?) {
        self.tracer = tracer
        self.clock = clock
        let box = WeakBox()
        supervisor = PluginSupervisor(
            requestTimeout: timeout, handshakeTimeout: handshakeTimeout, clock: clock,
            onEvent: { event in box.session?.handle(event) })
        box.session = self
    }

    func start(command: [String], environment: [String: String], workingDirectory: String) throws(SupervisorError) {
        var env = environment
        env["TABDECK_PROTOCOL"] = env["TABDECK_PROTOCOL"] ?? String(ProtocolVersion.current)
        try supervisor.start(PluginSpec(tab: Self.tab, command: command, environment: env, workingDirectory: workingDirectory))
    }

    // MARK: Events

    private func handle(_ event: SupervisorEvent) {
        tracer?.record(event)
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        switch event {
        case .message(_, let message):
            switch message {
            case .response(let id, _), .failure(let id?, _):
                replies[id] = (message, clock.now())
            case .failure(nil, let error):
                nullIDErrors.append(error)
            case .notification(let method, let params):
                notifications.append((method, params))
                if method == Method.invalidate { invalidates += 1 }
            case .request(_, let method, _):
                pluginRequests.append(method)
            }
        case .protocolViolation(_, let reason):
            violation = reason
        case .timedOut(_, let id, _, _):
            timedOut.insert(id)
        case .cancelIgnored(_, _, _, _):
            break  // the checker's cancelled requests are answered or settled; `.exited` follows if not
        case .stderrLine(_, let line):
            stderrBytes += line.utf8.count + 1
            stderrLines += 1
            stderrTail.append(line)
            if stderrTail.count > 5 { stderrTail.removeFirst() }
        case .exited(_, let how, _):
            exit = how
            exitedAt = clock.now()
        }
    }

    /// The process has ended (or was killed for a violation).
    var isGone: Bool { condition.withLock { exit != nil || violation != nil } }

    var lastStderr: [String] { condition.withLock { stderrTail } }
    /// The stderr the plugin wrote so far: bytes and lines.
    var stderrVolume: (bytes: Int, lines: Int) { condition.withLock { (stderrBytes, stderrLines) } }

    /// How the process ended, once it has.
    var exitStatus: PluginExit? { condition.withLock { exit } }

    /// When the process ended, once it has.
    var exitTime: Double? { condition.withLock { exitedAt } }

    /// The protocol violation the supervisor killed the plugin for, if any.
    var violationReason: String? { condition.withLock { violation } }

    var invalidateCount: Int { condition.withLock { invalidates } }

    var droppedReplies: Int { supervisor.droppedReplies(Self.tab) }

    /// Everything the plugin sent that the checker judges at the end.
    var received: (notifications: [(method: String, params: JSONValue)], requests: [String], nullIDErrors: [RPCError]) {
        condition.withLock { (notifications, pluginRequests, nullIDErrors) }
    }

    // MARK: Sending

    /// A fresh request id.
    func makeID() -> RequestID {
        condition.withLock {
            defer { nextID += 1 }
            return .int(nextID)
        }
    }

    /// Sends a request without waiting; nil, or why it could not be sent.
    func post(id: RequestID, method: String, params: JSONValue) -> String? {
        let message = Message.request(id: id, method: method, params: params)
        condition.withLock { sentAt[id] = clock.now() }
        return send(message)
    }

    /// Sends a notification (or any message); nil, or why it could not be sent.
    func send(_ message: Message) -> String? {
        tracer?.sent(message, tab: Self.tab)
        do {
            try supervisor.send(message, to: Self.tab)
            return nil
        } catch {
            return error.description
        }
    }

    /// Waits for the answer to a posted request. `limit` is a safety net on top of the
    /// supervisor's own timer.
    func wait(for id: RequestID, limit: Duration) -> Answer {
        let deadline = clock.now() + limit.seconds
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let (message, at) = replies.removeValue(forKey: id) {
                let elapsed = sentAt[id].map { Duration.seconds(at - $0) } ?? .zero
                switch message {
                case .failure(_, let error): return .error(error, elapsed)
                case .response(_, let result): return .result(result, elapsed)
                default: return .result(.null, elapsed)
                }
            }
            if let violation { return .violation(violation) }
            if let exit { return .exited(exit) }
            collectStraysLocked()
            // The request's own id in another JSON type: unambiguous, said at once.
            if let stray = strays.first(where: { Self.sameDigits($0, id) }) { return .misaddressed(stray) }
            if timedOut.contains(id) {
                // A reply that came with an id never sent explains the silence better than a timeout.
                if let stray = strays.last { return .misaddressed(stray) }
                return .timedOut(sentAt[id].map { clock.since($0) } ?? limit)
            }
            // Dropped replies raise no event: look again soon.
            if !condition.wait(until: deadline, on: clock, slice: 0.02) {
                if let stray = strays.last { return .misaddressed(stray) }
                return .timedOut(sentAt[id].map { clock.since($0) } ?? limit)
            }
        }
    }

    /// Keeps the ids of replies the supervisor dropped that the checker never sent (not late
    /// answers to cancelled or timed-out requests), the last few. Caller holds `condition`.
    private func collectStraysLocked() {
        let dropped = supervisor.droppedReplyIDs(Self.tab)
        let total = supervisor.droppedReplies(Self.tab)
        guard total > explainedDrops else { return }
        let fresh = dropped.suffix(min(dropped.count, total - explainedDrops))
        explainedDrops = total
        strays = Array((strays + fresh.filter { sentAt[$0] == nil }).suffix(8))
    }

    /// The same number, one as an integer and one as a string (`5` and `"5"`).
    static func sameDigits(_ a: RequestID, _ b: RequestID) -> Bool {
        switch (a, b) {
        case (.string(let s), .int(let n)), (.int(let n), .string(let s)): s == String(n)
        default: false
        }
    }

    /// Sends a request and waits for its answer.
    func request(_ method: String, _ params: JSONValue, limit: Duration) -> Answer {
        let id = makeID()
        if let reason = post(id: id, method: method, params: params) { return .notSent(reason) }
        return wait(for: id, limit: limit)
    }

    /// Waits until the process has exited; false on timeout.
    func waitForExit(limit: Duration) -> Bool {
        let deadline = clock.now() + limit.seconds
        condition.lock()
        defer { condition.unlock() }
        while exit == nil {
            if !condition.wait(until: deadline, on: clock) { return exit != nil }
        }
        return true
    }

    /// Waits up to `limit` for more invalidate notifications than `count`; true if one came.
    func invalidated(since count: Int, within limit: Duration) -> Bool {
        let deadline = clock.now() + limit.seconds
        condition.lock()
        defer { condition.unlock() }
        while invalidates == count {
            if !condition.wait(until: deadline, on: clock) { return invalidates != count }
        }
        return true
    }

    /// Stops the plugin (shutdown, close stdin, SIGTERM, SIGKILL) and waits until it is reaped.
    func stop(grace: Duration = .seconds(2)) {
        supervisor.stop(Self.tab, grace: grace)
        _ = waitForExit(limit: grace * 2 + .seconds(2))
    }

    /// Kills the plugin if it still runs and waits for it.
    func kill() {
        guard supervisor.isRunning(Self.tab) else { return }
        supervisor.kill(Self.tab)
        _ = waitForExit(limit: .seconds(3))
    }

    private final class WeakBox: @unchecked Sendable {
        weak var session: PluginSession?
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}

