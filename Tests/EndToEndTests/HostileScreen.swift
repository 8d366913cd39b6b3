import Foundation
import Testing

/// Helpers for the full-screen half of the hostile-plugin suite (issue 10, point 10): a config
/// with a hostile tab (Plugins/fixtures/broken_plugin.py, its misbehaviour in a mode file that a
/// test empties to make it behave again) next to a well-behaved one, and a tmux screen that also
/// records every byte tabdeck wrote to its terminal, so that a test can tell what reached the
/// terminal raw, the host's memory and the processes left.
struct HostileSetup {
    let dir = TempDir()
    let tag = UUID().uuidString
    var config: String { dir.file("config.json") }
    var modeFile: String { dir.file("mode") }
    var countFile: String { dir.file("count") }
    var pidsFile: String { dir.file("pids") }

    /// Writes the config: tab 1 `healthy` (selected at start, so the host can be measured idle),
    /// tab 2 `broken` (misbehaving as `mode`, with `rows` rows; started when first selected).
    init(mode: String, rows: Int = 250, env: [String: String] = [:]) throws {
        try dir.write("mode", mode)
        let plugin = Bin.root + "/Plugins/fixtures/broken_plugin.py"
        var hostileEnv = ["BROKEN_MODE": "count-file", "BROKEN_COUNT_FILE": countFile, "BROKEN_MODE_FILE": modeFile,
                          "BROKEN_PIDS_FILE": pidsFile, "BROKEN_ROWS": String(rows), "BROKEN_ORPHAN_SECONDS": "300"]
        hostileEnv.merge(env) { _, new in new }
        let tabs: [[String: Any]] = [
            ["id": "healthy", "title": "Healthy", "command": ["python3", plugin, "tag=\(tag)"]],
            ["id": "broken", "title": "Broken", "command": ["python3", plugin, "tag=\(tag)"], "env": hostileEnv],
        ]
        let data = try JSONSerialization.data(withJSONObject: ["tabs": tabs], options: [.prettyPrinted])
        try data.write(to: URL(fileURLWithPath: config))
    }

    /// Makes the plugin well-behaved from its next request on.
    func behave() throws { try dir.write("mode", "") }

    /// The pids of every start of the hostile plugin.
    var pluginPids: [Int32] { Self.pids(countFile) }
    /// The pids of the children the `orphans` mode forked.
    var orphanPids: [Int32] { Self.pids(pidsFile) }

