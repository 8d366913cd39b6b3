import Foundation
import Testing
@testable import TabdeckApp
@testable import TabdeckCore

/// The hostile-plugin suite in full screen, in-process (issue 26, point 2): the shell's own loop
/// (``ScreenDriver``) on a manual clock, tab 1 well-behaved, tab 2 misbehaving as one mode of
/// Plugins/fixtures/broken_plugin.py, both real processes. The host stays up, tab 1 still
/// answers, the error is on screen, the tab recovers once the plugin behaves (`r` retries),
/// nothing the plugin sent reaches the terminal's bytes as it is, and quitting leaves no
/// process. Timeouts and grace periods pass on the clock, moved to them at once for a plugin
/// that stalls. The real terminal's part (tmux: the pane's title, the host's memory under a
/// flood in a process of its own) is EndToEndTests' HostileFullScreenTests.
@Suite(.serialized, hangGuard) struct HostileScreenTests {
    /// Modes whose plugin never answers a request: the host's timeouts decide them.
    static let stalls: Set<String> = ["hang-on-init", "hang-on-rows", "no-read"]

    /// The payloads that must never reach the terminal, by name (Plugins/fixtures/raw_payloads.json).
    static let payloads: [(name: String, bytes: Data)] = {
        struct List: Decodable { struct Payload: Decodable { var name: String; var text: String }; var payloads: [Payload] }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: Repo.path("Plugins/fixtures/raw_payloads.json")))) ?? Data()
        return ((try? JSONDecoder().decode(List.self, from: data))?.payloads ?? []).map { ($0.name, Data($0.text.utf8)) }
    }()

    @Test(arguments: HostileCase.selected)
    func aTabSurvivesItsPluginOnTheScreen(_ c: HostileCase) throws {
        let dir = TempDir()
        let tag = UUID().uuidString
        let (countFile, pidsFile, modeFile) = (dir.file("count"), dir.file("pids"), dir.file("mode"))
        try c.mode.write(toFile: modeFile, atomically: true, encoding: .utf8)
        var broken = HostilePluginTests.hostileTab(c, countFile: countFile, modeFile: modeFile, pidsFile: pidsFile, tag: tag)
        broken.title = "Broken"
        let config = try writeConfig(dir, [
            TabSpec(id: "healthy", command: ["python3", Repo.brokenPlugin, "tag=\(tag)"], title: "Healthy"), broken,
        ])
        let started = { Procs.started(countFile) + Procs.started(pidsFile) }
        defer { HostilePluginTests.killLeftovers(started()) }
        let s = try ScreenDriver(config: config, state: dir.file("state"), outputFile: dir.file("terminal.raw"))
        defer { s.close(stalling: "broken") }

        // Tab 1 works.
        guard s.waitFor("row 1 of 10") else { return }

        // Tab 2 misbehaves: an error, or its rows, as the case says.
        s.keys("2")
        let shown: ([String]) -> Bool = { lines in
            let error = Self.errorShown(lines)
            let rows = lines.joined(separator: "\n").contains("row 1 of 250") && !lines.contains(where: ScreenDriver.isPlaceholder)
            switch c.outcome {
            case .fails: return error
            case .works: return rows && !error
            case .either: return error || rows
            }
        }
        if Self.stalls.contains(c.mode) {
            s.waitUntil("what \(c.mode) gives", stalling: "broken", shown)
        } else {
            s.waitUntil("what \(c.mode) gives", shown)
        }
        let failed = Self.errorShown(s.lines)
        if ProcessInfo.processInfo.environment["HOSTILE_TIMING"] != nil {
            print("hostile screen \(c.mode) at \(s.clock.now()) s on the clock:\n\(s.lines.joined(separator: "\n"))")
        }

        // Tab 1 still answers.
        s.keys("1")
        s.waitUntil("tab 1's rows") { $0.joined().contains("row 1 of 10") && $0.joined().contains("alpha") }
        s.keys("j")
        s.waitFor("row 2 of 10")

        // The plugin behaves again: tab 2 recovers after `r`. Rows a working plugin gave before
        // are not fetched again; after a failure they must be.
        try "".write(toFile: modeFile, atomically: true, encoding: .utf8)
        // A plugin the host stopped (wrong-version) and that waits for SIGTERM is gone first: `r`
        // meanwhile would fail (restart while it is being stopped: noted in issue 26's stop 34 note).
        s.movingPastGrace(of: "broken") {
            s.waitUntil("the stopped plugin gone") { _ in s.runtime.workspace.tabs["broken"]?.terminating != true }
        }
        s.keys("2", "r")
        s.waitUntil("tab 2 recovered") {
            $0.joined().contains("row 1 of 250") && (!failed || $0.joined().contains("alpha")) && !Self.errorShown($0)
        }

        // Nothing the plugin sent reached the terminal as it is.
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: dir.file("terminal.raw")))) ?? Data()
        #expect(!raw.isEmpty && !Self.payloads.isEmpty)
        let leaked = Self.payloads.filter { raw.range(of: $0.bytes) != nil }.map(\.name)
        #expect(leaked.isEmpty, "raw on the terminal: \(leaked)")

        // Quit: no process left.
        s.keys("q")
        s.waitForQuit(stalling: "broken")
        #expect(Self.noneLeft(started), "processes left after quit: \(started().filter { Procs.state($0) != nil })")
    }

    /// An error line of the table area or the status line (`! ...`).
    static func errorShown(_ lines: [String]) -> Bool {
        lines.contains { $0.contains("! ") && !$0.contains("!!") }
    }

    /// Whether every process in `pids` is gone (a zombie counts as gone), polled until the hang
    /// guard: a killed process disappears a moment after its signal, and for the orphans (not
    /// this process's children) no event tells when.
    static func noneLeft(_ pids: () -> [Int32]) -> Bool {
        let guarded = ScreenDriver.hangGuarded {}
        defer { guarded.cancel() }
        while !guarded.fired {
            if pids().allSatisfy({ Procs.state($0) == nil || Procs.state($0) == "Z" }) { return true }
            usleep(10_000)
        }
        return false
    }
}
