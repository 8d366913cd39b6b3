import Foundation
import Testing

/// The repository and the built `tabdeck` binary, found from this file's location.
enum Bin {
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let tabdeck = root + "/.build/debug/tabdeck"
    static let config = root + "/config.json"
    static var built: Bool { FileManager.default.isExecutableFile(atPath: tabdeck) }
    static let missing = "the tabdeck binary is not built at .build/debug/tabdeck (run swift build --build-tests)"
    static var tmux: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A temporary folder, removed when the value goes away.
final class TempDir: @unchecked Sendable {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "tabdeck-e2e-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: file(name), atomically: true, encoding: .utf8)
        return file(name)
    }

    var state: String { file("state") }
}

/// How a finished `tabdeck` ended and what it printed.
struct Finished: Sendable, CustomStringConvertible {
    var status: Int32
    var out: String
    var err: String
    var description: String { "status \(status)\nstdout:\n\(out)\nstderr:\n\(err)" }
    var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
}

/// The environment for a child: ours without Tabdeck's variables, plus `extra`.
func childEnvironment(_ extra: [String: String]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    for key in ["TABDECK_CONFIG", "TABDECK_STATE_DIR", "TABDECK_TEST_TRACE"] { env[key] = nil }
    env.merge(extra) { _, new in new }
    return env
}

/// A running `tabdeck` with pipes on stdin, stdout and stderr, read by threads of its own.
final class LiveTabdeck: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private var open = 2
    private var exited = false
    /// What the tests wait for, each woken by the event that settles it (output read, a pipe
    /// closed, the exit) or by its time limit, the hang guard: nothing polls.
    private var waiters: [Waiter] = []
    private var nextWaiter = 0

    private struct Waiter {
        let id: Int
        /// Whether the wait is over, and how (nil: not yet).
        let settled: (LiveTabdeck) -> Bool?
        let resume: (Bool) -> Void
    }

    init(_ arguments: [String], env: [String: String] = [:], cwd: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: Bin.tabdeck)
        process.arguments = arguments
        process.environment = childEnvironment(env)
        if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        process.terminationHandler = { [weak self] _ in self?.changed { $0.exited = true } }
        try process.run()
        for (pipe, isOut) in [(output, true), (errors, false)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    changed { live in
                        if chunk.isEmpty { live.open -= 1 } else if isOut { live.outData.append(chunk) } else { live.errData.append(chunk) }
                    }
                    if chunk.isEmpty { break }
                }
            }
        }
    }

    /// Applies a change under the lock, then resumes the waits it settled.
    private func changed(_ change: (LiveTabdeck) -> Void) {
        lock.lock()
        change(self)
        var done: [(Waiter, Bool)] = []
        waiters.removeAll { waiter in
            guard let outcome = waiter.settled(self) else { return false }
            done.append((waiter, outcome))
            return true
        }
        lock.unlock()
        for (waiter, outcome) in done { waiter.resume(outcome) }
    }

    /// Waits until `settled` (read under the lock) gives an outcome; false after `timeout`.
    private func wait(timeout: Double, until settled: @escaping (LiveTabdeck) -> Bool?) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if let outcome = settled(self) {
                lock.unlock()
                continuation.resume(returning: outcome)
                return
            }
            let id = nextWaiter
            nextWaiter += 1
            waiters.append(Waiter(id: id, settled: settled, resume: { continuation.resume(returning: $0) }))
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                guard let self else { return }
                lock.lock()
                let waiter = waiters.firstIndex { $0.id == id }.map { waiters.remove(at: $0) }
                lock.unlock()
                waiter?.resume(false)
            }
        }
    }

    var out: String { lock.withLock { String(decoding: outData, as: UTF8.self) } }
    var err: String { lock.withLock { String(decoding: errData, as: UTF8.self) } }

    func send(_ text: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits until stdout contains `text`; false on timeout, or once the pipes have closed without it.
    func waitForOutput(_ text: String, timeout: Double = 10) async -> Bool {
        let search = Search(text)
        return await wait(timeout: timeout) { live in search.found(in: live.outData) ? true : live.open == 0 ? false : nil }
    }

    /// Waits until stderr contains `text`; false on timeout, or once the pipes have closed without it.
    func waitForError(_ text: String, timeout: Double = 10) async -> Bool {
        let search = Search(text)
        return await wait(timeout: timeout) { live in search.found(in: live.errData) ? true : live.open == 0 ? false : nil }
    }

    /// Looks for a text in growing data, each byte once (what was searched is not searched again).
    private final class Search {
        let needle: Data
        var searched = 0
        init(_ text: String) { needle = Data(text.utf8) }
        func found(in data: Data) -> Bool {
            let from = max(0, searched - needle.count + 1)
            searched = data.count
            return data.range(of: needle, in: data.startIndex + min(from, data.count)..<data.endIndex) != nil
        }
    }

    func kill(_ signal: Int32) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits for the exit (killing it after `timeout`) and both pipes to close.
    func finish(timeout: Double = 60) async -> Finished {
        if !(await wait(timeout: timeout) { $0.exited ? true : nil }) {
            Issue.record("tabdeck \(process.arguments ?? []) did not exit within \(timeout) s; killing it")
            kill(SIGKILL)
            _ = await wait(timeout: 60) { $0.exited ? true : nil }
        }
        // Pipes close when every holder is gone (plugins it left behind would keep them open).
        _ = await wait(timeout: 5) { $0.open == 0 ? true : nil }
        process.waitUntilExit()  // the status is set once the handler has run
        return Finished(status: process.terminationStatus, out: out, err: err)
    }
}

