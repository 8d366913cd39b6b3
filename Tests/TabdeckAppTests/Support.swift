import Foundation
import Testing
import TabdeckCore
import TabdeckTime
@testable import TabdeckApp

/// Paths inside the repository, found from this file's location.
enum Repo {
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static func path(_ relative: String) -> String { root + "/" + relative }
    static let brokenPlugin = path("Plugins/fixtures/broken_plugin.py")
    static let csvPlugin = path("Plugins/csv/tabdeck-csv")
    static let peopleCSV = path("Plugins/csv/sample/people.csv")
    static let processesPlugin = path("Plugins/processes/processes.py")
    static let sdkExample = path("Plugins/sdk/python/example_plugin.py")
    static var csvBuilt: Bool { FileManager.default.isExecutableFile(atPath: path(".build/debug/tabdeck-csv")) }
}

/// A temporary folder, removed when the value goes away.
final class TempDir: @unchecked Sendable {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "tabdeck-apptest-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
    }
}

/// A tab of a test config.
struct TabSpec {
    var id: String
    var command: [String]
    var args: [String: Any] = [:]
    var env: [String: String] = [:]
    var background = false
    var title: String?
    var section: String?
    var customizable = true
    /// `"trace": true`: the tab's traffic goes to `<state>/logs/<id>.trace`.
    var trace = false

    /// The broken plugin with modes, counting its starts in `countFile`. `tag` goes on the command
    /// line (the plugin ignores it) so that a test can find its own processes in /proc.
    static func broken(_ id: String = "broken", modes: [String], countFile: String, tag: String) -> TabSpec {
        TabSpec(id: id, command: ["python3", Repo.brokenPlugin, "tag=\(tag)"],
                env: ["BROKEN_MODE": (modes + ["count-file"]).joined(separator: ","), "BROKEN_COUNT_FILE": countFile])
    }
}

/// Writes a config with `tabs` (and `sections`, ids only) into `dir` and returns its path.
func writeConfig(_ dir: TempDir, _ tabs: [TabSpec], sections: [String] = []) throws -> String {
    var list: [[String: Any]] = []
    for t in tabs {
        var o: [String: Any] = ["id": t.id, "title": t.title ?? t.id, "command": t.command]
        if !t.args.isEmpty { o["args"] = t.args }
        if !t.env.isEmpty { o["env"] = t.env }
        if t.background { o["background"] = true }
        if let section = t.section { o["section"] = section }
        if !t.customizable { o["customizable"] = false }
        if t.trace { o["trace"] = true }
        list.append(o)
    }
    var root: [String: Any] = ["tabs": list]
    if !sections.isEmpty { root["sections"] = sections.map { ["id": $0, "title": $0.uppercased()] } }
    let data = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted])
    let path = dir.file("config.json")
    try data.write(to: URL(fileURLWithPath: path))
    return path
}

/// What one command printed.
struct Reply: Sendable, CustomStringConvertible {
    var ok: Bool
    var out: String
    var err: String
    /// How long the command ran, measured on the host's own thread (so a busy test pool does
    /// not count).
    var seconds: Double = 0
    var description: String { "ok=\(ok) out=\(out.debugDescription) err=\(err.debugDescription)" }

    /// stdout parsed as JSON (with `--output json`).
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(out.utf8), options: [.fragmentsAllowed]) }
}

/// A `Runtime` driven from tests: every call runs on the host's own serial queue (never on the
/// cooperative pool, since `Runtime.run` blocks until the command is done), so many hosts can
/// run in parallel. Output goes to buffers instead of stdout/stderr.
final class Host: @unchecked Sendable {
    let dir: TempDir
    let stateDirectory: String
    private let queue: DispatchQueue
    private var runtime: Runtime?
    private let lock = NSLock()
    private var outLines: [String] = []
    private var errLines: [String] = []

    /// The host's one clock: the system's, or a `ManualClock` that ``run(_:ticking:)`` moves.
    let clock: MonotonicClock

    init(_ dir: TempDir, tabs: [TabSpec], sections: [String] = [], output: OutputFormat = .text,
         settings: CoreSettings = Host.fastSettings,
         requestTimeout: Duration? = nil, handshakeTimeout: Duration? = nil,
         clock: MonotonicClock = SystemClock()) throws {
        self.clock = clock
        self.dir = dir
        stateDirectory = dir.file("state")
        queue = DispatchQueue(label: "tabdeck.test.host")
        let config = try writeConfig(dir, tabs, sections: sections)
        var settings = settings
        if let requestTimeout { settings.requestTimeout = requestTimeout.seconds }
        if let handshakeTimeout { settings.handshakeTimeout = handshakeTimeout.seconds }
        let runtime = try Runtime(configPath: config, stateDirectory: stateDirectory, output: output, settings: settings,
                                  clock: clock)
        runtime.write = { [weak self] line in self?.append(line, error: false) }
        runtime.writeError = { [weak self] line in self?.append(line, error: true) }
        self.runtime = runtime
    }

    /// Short backoff so restart tests are quick; the crash budget stays as shipped. The crash
    /// window is an hour: these tests count crashes, and on a loaded machine five python starts
    /// can outlast the shipped 60 s (the window itself is tested on virtual time in the core).
    static var fastSettings: CoreSettings {
        var s = CoreSettings()
        s.baseBackoff = 0.05
        s.maxBackoff = 0.2
        s.crashWindow = 3600
        return s
    }

    private func append(_ line: String, error: Bool) {
        lock.withLock { if error { errLines.append(line) } else { outLines.append(line) } }
    }

