import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor
import TabdeckTime

/// Processes: spawning, violations, crashes, stderr, the quit sequence, reaping.
@Suite(hangGuard) struct LifecycleTests {
    @Test func malformedLineIsAViolationThenExited() async throws {
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("bad"))
        try supervisor.send(request(1, "echo", .int(1)), to: "bad")
        await log.wait { $0.contains { $0.replyID == .int(1) } }
        try supervisor.send(request(2, "garbage"), to: "bad")
        let exited = await log.exited("bad")
        #expect(exited?.exit == .signalled(SIGKILL))
        #expect(exited?.pending == [.int(2)])
        let events = log.events
        let violation = events.firstIndex {
            if case .protocolViolation("bad", let reason) = $0 { return reason.contains("this is not json") }
            return false
        }
        #expect(violation != nil)
        // Nothing the plugin wrote after the bad line is delivered; .exited is last.
        #expect(!events.contains { $0.replyID == .int(2) })
        #expect(events.last?.isExited("bad") == true)
        #expect(!supervisor.isRunning("bad"))
    }

    @Test func deepNestingIsDecodedOrRefusedWithoutCrashing() async throws {
        let (supervisor, log) = makeSupervisor()
        let deep = "import sys\nfor n in (500, 100000):\n    sys.stdout.write('{\"jsonrpc\":\"2.0\",\"method\":\"deep\",\"params\":' + '[' * n + ']' * n + '}\\n')\nsys.stdout.flush()\nsys.stdin.read()"
        try supervisor.start(PluginSpec(tab: "deep", command: [python, "-c", deep]))
        #expect(await log.exited("deep")?.exit == .signalled(SIGKILL))
        let events = log.events
        #expect(events.count == 3)
        if case .message("deep", .notification("deep", _)) = events.first {} else { Issue.record("\(events.first as Any)") }
        if case .protocolViolation("deep", _) = events.dropFirst().first {} else { Issue.record("\(events.dropFirst().first as Any)") }
    }

    @Test func aHugeLineToAPluginThatDoesNotReadNeverBlocksTheCaller() async throws {
        let (supervisor, log) = makeSupervisor()
        // The plugin never reads and never ends: a blocking write would wait for it forever
        // (the hang guard would end the test), so returning at all proves the send is queued.
        try supervisor.start(PluginSpec(tab: "full", command: ["/bin/sh", "-c", "exec sleep 600"]))
        let big = JSONValue.string(String(repeating: "x", count: 3 * 1024 * 1024))
        for _ in 0..<3 {
            try supervisor.send(.notification(method: "big", params: big), to: "full")  // 9 MiB into a 64 KiB pipe
        }
        #expect(supervisor.isRunning("full"), "the sends returned while the plugin still lives and reads nothing")
        supervisor.kill("full")
        #expect(await log.exited("full")?.exit == .signalled(SIGKILL))
    }

    @Test func overlongLineIsAViolation() async throws {
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("long"))
        try supervisor.send(request(1, "huge", .int(Int64(LineSplitter.defaultMaxLineLength + 10))), to: "long")
        #expect(await log.exited("long")?.exit == .signalled(SIGKILL))
        #expect(log.events.contains {
            if case .protocolViolation("long", let reason) = $0 { return reason.contains("longer than") }
            return false
        })
        #expect(!log.events.contains { $0.replyID == .int(1) })
    }

    @Test func crashReportsTheStatusAndThePendingRequests() async throws {
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("crash"))
        try supervisor.send(request(1, "later"), to: "crash")
        try supervisor.send(.request(id: .string("b"), method: "later", params: .null), to: "crash")
        try supervisor.send(request(3, "crash", .int(3)), to: "crash")
        let exited = await log.exited("crash")
        #expect(exited?.exit == .exited(3))
        #expect(exited?.pending == [.int(1), .string("b"), .int(3)])
        #expect(log.events.filter { $0.isExited("crash") }.count == 1)
        #expect(throws: SupervisorError.notRunning(tab: "crash")) {
            try supervisor.send(request(4, "echo"), to: "crash")
        }
    }

    @Test func everyMessageComesBeforeExited() async throws {
        let (supervisor, log) = makeSupervisor()
        let flood = "import sys\nfor i in range(2000): sys.stdout.write('{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":%d}\\n' % i)\nsys.exit(5)"
        try supervisor.start(PluginSpec(tab: "flood", command: [python, "-c", flood]))
        #expect(await log.exited("flood")?.exit == .exited(5))
        let events = log.events
        #expect(events.count == 2001)
        #expect(events.dropLast().enumerated().allSatisfy { $0.element == .message(tab: "flood", .notification(method: "n", params: .int(Int64($0.offset)))) })
        #expect(events.last?.isExited("flood") == true)
    }

    @Test func childLeftBehindHoldingThePipesIsKilled() async throws {
        let (supervisor, log, clock) = makeManualSupervisor()
        try supervisor.start(PluginSpec(tab: "orphan", command: ["/bin/sh", "-c", "sleep 30 & echo $! >&2; exit 4"]))
        let pid = try #require(supervisor.processID("orphan"))
        let exited = await log.exited("orphan")
        #expect(exited?.exit == .exited(4))
        #expect(clock.now() == 0, "SIGTERM to the group at the plugin's exit: no grace needed")
        let orphan = log.events.compactMap { event -> pid_t? in
            if case .stderrLine("orphan", let line) = event { return pid_t(line) }
            return nil
        }.first
        #expect(orphan != nil)
        #expect(liveGroupMembers(pid, except: pid).isEmpty, "the sleep it left behind is still running")
        // Reparented to init, which reaps it in its own time.
        await eventually { groupIsEmpty(pid) }
    }

    @Test func stderrGoesToTheLogFileAndNeverBecomesAMessage() async throws {
        let folder = temporaryDirectory()
        let logFile = folder + "/logs/nested/tab.log"
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("err", logFile: logFile))
        let lines = ["plain text", #"{"jsonrpc":"2.0","id":1,"result":"fake"}"#, "caf\u{E9}"]
        try supervisor.send(request(2, "stderr", .array(lines.map { .string($0) })), to: "err")
        await log.wait { $0.contains { $0.replyID == .int(2) } }
        await log.wait { events in lines.allSatisfy { events.contains(.stderrLine(tab: "err", line: $0)) } }
        #expect(!log.events.contains { $0.replyID == .int(1) })
        #expect(supervisor.droppedReplies("err") == 0)
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))

        let written = try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(written.count == 3)
        for (record, line) in zip(written, lines) {
            // 2026-11-22T10:00:00.123Z <line>
            let stamp = record.prefix(24)
            #expect(stamp.count == 24 && stamp.hasSuffix("Z") && stamp.dropFirst(10).first == "T", "\(record)")
            #expect(record.dropFirst(25) == line[...])
        }
    }

    @Test func environmentWorkingDirectoryAndProcessGroup() async throws {
        let folder = temporaryDirectory()
        let script = writeScript("env.sh", """
            #!/bin/sh
            echo "$FOO $TABDECK_PROTOCOL $(pwd) $(cut -d' ' -f5 /proc/$$/stat)" >&2
            read line
            """)
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(PluginSpec(tab: "env", command: [script], environment: ["FOO": "bar baz"], workingDirectory: folder))
        let pid = try #require(supervisor.processID("env"))
        await log.wait { $0.contains { if case .stderrLine("env", _) = $0 { return true } else { return false } } }
        let realFolder = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        #expect(log.events.contains(.stderrLine(tab: "env", line: "bar baz 1 \(realFolder) \(pid)")))
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
        #expect(await log.exited("env")?.exit == .exited(0))
    }

    @Test func cooperativeStopSendsShutdownAndSwallowsItsReply() async throws {
        let (supervisor, log, _) = makeManualSupervisor()
        try supervisor.start(pluginSpec("nice"))
        let pid = try #require(supervisor.processID("nice"))
        supervisor.stop("nice", grace: .seconds(2))
        supervisor.stop("nice", grace: .seconds(2))  // already stopping: no-op
        let exited = await log.exited("nice")
        #expect(exited?.exit == .exited(0))  // on a manual clock that never moved: within the grace
        #expect(!log.events.contains { if case .message = $0 { return true } else { return false } })
        #expect(supervisor.droppedReplies("nice") == 0)
        #expect(isReaped(pid))
        supervisor.stop("nice")  // not running: no-op
        supervisor.kill("nice")
    }

    @Test func pluginIgnoringShutdownAndSIGTERMIsKilled() async throws {
        let (supervisor, log, clock) = makeManualSupervisor()
        try await startReady(supervisor, log, pluginSpec("stubborn", mode: "stubborn"))  // up, handlers set
        supervisor.stop("stubborn", grace: .seconds(2))
        #expect(throws: SupervisorError.stdinClosed(tab: "stubborn", errno: nil)) {
            try supervisor.send(request(2, "echo"), to: "stubborn")
        }
        // shutdown and stdin closed: the grace runs to t = 2, then SIGTERM (ignored) and 2 s more.
        await supervisor.waitForStopStep("stubborn", at: 2)
        clock.advance(by: 2)
        await supervisor.waitForStopStep("stubborn", at: 4)
        #expect(supervisor.isRunning("stubborn"))
        clock.advance(by: 2)
        #expect(await log.exited("stubborn")?.exit == .signalled(SIGKILL))
    }

    @Test func stopAllBlocksUntilEveryChildIsReaped() async throws {
        let (supervisor, log, clock) = makeManualSupervisor()
        try supervisor.start(pluginSpec("a"))
        try supervisor.start(pluginSpec("b", mode: "stubborn"))
        try supervisor.start(PluginSpec(tab: "c", command: ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"]))
        try supervisor.send(request(1, "echo"), to: "b")
        await log.wait { $0.contains { $0.replyID == .int(1) } }
        let pids = ["a", "b", "c"].compactMap { supervisor.processID($0) }
        #expect(pids.count == 3)
        #expect(throws: SupervisorError.alreadyRunning(tab: "a")) { try supervisor.start(pluginSpec("a")) }

        let stopped = Flag()
        Thread {
            supervisor.stopAll(grace: .seconds(2))
            stopped.set()
        }.start()
        await drive(clock, supervisor, tabs: ["a", "b", "c"]) { stopped.isSet }
        for tab in ["a", "b", "c"] {
            #expect(!supervisor.isRunning(tab))
            #expect(log.events.filter { $0.isExited(tab) }.count == 1)
        }
        for pid in pids {
            #expect(isReaped(pid), "pid \(pid) not reaped")
            #expect(liveGroupMembers(pid, except: pid).isEmpty, "group \(pid) not empty")
        }
    }

    @Test func writingToAPluginThatClosedItsStdinIsAnErrorNotACrash() async throws {
        let (supervisor, log) = makeSupervisor()
        // The plugin lives long (it is killed below) and the loop runs until the writer thread
        // meets EPIPE, however long a loaded machine takes (the hang guard bounds it).
        try supervisor.start(PluginSpec(tab: "deaf", command: ["/bin/sh", "-c", "exec 0<&-; echo closed >&2; sleep 600"]))
        await log.wait { $0.contains(.stderrLine(tab: "deaf", line: "closed")) }
        var failure: SupervisorError? = nil
        var id: Int64 = 0
        while failure == nil {
            id += 1
            do {
                try supervisor.send(.notification(method: "status", params: .int(id)), to: "deaf")
            } catch {
                failure = error
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(failure == .stdinClosed(tab: "deaf", errno: EPIPE))
        #expect(failure?.description.contains("deaf") == true)
        supervisor.kill("deaf")
        #expect(await log.exited("deaf")?.exit == .signalled(SIGKILL))
    }

    @Test func commandNotFoundIsReportedClearly() async {
        let (supervisor, _) = makeSupervisor()
        do {
            try supervisor.start(PluginSpec(tab: "ghost", command: ["tabdeck-no-such-plugin", "--flag"]))
            Issue.record("started a command that does not exist")
        } catch {
            guard case .commandNotFound(tab: "ghost", command: ["tabdeck-no-such-plugin", "--flag"], _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.description.contains("tab 'ghost'"))
            #expect(error.description.contains("command not found: tabdeck-no-such-plugin"))
            // The reason alone, for a caller that names the tab itself (the host's status line).
            #expect(error.reason.hasPrefix("command not found: tabdeck-no-such-plugin"), "\(error.reason)")
            #expect(error.description == "tab 'ghost': " + error.reason)
        }
        #expect(throws: SupervisorError.commandNotFound(tab: "g2", command: ["/no/such/plugin"], searchPath: nil)) {
            try supervisor.start(PluginSpec(tab: "g2", command: ["/no/such/plugin"]))
        }
        #expect(throws: SupervisorError.commandNotFound(tab: "g3", command: ["sh"], searchPath: "/nowhere")) {
            try supervisor.start(PluginSpec(tab: "g3", command: ["sh"], environment: ["PATH": "/nowhere"]))
        }
        let notExecutable = writeScript("plain.txt", "not a program")
        _ = chmod(notExecutable, 0o644)
        #expect(throws: SupervisorError.notExecutable(tab: "g4", command: [notExecutable], errno: EACCES)) {
            try supervisor.start(PluginSpec(tab: "g4", command: [notExecutable]))
        }
        #expect(throws: SupervisorError.emptyCommand(tab: "g5")) { try supervisor.start(PluginSpec(tab: "g5", command: [])) }
        #expect(throws: SupervisorError.workingDirectoryUnavailable(tab: "g6", path: "/no/such/dir", errno: ENOENT)) {
            try supervisor.start(PluginSpec(tab: "g6", command: ["sh"], workingDirectory: "/no/such/dir"))
        }
        #expect(!supervisor.isRunning("ghost"))
    }
}
