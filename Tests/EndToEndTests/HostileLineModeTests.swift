import Foundation
import Testing

/// The hostile-plugin cases that need the host in a process of its own: its memory under a
/// notification flood (the in-process suite, HostilePluginTests, shares its memory with every
/// other test running beside it).
@Suite struct HostileLineModeTests {
    /// The host's memory under a flood of notifications: at most 32 MB over idle (issue 10, point 3).
    @Test(.enabled(if: Bin.built)) func aNotificationFloodCostsBoundedMemory() async throws {
        let setup = try HostileSetup(mode: "flood")
        defer { setup.killLeftovers() }
        let state = setup.dir.file("state")
        let host = try LiveTabdeck(["--line", "--config", setup.config, "--state-dir", state])
        defer { if host.process.isRunning { host.kill(SIGKILL) } }
        host.send("tab select healthy\nshow\n")
        #expect(await host.waitForOutput("rows 1–10 of 10", timeout: 30), "the healthy tab: \(host.out) \(host.err)")
        let idle = try #require(residentBytes(host.process.processIdentifier))

        host.send("tab select broken\nshow\n")
        let log = state + "/logs/broken.log"
        let sent = await waitForFlood(log: log)
        let flooded = residentBytes(host.process.processIdentifier) ?? 0
        let grown = (flooded - idle) / 1_048_576
        #expect(grown <= 32, "the host grew by \(grown) MB under a flood of \(sent) notifications (idle \(idle / 1_048_576) MB, bound: +32 MB)")
        if ProcessInfo.processInfo.environment["HOSTILE_TIMING"] != nil {
            print("hostile flood: \(sent) notifications, idle \(idle / 1_048_576) MB, flooded \(flooded / 1_048_576) MB")
        }

        // The plugin behaves again and the host quits: nothing is left.
        try setup.behave()
        host.send("quit\n")
        host.closeInput()
        _ = await host.finish(timeout: 15)
        #expect(setup.leftovers.isEmpty, "processes left: \(setup.leftovers)")
    }

    /// A 100 MB line, with or without its newline, and a line past the limit: the host reads at
    /// most the limit and 64 KiB more, so its peak memory (VmHWM) stays within 32 MB of idle.
    @Test(.enabled(if: Bin.built), arguments: ["huge-line", "huge-line-no-newline", "overlong"])
    func aHugeLineCostsBoundedMemory(_ mode: String) async throws {
        let setup = try HostileSetup(mode: mode)
        defer { setup.killLeftovers() }
        let state = setup.dir.file("state")
        let host = try LiveTabdeck(["--line", "--config", setup.config, "--state-dir", state])
        defer { if host.process.isRunning { host.kill(SIGKILL) } }
        host.send("tab select healthy\nshow\n")
        #expect(await host.waitForOutput("rows 1–10 of 10", timeout: 30), "the healthy tab: \(host.out) \(host.err)")
        let idle = try #require(residentBytes(host.process.processIdentifier))

        host.send("tab select broken\nshow\n")
        #expect(await host.waitForError("protocol violation", timeout: 60), "the broken tab: \(host.err)")
        let peak = residentBytes(host.process.processIdentifier, field: "VmHWM") ?? 0
        let grown = (peak - idle) / 1_048_576
        #expect(grown <= 32, "\(mode): the host's peak grew by \(grown) MB over idle (\(idle / 1_048_576) MB; bound +32 MB)")

        try setup.behave()
        host.send("quit\n")
        host.closeInput()
        _ = await host.finish(timeout: 15)
        #expect(setup.leftovers.isEmpty, "processes left: \(setup.leftovers)")
    }
}
