import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor
import TabdeckTime

/// Traffic: replies matched by id, timeouts, progress, cancellation, notifications.
@Suite(hangGuard) struct MessagingTests {
    @Test func manyRequestsInFlightRepliedOutOfOrder() async throws {
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("echo"))
        let count: Int64 = 200
        for id in 1...count {
            try supervisor.send(request(id, "later", .int(id * 10)), to: "echo")
        }
        try supervisor.send(request(1000, "echo", .string("first")), to: "echo")
        try supervisor.send(request(1001, "flush"), to: "echo")
        await log.wait { $0.contains { $0.replyID == .int(1001) } }

        let replies = log.events.compactMap { event -> (RequestID, JSONValue)? in
            if case .message("echo", .response(let id, let result)) = event { return (id, result) }
            return nil
        }
        #expect(replies.first?.0 == .int(1000))
        #expect(replies.first?.1 == .string("first"))
        // The held requests come back last-in first-out, each with its own params.
        #expect(replies.dropFirst().prefix(Int(count)).map(\.0) == (1...count).reversed().map { RequestID.int($0) })
        for (id, result) in replies.dropFirst().prefix(Int(count)) {
            guard case .int(let value) = id else { continue }
            #expect(result == .int(value * 10))
        }
        #expect(supervisor.pendingRequests("echo").isEmpty)
        #expect(supervisor.droppedReplies("echo") == 0)
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func notificationsPassThrough() async throws {
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("notify"))
        try supervisor.send(request(1, "notify", .int(3)), to: "notify")
        await log.wait { $0.contains { $0.replyID == .int(1) } }
        #expect(log.events.contains(.message(tab: "notify", .notification(method: "badge", params: json(#"{"value":3}"#)))))
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func hangingRequestTimesOutAndItsLateReplyIsDropped() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(requestTimeout: .seconds(10))
        try supervisor.start(pluginSpec("slow"))
        try supervisor.send(request(7, "later", .int(7)), to: "slow")  // held: no answer until "flush"
        clock.advance(by: 9.9)
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        #expect(supervisor.pendingRequests("slow") == [.int(7)])
        clock.advance(by: 0.1)
        let timedOut = SupervisorEvent.timedOut(tab: "slow", id: .int(7), method: "later", after: 10)
        await log.wait { $0.contains(timedOut) }
        #expect(timedOut.reason == #"plugin did not answer "later" (request 7) within 10 s"#)
        #expect(supervisor.pendingRequests("slow").isEmpty)

