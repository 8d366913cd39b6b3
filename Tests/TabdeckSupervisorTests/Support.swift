import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor
import TabdeckTime

/// Collects a supervisor's events and lets a test wait for them.
final class EventLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var storage: [(at: ContinuousClock.Instant, event: SupervisorEvent)] = []

    func record(_ event: SupervisorEvent) {
        condition.lock()
        storage.append((ContinuousClock.now, event))
        condition.broadcast()
        condition.unlock()
    }

    var events: [SupervisorEvent] {
        condition.lock(); defer { condition.unlock() }
        return storage.map(\.event)
    }

    /// Waits (polling, without blocking a thread of the cooperative pool) until `predicate`
    /// holds for the events so far. There is no deadline on the wall clock: how long a real
    /// process takes depends on the machine's load, never on the code under test. A wait that
    /// can never end is caught by the suites' hang guard (`hangGuard`). Events carry their own
    /// arrival times, so polling does not blur the timings tests measure.
    func wait(until predicate: ([SupervisorEvent]) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
        while !predicate(events) {
            do { try await Task.sleep(for: .milliseconds(5)) } catch {
                Issue.record("the events never matched: the hang guard cancelled the wait; events: \(events)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// Waits for the `.exited` of `tab` and returns it with when it came.
    func exited(_ tab: String) async -> (exit: PluginExit, pending: [RequestID], at: ContinuousClock.Instant)? {
        await wait { $0.contains { $0.isExited(tab) } }
        for (at, event) in timedEvents {
            if case .exited(tab, let exit, let pending) = event { return (exit, pending, at) }
        }
        return nil
    }

    private var timedEvents: [(at: ContinuousClock.Instant, event: SupervisorEvent)] {
        condition.lock(); defer { condition.unlock() }
        return storage
    }

    /// When the first event matching `predicate` came.
    func time(of predicate: (SupervisorEvent) -> Bool) -> ContinuousClock.Instant? {
        condition.lock(); defer { condition.unlock() }
        return storage.first { predicate($0.event) }?.at
    }
}

extension SupervisorEvent {
    func isExited(_ tab: String) -> Bool {
        if case .exited(tab, _, _) = self { return true }
        return false
    }

    /// The reply (result or error) to request `id`, if this is one.
    var replyID: RequestID? {
        switch self {
        case .message(_, .response(let id, _)), .message(_, .failure(let id?, _)): return id
        default: return nil
        }
    }
}

/// A supervisor whose events go to a fresh log, on `clock` (a manual clock by default: time
/// stands still unless the test advances it).
func makeSupervisor(
    requestTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(5),
    cancelGrace: Duration = .seconds(5), killGrace: Duration = .seconds(2),
    clock: MonotonicClock = ManualClock()
) -> (PluginSupervisor, EventLog) {
    let log = EventLog()
    let supervisor = PluginSupervisor(
        requestTimeout: requestTimeout, handshakeTimeout: handshakeTimeout,
        cancelGrace: cancelGrace, killGrace: killGrace, clock: clock,
        onEvent: { log.record($0) })
    return (supervisor, log)
}

/// A supervisor on a fresh manual clock, with the clock.
func makeManualSupervisor(
    requestTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(5),
    cancelGrace: Duration = .seconds(5), killGrace: Duration = .seconds(2)
) -> (PluginSupervisor, EventLog, ManualClock) {
    let clock = ManualClock()
    let (supervisor, log) = makeSupervisor(
        requestTimeout: requestTimeout, handshakeTimeout: handshakeTimeout,
        cancelGrace: cancelGrace, killGrace: killGrace, clock: clock)
    return (supervisor, log, clock)
}

/// Waits (polling, as `EventLog.wait` does) until `condition` holds, with no deadline on the
/// wall clock; a condition that never holds is caught by the suites' hang guard.
func eventually(_ condition: () -> Bool) async {
    while !condition() {
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// The one wall-clock bound of these suites: a guard against a test that hangs for good, far
/// beyond what any machine's load explains. No test's outcome depends on it.
let hangGuard = TimeLimitTrait.timeLimit(.minutes(10))

extension PluginSupervisor {
    /// Waits until the tab's quit sequence (or termination) waits for the clock to reach `at`.
    func waitForStopStep(_ tab: String, at: Double) async {
        await eventually { graceDeadlines(tab).stop == at }
    }

    /// Waits until the tab's reaper has sent SIGTERM to what is left of the group and waits
    /// for the clock to reach `at` before SIGKILL.
    func waitForGroupGrace(_ tab: String, at: Double) async {
        await eventually { graceDeadlines(tab).group == at }
    }
}

/// Advances `clock` to each grace deadline the tabs' processes wait for (the next one still
/// ahead), until `done` holds.
func drive(_ clock: ManualClock, _ supervisor: PluginSupervisor, tabs: [String], until done: @escaping () -> Bool) async {
    await eventually {
        if done() { return true }
        let now = clock.now()
        let ahead = tabs.flatMap { tab -> [Double] in
            let deadlines = supervisor.graceDeadlines(tab)
            return [deadlines.stop, deadlines.group].compactMap { $0 }
        }.filter { $0 > now }
        if let next = ahead.min() { clock.advance(by: next - now) }
        return done()
    }
}

/// A flag set by one thread and read by another.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Whether no process is left in process group `group` (`kill(-group, 0)` fails with ESRCH).
func groupIsEmpty(_ group: pid_t) -> Bool {
    kill(-group, 0) == -1 && errno == ESRCH
}

extension PluginSupervisor {
    /// `stopAll` on a thread of its own, so that its blocking does not hold a thread of the
    /// cooperative pool.
    func stopAllOffThePool(grace: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                self.stopAll(grace: grace)
                continuation.resume()
            }.start()
        }
    }
}

/// Starts the fixture plugin and waits until it answers, so that timings measured afterwards
/// do not include the interpreter's start-up (slow when many tests start plugins at once).
/// No request is sent (its timer, short in many tests, would run while the interpreter starts
/// on a loaded machine): the fixture announces itself with a `ready` notification instead.
func startReady(_ supervisor: PluginSupervisor, _ log: EventLog, _ spec: PluginSpec) async throws {
    var spec = spec
    spec.environment["FIXTURE_READY"] = "1"
    try supervisor.start(spec)
    await log.wait { events in
        events.contains { if case .message(spec.tab, .notification("ready", _)) = $0 { true } else { false } }
    }
}

/// A JSON value written as JSON text (decoded with the protocol codec).
func json(_ text: String) -> JSONValue {
    let line = Array(#"{"jsonrpc":"2.0","id":0,"result":\#(text)}"#.utf8)
    guard case .response(_, let result)? = try? MessageCodec.decode(line) else {
        Issue.record("bad JSON in test: \(text)")
        return .null
    }
    return result
}

func request(_ id: Int64, _ method: String, _ params: JSONValue = .null) -> Message {
    .request(id: .int(id), method: method, params: params)
}

/// The folder of this test run's temporary folders, removed when the test process exits.
let temporaryRoot: String = {
    var template = Array((NSTemporaryDirectory() + "/tabdeck-supervisor-XXXXXX").utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    atexit { try? FileManager.default.removeItem(atPath: temporaryRoot) }
    return path
}()

/// A fresh temporary folder (inside ``temporaryRoot``).
func temporaryDirectory() -> String {
    var template = Array((temporaryRoot + "/XXXXXX").utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    return path
}

/// Writes an executable script into a fresh temporary folder and returns its path.
func writeScript(_ name: String, _ text: String) -> String {
    let path = temporaryDirectory() + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o755])
    return path
}

let python: String = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

/// The test plugin (see `fixturePluginSource`), written once.
let fixturePlugin: String = writeScript("plugin.py", fixturePluginSource)

/// A spec running the fixture plugin; `mode` "stubborn" ignores shutdown, stdin EOF and SIGTERM.
func pluginSpec(_ tab: String, mode: String = "normal", logFile: String = "") -> PluginSpec {
    PluginSpec(tab: tab, command: [python, fixturePlugin, mode], logFile: logFile)
}

/// Whether `pid` is gone for good: not our child any more (reaped) and not a zombie.
func isReaped(_ pid: pid_t) -> Bool {
    var status: Int32 = 0
    let result = waitpid(pid, &status, WNOHANG)
    let notOurChild = result == -1 && errno == ECHILD
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    let zombie = stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    return notOurChild && !zombie
}