/// Runs `tabdeck ARGS` with `input` on stdin (then end of input) and waits for it.
func tabdeck(_ arguments: [String], input: String, env: [String: String] = [:], cwd: String? = nil,
             timeout: Double = 60) async throws -> Finished {
    let live = try LiveTabdeck(arguments, env: env, cwd: cwd)
    live.send(input)
    live.closeInput()
    return await live.finish(timeout: timeout)
}

/// `tabdeck --line --config <repo>/config.json --state-dir STATE` with commands on stdin.
func lineMode(_ state: String, _ commands: [String], output: String? = nil) async throws -> Finished {
    var args = ["--line", "--config", Bin.config, "--state-dir", state]
    if let output { args += ["--output", output] }
    return try await tabdeck(args, input: commands.joined(separator: "\n") + "\n")
}

/// The `tabs` entries of a JSON document (from `--output json`).
struct TabEntry: Equatable, CustomStringConvertible {
    var id: String
    var section: String?
    var position: Int?
    var hidden: Bool
    var selected: Bool
    var description: String { "\(id)@\(position.map(String.init) ?? "-")[\(section ?? "")]\(hidden ? " hidden" : "")\(selected ? " *" : "")" }
}

func parseJSON(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

func tabEntries(_ document: [String: Any]?) -> [TabEntry] {
    guard let items = document?["result"] as? [[String: Any]] else { return [] }
    return items.map {
        TabEntry(id: $0["id"] as? String ?? "?", section: $0["section"] as? String, position: $0["position"] as? Int,
                 hidden: $0["hidden"] as? Bool ?? false, selected: $0["selected"] as? Bool ?? false)
    }
}

/// Runs an external tool (output to a temporary file) and waits for it. Spawned directly with a
/// clean signal mask: Foundation's `Process` passes on the test thread's blocked signals, which a
/// daemon such as the tmux server would keep.
@discardableResult
func tool(_ path: String, _ arguments: [String]) throws -> (status: Int32, out: String) {
    // Run through bash, which closes every descriptor above 2 before exec: a tmux server started
    // here lives on, and a pipe end it inherited from a parallel test (another tabdeck's stdin)
    // would never reach EOF, leaving that tabdeck waiting for input.
    let closeAll = #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$0" "$@""#
    let (path, arguments) = ("/bin/bash", ["-c", closeAll, path] + arguments)
    let outFile = NSTemporaryDirectory() + "tabdeck-tool-\(UUID().uuidString)"
    defer { unlink(outFile) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard rc == 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(rc)) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let out = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
    let exited = status & 0x7f == 0
    return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), out)
}

/// The pids whose parent is `parent` (from /proc).
func children(of parent: Int32) -> [Int32] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { e -> Int32? in
        guard let pid = Int32(e), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 2 && Int32(fields[1]) == parent ? pid : nil
    }
}

/// Whether a process exists and is not a zombie.
func isAlive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
}

/// Runs a tmux command on the server at `socket`, retrying when tmux itself fails (a client that
/// cannot reach a loaded server exits non-zero, and a silently lost key looks like a hung host).
func tmuxCommand(socket: String, _ args: [String]) async {
    guard let path = Bin.tmux else { return }
    var last = ""
    for _ in 0..<5 {
        do {
            let r = try tool(path, ["-L", socket, "-f", "/dev/null"] + args)
            if r.status == 0 { return }
            last = "exit \(r.status): \(r.out)"
        } catch {
            last = "\(error)"
        }
        try? await Task.sleep(for: .milliseconds(200))
    }
    Issue.record("tmux \(args.joined(separator: " ")) kept failing: \(last)")
}