        // The reply comes late (flush answers 7, then 8): dropped and counted, not delivered.
        try supervisor.send(request(8, "flush"), to: "slow")
        await log.wait { $0.contains { $0.replyID == .int(8) } }
        #expect(supervisor.droppedReplies("slow") == 1)
        #expect(!log.events.contains { $0.replyID == .int(7) })
        #expect(supervisor.isRunning("slow"), "a timeout is reported; what to do is the caller's policy")
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func handshakeHasItsOwnTimeout() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(requestTimeout: .seconds(30), handshakeTimeout: .seconds(5))
        try supervisor.start(pluginSpec("handshake"))
        try supervisor.send(request(1, "initialize"), to: "handshake")  // the fixture never answers it
        try supervisor.send(request(2, "later"), to: "handshake")
        clock.advance(by: 4.9)
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        clock.advance(by: 0.1)
        await log.wait { $0.contains(.timedOut(tab: "handshake", id: .int(1), method: "initialize", after: 5)) }
        #expect(supervisor.pendingRequests("handshake") == [.int(2)])
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func progressKeepsARequestAliveForAsLongAsItComes() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(requestTimeout: .seconds(10))
        try supervisor.start(pluginSpec("progress"))
        try supervisor.send(request(1, "later"), to: "progress")
        // Progress every 9 s for 40 rounds: six minutes, far past any fixed limit.
        for round in 1...40 {
            clock.advance(by: 9)
            try supervisor.send(.notification(method: "tick", params: .int(Int64(round))), to: "progress")
            await log.wait { events in
                events.contains(.message(tab: "progress", .notification(method: "progress", params: json(#"{"done":\#(round),"total":null}"#))))
            }
        }
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        #expect(supervisor.pendingRequests("progress") == [.int(1)])
        // Then the plugin falls silent: the request times out 10 s after the last progress.
        clock.advance(by: 9.9)
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        clock.advance(by: 0.1)
        await log.wait { $0.contains(.timedOut(tab: "progress", id: .int(1), method: "later", after: 10)) }
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func streamedChunksResetTheTimerLikeProgress() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(requestTimeout: .seconds(10))
        try supervisor.start(pluginSpec("chunks"))
        try supervisor.send(request(1, "later"), to: "chunks")
        for round in 1...3 {
            clock.advance(by: 9)
            try supervisor.send(.notification(method: "chunk", params: json(#"{"id":1}"#)), to: "chunks")
            await log.wait { events in
                events.filter { if case .message(_, .notification("rows/chunk", _)) = $0 { true } else { false } }.count == round
            }
        }
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        clock.advance(by: 10)
        await log.wait { $0.contains(.timedOut(tab: "chunks", id: .int(1), method: "later", after: 10)) }
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func cancelReplacesTheTimerAndTheLateReplyIsDropped() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(requestTimeout: .seconds(10), cancelGrace: .seconds(5))
        try supervisor.start(pluginSpec("cancel"))
        try supervisor.send(request(1, "later"), to: "cancel")
        try supervisor.send(.notification(method: "$/cancel", params: json(#"{"id":1}"#)), to: "cancel")
        #expect(supervisor.pendingRequests("cancel").isEmpty)
        try supervisor.send(request(2, "flush"), to: "cancel")  // answers 1 (dropped), then 2
        await log.wait { $0.contains { $0.replyID == .int(2) } }
        clock.advance(by: 20)  // past request 1's timeout and its cancel grace
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        #expect(!log.events.contains { if case .cancelIgnored = $0 { return true } else { return false } })
        #expect(!log.events.contains { $0.replyID == .int(1) })
        #expect(supervisor.droppedReplies("cancel") == 1)
        #expect(supervisor.isRunning("cancel"))
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func aCancelledRequestLeftUnansweredIsSettledByAnAnswerToALaterRequest() async throws {
        // The protocol lets a plugin drop a cancelled request silently: answering a request
        // sent after the cancel shows it went on.
        let (supervisor, log, clock) = makeManualSupervisor(cancelGrace: .seconds(5))
        try supervisor.start(pluginSpec("silent"))
        try supervisor.send(request(1, "later"), to: "silent")
        try supervisor.send(.notification(method: "$/cancel", params: json(#"{"id":1}"#)), to: "silent")
        try supervisor.send(.notification(method: "$/cancel", params: json(#"{"id":99}"#)), to: "silent")  // unknown: ignored
        try supervisor.send(request(2, "echo", .int(2)), to: "silent")
        await log.wait { $0.contains { $0.replyID == .int(2) } }
        clock.advance(by: 5)
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .cancelIgnored = $0 { return true } else { return false } })
        #expect(supervisor.isRunning("silent"))
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func aPluginIgnoringACancelIsStoppedAfterTheGraceWhateverItsProgress() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(requestTimeout: .seconds(10), cancelGrace: .seconds(5))
        try supervisor.start(pluginSpec("ignore"))
        let pid = try #require(supervisor.processID("ignore"))
        try supervisor.send(request(1, "later"), to: "ignore")
        try supervisor.send(request(2, "later"), to: "ignore")
        try supervisor.send(.notification(method: "$/cancel", params: json(#"{"id":1}"#)), to: "ignore")
        clock.advance(by: 3)
        try supervisor.send(.notification(method: "tick", params: .int(1)), to: "ignore")  // progress: does not extend the cancel
        await log.wait { $0.contains { if case .message(_, .notification("progress", _)) = $0 { true } else { false } } }
        clock.advance(by: 1.9)
        supervisor.fireDueDeadlines()
        #expect(!log.events.contains { if case .cancelIgnored = $0 { return true } else { return false } })
        clock.advance(by: 0.1)
        let ignored = SupervisorEvent.cancelIgnored(tab: "ignore", id: .int(1), method: "later", after: 5)
        let exited = await log.exited("ignore")
        #expect(exited?.exit == .signalled(SIGTERM))  // the fixture dies of SIGTERM
        #expect(exited?.pending == [.int(2)])
        let events = log.events
        #expect(events.contains(ignored))
        #expect(ignored.reason == #"plugin ignored the cancel of "later" (request 1) for 5 s; it was stopped"#)
        #expect(!events.contains { if case .timedOut = $0 { return true } else { return false } })
        #expect(groupIsEmpty(pid) || liveGroupMembers(pid, except: pid).isEmpty)
    }

    @Test func aPluginIgnoringACancelAndSIGTERMIsKilledAfterTheKillGrace() async throws {
        let (supervisor, log, clock) = makeManualSupervisor(cancelGrace: .seconds(5), killGrace: .seconds(2))
        try await startReady(supervisor, log, pluginSpec("stubborn", mode: "stubborn"))  // SIGTERM handler set
        try supervisor.send(request(1, "later"), to: "stubborn")
        try supervisor.send(.notification(method: "$/cancel", params: json(#"{"id":1}"#)), to: "stubborn")
        clock.advance(by: 5)
        await log.wait { $0.contains(.cancelIgnored(tab: "stubborn", id: .int(1), method: "later", after: 5)) }
        await supervisor.waitForStopStep("stubborn", at: 7)
        #expect(supervisor.isRunning("stubborn"), "SIGTERM is ignored; SIGKILL waits for the kill grace")
        clock.advance(by: 2)
        #expect(await log.exited("stubborn")?.exit == .signalled(SIGKILL))
    }

    @Test func duplicateIDAndTooLongMessagesAreRefused() async throws {
        let (supervisor, _) = makeSupervisor()
        try supervisor.start(pluginSpec("refuse"))
        try supervisor.send(request(1, "later"), to: "refuse")
        #expect(throws: SupervisorError.duplicateRequestID(tab: "refuse", id: .int(1))) {
            try supervisor.send(request(1, "later"), to: "refuse")
        }
        let huge = JSONValue.string(String(repeating: "x", count: LineSplitter.defaultMaxLineLength))
        #expect(throws: SupervisorError.self) { try supervisor.send(request(2, "echo", huge), to: "refuse") }
        #expect(supervisor.pendingRequests("refuse") == [.int(1)])
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }
}
