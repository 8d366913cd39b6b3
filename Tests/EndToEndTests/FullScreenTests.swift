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

    @Test(.enabled(if: available)) func switchTabsSortSelectAndDrillDown() throws {
        let screen = try Screen(config: Self.root + "/config.json")
        defer { screen.close() }
        try screen.waitFor("row 1 of 200")
        #expect(screen.lines()[0].contains("id name"))
        screen.keys("l", "l", "s")  // sort by the third column (age)
        try screen.waitFor("age ↑")
        screen.keys("s")
        try screen.waitFor("age ↓")
        screen.keys("j", "j", "Space")
        try screen.waitFor("1 selected")
        screen.keys("Tab")  // the next tab: the sample database
        try screen.waitUntil { $0.joined().contains("Sample DB") && !$0.joined().contains("row 1 of 200") }
        screen.keys("3")  // the processes tab
        try screen.waitFor("watching")
        screen.keys("5")  // SDK demo: rows have children
        try screen.waitFor("row 1 of 500")
        screen.keys("Enter")
        try screen.waitFor("SDK demo > ")
        screen.keys("BSpace")
        try screen.waitUntil { !$0.joined().contains("SDK demo > ") && $0.joined().contains("row 1 of 500") }
        screen.keys("?")
        try screen.waitFor("Commands (type : first)")
        screen.keys("Escape")
        try screen.waitFor("row 1 of 500")
    }

    @Test(.enabled(if: available)) func commandLineCompletesAndRemembers() throws {
        let screen = try Screen(config: Self.root + "/config.json")
        defer { screen.close() }
        try screen.waitFor("row 1 of 200")
        screen.keys(":")
        screen.type("sort na")
        screen.keys("Tab")
        try screen.waitFor(":sort name")
        screen.keys("Enter")
        try screen.waitFor("name ↑")
        screen.keys(":")
        screen.keys("Up")  // history
        try screen.waitFor(":sort name")
        screen.keys("C-c")  // cancels the prompt only
        try screen.waitUntil { !$0.last!.hasPrefix(":") }
        screen.keys(":")
        screen.type("sotr x")
        screen.keys("Enter")
        try screen.waitFor("did you mean \"sort\"")
    }

    @Test(.enabled(if: available)) func narrowTerminalShowsATabBarAndResizeRelaysOut() throws {
        let screen = try Screen(config: Self.root + "/config.json")
        defer { screen.close() }
        try screen.waitFor("row 1 of 200")
        #expect(screen.lines()[1].contains("│"))  // sidebar at 120 columns
        screen.resize(width: 60, height: 20)
        try screen.waitUntil { lines in lines[0].contains("People") && !lines[1].contains("│") }
        #expect(screen.lines().count == 20)
        screen.resize(width: 120, height: 40)
        try screen.waitUntil { $0[1].contains("│") }
    }

    @Test(.enabled(if: available)) func scrollsAMillionRowTableToTheEnd() throws {
        let dir = try temporaryDirectory()
        let csv = dir + "/big.csv"
        let gen = Process()
        gen.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gen.arguments = ["python3", Self.root + "/Plugins/csv/gen_csv.py", "1000000", csv]
        try gen.run(); gen.waitUntilExit()
        let config = dir + "/config.json"
        try #"{"tabs":[{"id":"big","title":"Big","command":["\#(Self.root)/Plugins/csv/tabdeck-csv"],"args":{"path":"\#(csv)"}}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let screen = try Screen(config: config, state: dir + "/state")
        defer { screen.close() }
        try screen.waitFor("row 1 of 1,000,000", timeout: 30)
        screen.keys("G")
        try screen.waitFor("row 1,000,000 of 1,000,000", timeout: 20)
        // The last rows are on screen. (The id column is sized from the plugin's sampled width hint,
        // so 1000000 may show cut as `10000…`: a known issue of the csv plugin's hints.)
        try screen.waitUntil(timeout: 20) { $0.contains { $0.contains(" 999999 ") } }
        screen.keys("g")
        try screen.waitFor("row 1 of 1,000,000")
    }

    @Test(.enabled(if: available)) func theWorkspaceComesBackAfterARestart() throws {
        let dir = try temporaryDirectory()
        do {
            let screen = try Screen(config: Self.root + "/config.json", state: dir)
            defer { screen.close() }
            try screen.waitFor("row 1 of 200")
            screen.keys("l", "s")  // sort by name
            try screen.waitFor("name ↑")
            screen.keys("j", "j", "j")
            try screen.waitFor("row 4 of 200")
            screen.keys("7")  // select the bash example tab
            try screen.waitFor("row 1 of 1,000")
            screen.keys("q")
            try screen.waitForExit()
        }
        let again = try Screen(config: Self.root + "/config.json", state: dir)
        defer { again.close() }
        try again.waitFor("row 1 of 1,000")
        again.keys("1")
        try again.waitFor("row 4 of 200")
        #expect(again.lines()[0].contains("name ↑"))
    }
}

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tabdeck-fs-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A tmux session running tabdeck at 120x40 on a private tmux server.
private final class Screen {
    let socket = "tabdeck-e2e-" + UUID().uuidString.prefix(8)
    let marker: String

    init(config: String, state: String? = nil, width: Int = 120, height: Int = 40) throws {
        let stateDir = try state ?? temporaryDirectory()
        marker = stateDir + "/exited"
        let command = "'\(FullScreenTests.binary)' --config '\(config)' --state-dir '\(stateDir)'; touch '\(marker)'; sleep 30"
        try tmux(["new-session", "-d", "-x", String(width), "-y", String(height), command])
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

    func keys(_ keys: String...) {
        for k in keys { _ = try? tmux(["send-keys", k]); usleep(60_000) }
    }

    func type(_ text: String) { _ = try? tmux(["send-keys", "-l", text]); usleep(100_000) }

    func resize(width: Int, height: Int) {
        _ = try? tmux(["resize-window", "-x", String(width), "-y", String(height)])
    }

    func waitFor(_ text: String, timeout: Double = 10) throws {
        try waitUntil(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    func waitUntil(timeout: Double = 10, _ condition: ([String]) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines()) { return }
            usleep(50_000)
        }
        let screen = lines().joined(separator: "\n")
        Issue.record("timed out; the screen was:\n\(screen)")
        throw CancellationError()
    }

    func waitForExit(timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: marker) { return }
            usleep(50_000)
        }
        Issue.record("tabdeck did not exit")
        throw CancellationError()
    }

    func close() { _ = try? tmux(["kill-server"]) }
}
