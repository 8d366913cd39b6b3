import Foundation
import Testing

/// SIGTERM, SIGHUP and SIGINT are handled like `quit` (plugins stopped, nothing left behind);
/// SIGINT during a command only stops that command. The real binary, line mode on a pipe.
@Suite(.serialized) struct SignalTests {
    /// A config with one tab whose plugin answers `rows` after 600 s (it tags its command line
    /// so the test can find it).
    func setUp(_ dir: TempDir, tag: String) throws -> [String] {
        let plugin = Bin.root + "/Plugins/fixtures/broken_plugin.py"
        let config = try dir.write("config.json", """
            {"sections": [], "tabs": [{"id": "slow", "title": "Slow", "command": ["python3", "\(plugin)", "tag=\(tag)"],
              "env": {"BROKEN_MODE": "slow-rows", "BROKEN_DELAY": "600"}}]}
            """)
        return ["--line", "--config", config, "--state-dir", dir.state, "--trace", dir.file("trace")]
    }

    /// Processes whose command line holds `tag`.
    func processes(tagged tag: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard isAlive(pid), let cmd = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: cmd, as: UTF8.self).contains(tag)
        }
    }

    /// Waits until `file` contains `text` (false if it never does within `limit` seconds).
    func waitFor(_ text: String, in file: String, limit: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: file), String(decoding: data, as: UTF8.self).contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func aSignalBetweenCommandsQuitsCleanly(signal: Int32) async throws {
        try #require(Bin.built, "\(Bin.missing)")
        let dir = try TempDir()
        let tag = "signal-idle-\(signal)-\(UUID().uuidString)"
        let live = try LiveTabdeck(try setUp(dir, tag: tag))
        live.send("columns\nselect 3\n")
        #expect(await live.waitForOutput("1 selected"), "\(live.err)")
        #expect(!processes(tagged: tag).isEmpty)
        live.kill(signal)
        let done = await live.finish()
        #expect(done.status == 0, "\(done)")
        #expect(processes(tagged: tag).isEmpty, "the plugin was left behind")
        // What was done before the signal is kept.
        let again = try await tabdeck(try setUp(dir, tag: tag), input: "selection\n")
        #expect(again.out.contains("3"), "\(again)")
    }

    @Test func sigintStopsTheRunningCommandAndTheSessionGoesOn() async throws {
        try #require(Bin.built, "\(Bin.missing)")
        let dir = try TempDir()
        let tag = "signal-busy-\(UUID().uuidString)"
        let live = try LiveTabdeck(try setUp(dir, tag: tag))
        live.send("show 3\n")
        #expect(await waitFor("\"method\":\"rows\"", in: dir.file("trace")), "the rows request was never sent")
        live.kill(SIGINT)
        #expect(await waitFor("\"method\":\"$/cancel\"", in: dir.file("trace")), "no $/cancel after Ctrl-C")
        live.send("columns\nquit\n")
        let done = await live.finish()
        #expect(done.status == 1, "a command failed: \(done)")
        #expect(done.err.contains("error: cancelled \"show 3\""), "\(done)")
        #expect(done.out.contains("word"), "the session went on: \(done)")
        #expect(processes(tagged: tag).isEmpty)
    }

    @Test func sigtermDuringACommandStopsItAndQuits() async throws {
        try #require(Bin.built, "\(Bin.missing)")
        let dir = try TempDir()
        let tag = "signal-term-busy-\(UUID().uuidString)"
        let live = try LiveTabdeck(try setUp(dir, tag: tag))
        live.send("show 3\n")
        #expect(await waitFor("\"method\":\"rows\"", in: dir.file("trace")))
        live.kill(SIGTERM)
        let done = await live.finish()
        #expect(done.status == 1, "\(done)")
        #expect(done.err.contains("error: cancelled \"show 3\""), "\(done)")
        #expect(processes(tagged: tag).isEmpty)
    }
}
