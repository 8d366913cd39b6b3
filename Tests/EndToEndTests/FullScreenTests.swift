import Foundation
import Testing

/// The real binary in the full-screen mode, driven like a person would: tmux sends keys,
/// capture-pane reads the screen.
@Suite(.serialized) struct FullScreenTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let binary = root + "/.build/debug/tabdeck"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: binary) && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
    }

    /// `cmd | tabdeck`: the rows come from the pipe as they arrive, the keys from the terminal.
    @Test(.enabled(if: available)) func aPipeIsATableAndKeysComeFromTheTerminal() async throws {
        let screen = try Screen(config: Self.root + "/config.json",
                                pipe: "printf 'name qty\\nbolt   3\\n'; sleep 1; printf 'nut   12\\nwasher 7\\n'")
        defer { screen.close() }
        try await screen.waitFor("row 1 of 3")          // the whole stream, the last lines a second later
        #expect(screen.lines().joined().contains("stdin"))
        #expect(screen.lines()[0].contains("name") && screen.lines()[0].contains("qty"))
        await screen.keys("l", "s", "s")                 // qty, descending: keys read from /dev/tty
        try await screen.waitFor("qty ↓")
        try await screen.waitUntil { lines in
            let rows = lines.filter { $0.contains("bolt") || $0.contains("nut") || $0.contains("washer") }
            return rows.count == 3 && rows[0].contains("nut") && rows[1].contains("washer") && rows[2].contains("bolt")
        }
    }

    /// GNU readline's `:` line on a real terminal, one session: Tab completes, Up recalls the
    /// history, Ctrl-C cancels the line only, a typo gets a suggestion; a lone Esc abandons the
    /// line (nothing runs) while arrow keys, whose sequences start with Esc, still edit and
    /// recall; a command typed in the same write as `:` loses no byte, and a key after Enter is
    /// a table key again.
    @Test(.enabled(if: available)) func theCommandLineOnARealTerminal() async throws {
        let screen = try Screen(config: Self.root + "/config.json")
        defer { screen.close() }
        try await screen.waitFor("row 1 of 200")
        await screen.keys(":")
        await screen.type("sort na")
        await screen.keys("Tab")
        try await screen.waitFor(":sort name")
        await screen.keys("Enter")
        try await screen.waitFor("name ↑")
        await screen.keys(":")
        await screen.keys("Up")  // history
        try await screen.waitFor(":sort name")
        await screen.keys("C-c")  // cancels the prompt only
        try await screen.waitUntil { !$0.last!.hasPrefix(":") }
        await screen.keys(":")
        await screen.type("sotr x")
        await screen.keys("Enter")
        try await screen.waitFor("did you mean \"sort\"")

        await screen.keys(":")
        await screen.type("goto 15")
        await screen.keys("Enter")
        try await screen.waitFor("row 15 of 200")
        await screen.keys(":")
        await screen.keys("Up")  // an escape sequence: recalls the last line
        try await screen.waitFor(":goto 15")
        await screen.keys("BSpace", "BSpace")
        await screen.type("40")
        await screen.keys("Left")  // another sequence: moves in the line
        await screen.type("1")
        try await screen.waitFor(":goto 410")
        await screen.keys("Escape")  // alone: the line is abandoned, nothing runs
        try await screen.waitUntil { !$0.last!.hasPrefix(":") && $0.last!.contains("row 15 of 200") }
        await screen.keys("j")  // the table has the keys again
        try await screen.waitFor("row 16 of 200")
        #expect(!screen.lines().joined().contains("410"))

        // One write: ":" and the whole command; the prompt must get every byte after ":".
        await screen.type(":goto 150\r")
        try await screen.waitFor("row 150 of 200")
        await screen.type(":goto 20\rj")  // a key after Enter is a table key again
        try await screen.waitFor("row 21 of 200")
    }

    /// A resize while the `:` line is open redraws the workspace at the new size with the line
    /// kept on the new bottom line, even after 10×3 and back; an ambiguous Tab lists the matches
    /// in place above the line (nothing scrolls) and completion ignores case.
    @Test(.enabled(if: available)) func theCommandLineSurvivesAResizeAndListsMatchesInPlace() async throws {
        let screen = try Screen(config: Self.root + "/config.json")
        defer { screen.close() }
        try await screen.waitFor("row 1 of 200")
        let top = screen.lines()[0]
        await screen.keys(":")
        await screen.type("s")
        await screen.keys("Tab", "Tab")
        try await screen.waitUntil { $0[$0.count - 2].contains("sort") && $0[$0.count - 2].contains("show") }
        #expect(screen.lines()[0] == top, "the workspace did not scroll")
        await screen.type("ort NA")
        await screen.keys("Tab")
        try await screen.waitFor(":sort name")
        screen.resize(width: 60, height: 20)
        try await screen.waitUntil { $0.count == 20 && $0[0].contains("People") && !$0[1].contains("│") && $0.last!.hasPrefix(":sort name") }
        screen.resize(width: 10, height: 3)
        try await screen.waitUntil { $0.count <= 3 && $0.contains { $0.hasPrefix(":sort") } }
        screen.resize(width: 120, height: 40)
        try await screen.waitUntil { $0.count == 40 && $0[1].contains("│") && $0.last!.hasPrefix(":sort name") }
        await screen.keys("Enter")
        try await screen.waitFor("name ↑")
    }
}