    private var counts: (Int, Int) { lock.withLock { (outLines.count, errLines.count) } }

    /// Runs `body` on the host's queue. It waits for as long as `body` takes: a call that never
    /// ends is caught by the suite's hang guard, whose cancellation ends the wait with an issue
    /// and nil. `timeout` (seconds on the wall clock) is only for a suite whose verdict is a
    /// time (the hostile suite: "the host hung"); nil, the default, sets no bound.
    func on<T: Sendable>(timeout: Double? = nil, _ what: String = "call",
                         _ body: @escaping @Sendable (Runtime) -> T) async -> T? {
        let once = Once<T?>()
        let result: T? = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<T?, Never>) in
                once.set(c)
                queue.async { [self] in once.resume(body(runtime!)) }
                if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { once.resume(nil) } }
            }
        } onCancel: {
            once.resume(nil)
        }
        guard let result else {
            Issue.record(timeout.map { "\(what) did not finish within \($0) s" } ?? "\(what) did not finish: the hang guard cancelled the wait")
            return nil
        }
        return result
    }

    /// Runs one command line; what it printed on stdout and stderr, and how long it took on the
    /// host's clock (virtual seconds with a `ManualClock`).
    @discardableResult
    func run(_ line: String, timeout: Double? = nil) async -> Reply {
        let reply = await on(timeout: timeout, "command \"\(line)\"") { [self] runtime in
            let (o, e) = counts
            let start = clock.now()
            let ok = runtime.run(line)
            let seconds = clock.now() - start
            return lock.withLock {
                Reply(ok: ok, out: outLines[o...].joined(separator: "\n"), err: errLines[e...].joined(separator: "\n"),
                      seconds: seconds)
            }
        }
        let result = reply ?? Reply(ok: false, out: "", err: "(timed out)")
        if ProcessInfo.processInfo.environment["TABDECK_TEST_TRACE"] != nil {
            print("> \(line)\n\(result.out)\n\(result.err)")
        }
        return result
    }

    /// Runs `body` while virtual time passes: `clock` moves `step` seconds at a time, yielding
    /// between steps, until `body` is done. What is timed is the host's own deadlines on that
    /// clock, so the outcome does not depend on how fast the machine is.
    func ticking<T: Sendable>(_ clock: ManualClock, step: Double = 0.05, _ body: @escaping @Sendable () async -> T) async -> T {
        let done = Flag()
        async let result = { let r = await body(); done.set(); return r }()
        while !done.isSet {
            clock.advance(by: step)
            do { try await Task.sleep(for: .milliseconds(2)) } catch { break }
        }
        return await result
    }

    func launch() async { _ = await on { $0.launch() } }

    /// Stops the plugins; returns how long it took on the host's clock.
    @discardableResult
    func shutdown() async -> Double {
        await on("shutdown") { [clock] runtime in
            let start = clock.now()
            runtime.shutdown()
            return clock.now() - start
        } ?? 0
    }

    func tab(_ id: String) async -> TabState? { await on { $0.workspace.tabs[id] } ?? nil }

    var allStderr: String { lock.withLock { errLines.joined(separator: "\n") } }

    func log(_ tab: String) -> String {
        (try? String(contentsOfFile: stateDirectory + "/logs/\(tab).log", encoding: .utf8)) ?? ""
    }
}

/// A flag set once, read from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Resumes a continuation once, from whichever side comes first.
final class Once<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    private var done = false
    private var early: T?

    func set(_ c: CheckedContinuation<T, Never>) {
        lock.lock()
        if done, let early { lock.unlock(); c.resume(returning: early); return }
        continuation = c
        lock.unlock()
    }

    /// True if this call resumed it.
    @discardableResult
    func resume(_ value: T) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !done else { return false }
        done = true
        if let c = continuation { continuation = nil; c.resume(returning: value) } else { early = value }
        return true
    }
}

/// Process-table helpers (Linux /proc).
enum Procs {
    /// The pids recorded by the broken plugin's count-file mode.
    static func started(_ countFile: String) -> [Int32] {
        ((try? String(contentsOfFile: countFile, encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { Int32($0) }
    }

    /// The state letter of a process (R, S, Z, ...), nil if it does not exist.
    static func state(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let rest = stat[stat.index(after: close)...].split(separator: " ")
        return rest.first?.first
    }

    /// Children of this process (alive or zombie) whose command line contains `tag`.
    static func children(tagged tag: String) -> [Int32] {
        let me = getpid()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: [Int32] = []
        for e in entries {
            guard let pid = Int32(e),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == me else { continue }
            let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            if String(decoding: cmdline, as: UTF8.self).contains(tag) { found.append(pid) }
        }
        return found
    }
}

/// The one wall-clock bound of the suites that wait for real processes: a guard against a test
/// that hangs for good, far beyond what any machine's load explains. No outcome depends on it.
let hangGuard = TimeLimitTrait.timeLimit(.minutes(10))

/// Polls `condition` until it holds, with no deadline on the wall clock (a loaded machine can
/// take seconds to start a python plugin; that is its load, not the code's behaviour). A
/// condition that never holds is caught by the suite's hang guard: its cancellation ends the
/// wait with a recorded issue (a swallowed cancellation would poll for ever).
func eventually(_ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    while !(await condition()) {
        do { try await Task.sleep(for: .milliseconds(20)) } catch {
            Issue.record("the condition never held: the hang guard cancelled the wait", sourceLocation: sourceLocation)
            return
        }
    }
}

extension Duration {
    /// The duration in seconds (for the core's settings).
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