    static func pids(_ file: String) -> [Int32] {
        ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    /// Every process that was started for this setup and still exists (not a zombie).
    var leftovers: [Int32] { (pluginPids + orphanPids).filter(isAlive) }

    /// SIGKILL what is left, so that a failing test leaks nothing into the next.
    func killLeftovers() { for pid in leftovers { kill(pid, SIGKILL) } }
}

/// A plugin's text that must never reach the terminal as it is: the payloads of the broken
/// fixture's escape modes (whatever tabdeck draws itself never contains them), listed once in
/// Plugins/fixtures/raw_payloads.json.
enum RawPayload {
    static let signatures: [(String, [UInt8])] = {
        struct List: Decodable { struct Payload: Decodable { var name: String; var text: String }; var payloads: [Payload] }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: Bin.root + "/Plugins/fixtures/raw_payloads.json"))) ?? Data()
        let list = (try? JSONDecoder().decode(List.self, from: data))?.payloads ?? []
        precondition(!list.isEmpty, "Plugins/fixtures/raw_payloads.json lists no payloads")
        return list.map { ($0.name, Array($0.text.utf8)) }
    }()

    /// The names of the payloads found in `bytes`.
    static func found(in bytes: [UInt8]) -> [String] {
        signatures.filter { contains(bytes, $0.1) }.map(\.0)
    }

    static func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, hay.count >= needle.count else { return false }
        let first = needle[0]
        var i = 0
        while i <= hay.count - needle.count {
            if hay[i] == first && Array(hay[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }
}

/// tabdeck in full screen in a private tmux server, with the pane's output recorded raw
/// (`pipe-pane`) to `rawFile`.
final class HostileScreen {
    let socket = "tabdeck-hostile-" + UUID().uuidString.prefix(8)
    let stateDir: String
    let rawFile: String
    let marker: String

    init(_ setup: HostileSetup, width: Int = 120, height: Int = 40) throws {
        stateDir = setup.dir.file("state")
        rawFile = setup.dir.file("terminal.raw")
        marker = setup.dir.file("exited")
        let command = "'\(Bin.tabdeck)' --config '\(setup.config)' --state-dir '\(stateDir)'; touch '\(marker)'; sleep 30"
        try tmux(["new-session", "-d", "-x", String(width), "-y", String(height), command])
        try tmux(["pipe-pane", "-o", "cat >> '\(rawFile)'"])
    }

    @discardableResult
    func tmux(_ args: [String]) throws -> String {
        guard let path = Bin.tmux else { throw CancellationError() }
        return try tool(path, ["-L", socket, "-f", "/dev/null"] + args).out
    }

    /// The screen as text.
    func lines() -> [String] {
        let text = (try? tmux(["capture-pane", "-p"])) ?? ""
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The pane's title: a plugin's OSC title sequence that got through would show here.
    var title: String { ((try? tmux(["display-message", "-p", "#{pane_title}"])) ?? "").trimmingCharacters(in: .newlines) }

    /// Every byte tabdeck wrote to its terminal so far.
    var raw: [UInt8] { Array((try? Data(contentsOf: URL(fileURLWithPath: rawFile))) ?? Data()) }

    /// The plugin payloads found in what tabdeck wrote (empty: nothing raw reached the terminal).
    var leaked: [String] { RawPayload.found(in: raw) }

    /// Sends keys (tmux names: "j", "Enter", "Escape", "C-c"), retrying when tmux itself fails.
    func keys(_ keys: String...) async {
        for k in keys { await send(["send-keys", k]); try? await Task.sleep(for: .milliseconds(60)) }
    }

    func type(_ text: String) async { await send(["send-keys", "-l", text]) }

    /// Types a command line: `:`, the text, Enter.
    func command(_ text: String) async {
        await keys(":")
        await type(text)
        await keys("Enter")
    }

    func send(_ args: [String]) async { await tmuxCommand(socket: socket, args) }

    func waitFor(_ text: String, timeout: Double = 30) async -> Bool {
        await waitUntil(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// Polls the screen until `condition` holds; false after `timeout` (and, unless `quiet`, the
    /// screen recorded as an issue).
    func waitUntil(timeout: Double = 30, quiet: Bool = false, _ condition: ([String]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines()) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        if condition(lines()) { return true }
        if quiet { return false }
        Issue.record("timed out; the screen was:\n\(lines().joined(separator: "\n"))")
        return false
    }

    /// The tabdeck process of this screen (the pane's shell runs it as a child).
    var hostPid: Int32? {
        guard let shell = Int32(((try? tmux(["display-message", "-p", "#{pane_pid}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return children(of: shell).first { pid in
            let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return String(decoding: cmdline, as: UTF8.self).hasPrefix(Bin.tabdeck)
        }
    }

    /// The host's resident memory (VmRSS) in bytes, nil when it is not running.
    var hostRSS: Int? { hostPid.flatMap { residentBytes($0) } }

    /// Whether tabdeck has exited (its command line touches the marker).
    var exited: Bool { FileManager.default.fileExists(atPath: marker) }

    func waitForExit(timeout: Double = 15) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if exited { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return exited
    }

    func close() {
        _ = try? tmux(["kill-server"])
        let folder = (ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp") + "/tmux-\(getuid())"
        unlink(folder + "/" + socket)
    }
}

/// The resident memory (VmRSS) of a process in bytes, nil when it does not exist.
func residentBytes(_ pid: Int32, field: String = "VmRSS") -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
          let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kb * 1024
}

/// How many notifications the broken plugin's `flood` mode has written so far, from the
/// `flood: N notifications sent` lines (one per 50,000) in the tab's log file.
func floodSent(log: String) -> Int {
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line -> Int? in
        guard let r = line.range(of: "flood: ") else { return nil }
        return Int(line[r.upperBound...].prefix { $0.isNumber })
    }.max() ?? 0
}

/// Waits until the flood has written `count` notifications or `timeout` passed (a host that
/// reads slowly, to apply backpressure, slows the flood down: that is allowed); how many it wrote.
func waitForFlood(log: String, count: Int = 200_000, timeout: Double = 20) async -> Int {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, floodSent(log: log) < count { try? await Task.sleep(for: .milliseconds(100)) }
    return floodSent(log: log)
}