extension FullScreenTests {
    /// Ctrl-Z from an interactive shell (job control): Tabdeck stops with the terminal given
    /// back (mouse reporting off, the main screen); after `fg` it takes the terminal again
    /// (reporting on, the alternate screen, the table drawn whole) and still answers the mouse.
    @Test(.enabled(if: available && FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func ctrlZGivesTheMouseBackAndFgTakesItAgain() async throws {
        let screen = try Screen(config: Self.root + "/config.json", fromShell: true)
        defer { screen.close() }
        try await screen.waitFor("row 1 of 200")
        try await screen.waitUntil { _ in screen.mouseFlags() == "1 1" && screen.flag("alternate_on") == "1" }
        await screen.keys("C-z")
        try await screen.waitUntil { $0.joined().contains("Stopped") }
        try await screen.waitUntil { _ in screen.mouseFlags() == "0 0" && screen.flag("alternate_on") == "0" }
        await screen.type("fg")
        await screen.keys("Enter")
        try await screen.waitUntil { $0.joined().contains("row 1 of 200") && screen.mouseFlags() == "1 1" && screen.flag("alternate_on") == "1" }
        await screen.keys("j")  // the keys and the mouse work again
        try await screen.waitFor("row 2 of 200")
        let line = screen.lines()[5]
        let x = line.distance(from: line.startIndex, to: line.range(of: "│")!.lowerBound) + 1
        await screen.sgr(0, x + 10, 6)  // a click on the fifth line: row 5
        try await screen.waitFor("row 5 of 200")
        await screen.keys("q")
        try await screen.waitUntil { _ in screen.mouseFlags() == "0 0" && screen.flag("alternate_on") == "0" }
    }
}

extension FullScreenTests {
    /// A crash (SIGSEGV, SIGABRT) gives the terminal back before Swift's backtracer, which
    /// handled the signal first, prints: mouse reporting off, the main screen.
    @Test(.enabled(if: available), arguments: [SIGSEGV, SIGABRT])
    func aCrashGivesTheMouseBack(signal: Int32) async throws {
        let screen = try Screen(config: Self.root + "/config.json")
        defer { screen.close() }
        try await screen.waitFor("row 1 of 200")
        try await screen.waitUntil { _ in screen.mouseFlags() == "1 1" && screen.flag("alternate_on") == "1" }
        let pid = try #require(screen.pid())
        kill(pid, signal)
        try await screen.waitUntil { _ in screen.mouseFlags() == "0 0" && screen.flag("alternate_on") == "0" }
    }
}

extension FullScreenTests {
    /// SIGTERM and SIGHUP in full screen quit like `q`: exit status 0, the selection made just
    /// before is kept, the terminal's modes are restored (mouse reporting off).
    @Test(.enabled(if: available), arguments: [SIGTERM, SIGHUP])
    func aSignalQuitsLikeQ(signal: Int32) async throws {
        let dir = try temporaryDirectory()
        do {
            let screen = try Screen(config: Self.root + "/config.json", state: dir)
            defer { screen.close() }
            try await screen.waitFor("row 1 of 200")
            await screen.keys("j", "Space")
            try await screen.waitFor("1 selected")
            // SIGTERM comes at the `:` prompt (the main thread inside readline): the line is
            // abandoned, not run, and the workspace quits as `q` does, its views saved.
            if signal == SIGTERM {
                await screen.keys(":")
                await screen.type("goto 9")
                try await screen.waitFor(":goto 9")
            }
            let pid = try #require(screen.pid())
            kill(pid, signal)
            try await screen.waitForExit()
            #expect(screen.exitStatus == "0", "quit like q, not killed by the signal")
            #expect(screen.mouseFlags() == "0 0")
        }
        let again = try Screen(config: Self.root + "/config.json", state: dir)
        defer { again.close() }
        try await again.waitFor("row 2 of 200")
        try await again.waitFor("1 selected")
    }
}

/// The folder of this test run's temporary folders, removed when the test process exits.
private let temporaryRoot: String = {
    let path = NSTemporaryDirectory() + "tabdeck-fs-" + UUID().uuidString
    atexit { try? FileManager.default.removeItem(atPath: temporaryRoot) }
    return path
}()

private func temporaryDirectory() throws -> String {
    let path = temporaryRoot + "/" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A tmux session running tabdeck at 120x40 on a private tmux server.
private final class Screen {
    let socket = "tabdeck-e2e-" + UUID().uuidString.prefix(8)
    let marker: String

    /// `fromShell`: typed into an interactive bash (job control, for Ctrl-Z and `fg`) instead
    /// of run as the pane's command.
    /// `pipe`: a shell command whose output is piped into tabdeck (`cmd | tabdeck`).
    init(config: String, state: String? = nil, width: Int = 120, height: Int = 40, fromShell: Bool = false,
         pipe: String? = nil) throws {
        let stateDir = try state ?? temporaryDirectory()
        marker = stateDir + "/exited"
        let tabdeck = (pipe.map { "(\($0)) | " } ?? "") + "'\(FullScreenTests.binary)' --config '\(config)' --state-dir '\(stateDir)'"
        guard fromShell else {
            try tmux(["new-session", "-d", "-x", String(width), "-y", String(height), tabdeck + "; echo $? > '\(marker)'; sleep 30"])
            return
        }
        try tmux(["new-session", "-d", "-x", String(width), "-y", String(height), "exec env PS1='$ ' /bin/bash --norc --noprofile -i"])
        try tmux(["send-keys", "-l", tabdeck])
        try tmux(["send-keys", "Enter"])
    }

    /// A pane flag of tmux's (`alternate_on`, ...): "0" or "1".
    func flag(_ name: String) -> String {
        ((try? tmux(["display-message", "-p", "#{\(name)}"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs tmux through `tool()` (posix_spawn, output to a file, clean signal mask): Foundation's
    /// Process would hand the tmux server a pipe it keeps open, and blocked signals.
    @discardableResult
    func tmux(_ args: [String]) throws -> String {
        try tool("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null"] + args).out
    }

    func lines() -> [String] {
        let text = (try? tmux(["capture-pane", "-p"])) ?? ""
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    func keys(_ keys: String...) async {
        for k in keys { await send(["send-keys", k]); try? await Task.sleep(for: .milliseconds(60)) }
    }

    func type(_ text: String) async { await send(["send-keys", "-l", text]); try? await Task.sleep(for: .milliseconds(100)) }

    /// An SGR mouse report (`CSI < b ; x ; y M`, 1-based cell) sent as raw bytes, then its release
    /// (`m`) unless `release` is false (a wheel notch has none).
    func sgr(_ button: Int, _ x: Int, _ y: Int, release: Bool = true) async {
        var report = "\u{1b}[<\(button);\(x);\(y)M"
        if release { report += "\u{1b}[<\(button);\(x);\(y)m" }
        await send(["send-keys", "-H"] + report.utf8.map { String($0, radix: 16) })
        try? await Task.sleep(for: .milliseconds(100))
    }

    /// The pane's mouse modes as tmux sees them: 1002 (which replaces 1000 there) and 1006, each 0 or 1.
    func mouseFlags() -> String {
        ((try? tmux(["display-message", "-p", "#{mouse_button_flag} #{mouse_sgr_flag}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a tmux send-keys command, retrying when tmux itself fails (a client that cannot
    /// reach a loaded server exits non-zero, and a silently lost key looks like a hung host).
    func send(_ args: [String]) async { await tmuxCommand(socket: socket, args) }

    func resize(width: Int, height: Int) {
        _ = try? tmux(["resize-window", "-x", String(width), "-y", String(height)])
    }

    func waitFor(_ text: String, timeout: Double = 30) async throws {
        try await waitUntil(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// Polls the screen without holding a thread of the shared test pool.
    func waitUntil(timeout: Double = 30, _ condition: ([String]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines()) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let screen = lines().joined(separator: "\n")
        // What the processes were doing (state and kernel wait channel), to tell a stalled main
        // loop from keys that never arrived.
        let processes = (try? tool("/bin/ps", ["-eLo", "pid,tid,stat,wchan:24,comm,args"]).out) ?? ""
        let ours = processes.split(separator: "\n").filter { $0.contains(FullScreenTests.binary) }
        let threads = ours.prefix(60).joined(separator: "\n")
        let message = "timed out; the screen was:\n\(screen)\nterminal: \(terminalState())\nthreads:\n\(threads)\n"
            + "stacks of this screen's tabdeck:\n\(stacks())"
        Issue.record(Comment(rawValue: message))
        throw CancellationError()
    }

    /// The pane's terminal: its mode and the bytes typed that nobody has read yet, to tell keys
    /// that never reached the terminal from keys waiting unread (raw mode) or held for a line
    /// (canonical mode: the count is then of whole lines only).
    func terminalState() -> String {
        guard let out = try? tmux(["display-message", "-p", "#{pane_tty}"]) else { return "(unknown)" }
        let tty = out.trimmingCharacters(in: .whitespacesAndNewlines)
        let fd = open(tty, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return "\(tty): cannot open it (errno \(errno))" }
        defer { Glibc.close(fd) }
        var unread: Int32 = -1
        _ = ioctl(fd, UInt(FIONREAD), &unread)
        var mode = termios()
        guard tcgetattr(fd, &mode) == 0 else { return "\(tty): \(unread) bytes unread, mode unknown" }
        let canonical = mode.c_lflag & tcflag_t(ICANON) != 0
        let echo = mode.c_lflag & tcflag_t(ECHO) != 0
        return "\(tty): \(unread) bytes unread; \(canonical ? "canonical" : "raw") mode, echo \(echo ? "on" : "off")"
    }

    /// The threads' stacks of the tabdeck this screen runs (gdb, when installed), to tell a main
    /// loop waiting for events from one blocked elsewhere.
    func stacks() -> String {
        let state = (marker as NSString).deletingLastPathComponent
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"),
              let ps = try? tool("/bin/ps", ["-eo", "pid,args"]).out,
              let line = ps.split(separator: "\n").first(where: { $0.contains("--state-dir \(state)") && !$0.contains("tmux") }),
              let pid = line.split(separator: " ").first else { return "(not available)" }
        let out = (try? tool("/usr/bin/gdb", ["-p", String(pid), "-batch", "-ex", "thread apply all bt 15"]).out) ?? ""
        // Which terminal the process reads, against the pane's (a key that never reached the
        // process shows here, not in its stacks).
        let stdin = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/0")) ?? "?"
        let panes = (try? tmux(["list-panes", "-a", "-F", "#{pane_pid} #{pane_tty} dead=#{pane_dead} input_off=#{pane_input_off}"])) ?? "?"
        // Every process holding the pane's terminal open, and on which descriptors.
        var holders: [String] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd")) ?? []
            let held = fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\($0)")) == stdin }
            if !held.isEmpty {
                let comm = (try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8))?.replacingOccurrences(of: "\0", with: " ") ?? "?"
                holders.append("\(entry) fds \(held.sorted()) \(comm.prefix(100))")
            }
        }
        return "pid \(pid) reads \(stdin); panes: \(panes.trimmingCharacters(in: .whitespacesAndNewlines)); held by:\n"
            + holders.joined(separator: "\n") + "\n"
            + out.split(separator: "\n").filter { $0.hasPrefix("Thread") || $0.hasPrefix("#") }.prefix(150).joined(separator: "\n")
    }

    /// The exit status tabdeck ended with (once it has).
    var exitStatus: String? {
        (try? String(contentsOfFile: marker, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pid of this screen's tabdeck.
    func pid() -> Int32? {
        let state = (marker as NSString).deletingLastPathComponent
        guard let ps = try? tool("/bin/ps", ["-eo", "pid,args"]).out,
              let line = ps.split(separator: "\n").first(where: { $0.contains("--state-dir \(state)") && $0.contains(FullScreenTests.binary) && !$0.contains("tmux") && !$0.contains("sh -c") })
        else { return nil }
        return line.split(separator: " ").first.flatMap { Int32($0) }
    }

    func waitForExit(timeout: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: marker) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("tabdeck did not exit")
        throw CancellationError()
    }

    func close() {
        _ = try? tmux(["kill-server"])
        // tmux may leave its socket file behind: remove ours.
        let folder = (ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp") + "/tmux-\(getuid())"
        unlink(folder + "/" + socket)
    }
}
