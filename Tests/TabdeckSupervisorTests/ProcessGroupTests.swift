import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor
import TabdeckTime

/// Process hygiene: whenever a plugin ends, its whole process group ends with it, children
/// that ignore SIGTERM and let go of the pipes included, on the clock's kill grace.
@Suite(hangGuard) struct ProcessGroupTests {
    /// Starts the fixture in `tab`, has it fork a child ignoring SIGTERM (stdio on /dev/null)
    /// and a grandchild, and returns the group id with the two pids.
    func startFamily(_ supervisor: PluginSupervisor, _ log: EventLog, _ tab: String) async throws -> (group: pid_t, members: [pid_t]) {
        try supervisor.start(pluginSpec(tab))
        let group = try #require(supervisor.processID(tab))
        try supervisor.send(request(1, "family"), to: tab)
        await log.wait { $0.contains { if case .message(tab, .response(.int(1), _)) = $0 { true } else { false } } }
        var members: [pid_t] = []
        for case .message(tab, .response(.int(1), let result)) in log.events {
            if case .object(let object) = result, case .int(let child)? = object["child"], case .int(let grandchild)? = object["grandchild"] {
                members = [pid_t(child), pid_t(grandchild)]
            }
        }
        try #require(members.count == 2)
        #expect(Set(liveGroupMembers(group, except: group)) == Set(members), "both are in the plugin's group")
        return (group, members)
    }

    /// After the plugin ended, the reaper sends SIGTERM to the group (ignored) and waits for the
    /// clock to reach the kill grace; advancing it ends the rest with SIGKILL.
    func expectGroupEndsAfterTheKillGrace(_ supervisor: PluginSupervisor, _ log: EventLog, _ clock: ManualClock, _ tab: String, group: pid_t, from start: Double) async throws {
        await supervisor.waitForGroupGrace(tab, at: start + 2)
        #expect(supervisor.isRunning(tab), "`.exited` waits for the group")
        #expect(!liveGroupMembers(group, except: group).isEmpty, "SIGTERM is ignored until the grace ends")
        clock.advance(by: 2)
        #expect(await log.exited(tab) != nil)
        #expect(liveGroupMembers(group, except: group).isEmpty)
        await eventually { groupIsEmpty(group) }  // once init has reaped the orphans
    }

    @Test func aCrashEndsTheWholeGroup() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(killGrace: .seconds(2))
        let (group, _) = try await startFamily(supervisor, log, "crash")
        try supervisor.send(request(2, "crash", .int(3)), to: "crash")
        try await expectGroupEndsAfterTheKillGrace(supervisor, log, clock, "crash", group: group, from: 0)
        #expect(await log.exited("crash")?.exit == .exited(3))
    }

    @Test func aStopEndsTheWholeGroup() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(killGrace: .seconds(2))
        let (group, _) = try await startFamily(supervisor, log, "stop")
        supervisor.stop("stop", grace: .seconds(2))  // the plugin itself exits on shutdown
        try await expectGroupEndsAfterTheKillGrace(supervisor, log, clock, "stop", group: group, from: 0)
        #expect(await log.exited("stop")?.exit == .exited(0))
    }

    @Test func aKillEndsTheWholeGroupAtOnce() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(killGrace: .seconds(2))
        let (group, _) = try await startFamily(supervisor, log, "kill")
        supervisor.kill("kill")
        #expect(await log.exited("kill")?.exit == .signalled(SIGKILL))
        #expect(clock.now() == 0)
        #expect(liveGroupMembers(group, except: group).isEmpty)
        await eventually { groupIsEmpty(group) }
    }

    @Test func stopAllReturnsOnlyWhenEveryGroupIsEmpty() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(killGrace: .seconds(2))
        let first = try await startFamily(supervisor, log, "one")
        let second = try await startFamily(supervisor, log, "two")
        let stopped = Flag()
        Thread {
            supervisor.stopAll(grace: .seconds(2))
            stopped.set()
        }.start()
        await supervisor.waitForGroupGrace("one", at: 2)
        await supervisor.waitForGroupGrace("two", at: 2)
        #expect(!stopped.isSet, "stopAll waits for the groups")
        clock.advance(by: 2)
        await eventually { stopped.isSet }
        for group in [first.group, second.group] {
            #expect(liveGroupMembers(group, except: group).isEmpty, "stopAll returned with group \(group) alive")
        }
    }

    /// The documented limit: a process that calls setsid leaves the group and is out of reach.
    /// If it holds the pipes, the reaper stops waiting for them after idle time on the clock.
    @Test func aProcessThatLeftTheGroupIsOutOfReachAndItsPipesAreGivenUpOnTheClock() async throws {
        let (supervisor, log, clock) = makeManualSupervisor()
        // The shell exits only once the child has left the group (it touches a file after its
        // setsid), so the group's cleanup cannot reach it first on a loaded machine.
        let script = """
            F=$(mktemp -u); setsid sh -c "touch $F; exec sleep 60" & while [ ! -e "$F" ]; do sleep 0.01; done
            rm -f "$F"; echo $! >&2; exit 0
            """
        try supervisor.start(PluginSpec(tab: "escape", command: ["/bin/sh", "-c", script]))
        await log.wait { $0.contains { if case .stderrLine("escape", _) = $0 { true } else { false } } }
        let escaped = try #require(log.events.compactMap { event -> pid_t? in
            if case .stderrLine("escape", let line) = event { return pid_t(line) }
            return nil
        }.first)
        defer { kill(escaped, SIGKILL) }
        #expect(supervisor.isRunning("escape"), "the pipes are still open: the reaper waits for them on the clock")
        // Idle pipes for 0.5 s of clock time: given up. (Advanced in steps: a read that ends
        // meanwhile restarts the idle time.)
        await eventually {
            clock.advance(by: 0.5)
            return log.events.contains { $0.isExited("escape") }
        }
        #expect(await log.exited("escape")?.exit == .exited(0))
        #expect(kill(escaped, 0) == 0, "setsid took it out of the group: the supervisor cannot see it")
    }
}

/// A line that grows past the 4 MiB limit is cut off the moment it crosses it.
@Suite(hangGuard) struct OverlongLineTests {
    @Test(arguments: [false, true])
    func aHundredMegabyteLineIsCutOffAtTheLimit(newline: Bool) async throws {
        let (supervisor, log, clock) = makeManualSupervisor()
        try supervisor.start(pluginSpec("flood"))
        try supervisor.send(request(1, "flood", json(#"{"mib":100,"newline":\#(newline)}"#)), to: "flood")
        let exited = await log.exited("flood")
        #expect(exited?.exit == .signalled(SIGKILL))
        #expect(clock.now() == 0, "no timeout was needed")
        let limit = LineSplitter.defaultMaxLineLength
        let reasons = log.events.compactMap { event -> String? in
            if case .protocolViolation("flood", let reason) = event { return reason }
            return nil
        }
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("line longer than the limit of \(limit) bytes (cut off after ") == true, "\(reasons)")
        // The host read the line up to the read(2) that crossed the limit, and no further.
        let read = supervisor.stdoutBytesRead("flood")
        #expect(read > limit && read <= limit + readChunkSize, "read \(read) bytes")
        #expect(!log.events.contains { $0.replyID == .int(1) })
    }
}
