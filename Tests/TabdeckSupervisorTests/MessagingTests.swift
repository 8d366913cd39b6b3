import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor

/// Traffic: replies matched by id, timeouts, progress, cancellation, notifications.
@Suite struct MessagingTests {
    @Test func manyRequestsInFlightRepliedOutOfOrder() async throws {
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("echo"))
        let count: Int64 = 200
        for id in 1...count {
            try supervisor.send(request(id, "later", .int(id * 10)), to: "echo")
        }
        try supervisor.send(request(1000, "echo", .string("first")), to: "echo")
        try supervisor.send(request(1001, "flush"), to: "echo")
        #expect(await log.wait { $0.contains { $0.replyID == .int(1001) } })

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
        #expect(await log.wait { $0.contains { $0.replyID == .int(1) } })
        #expect(log.events.contains(.message(tab: "notify", .notification(method: "badge", params: json(#"{"value":3}"#)))))
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func hangingRequestTimesOutAndItsLateReplyIsDropped() async throws {
        // Times with room for a loaded machine: the timer fires at 0.5 s, the reply comes at 2 s.
        let (supervisor, log) = makeSupervisor(requestTimeout: .milliseconds(500))
        try await startReady(supervisor, log, pluginSpec("slow"))
        let sent = ContinuousClock.now
        try supervisor.send(request(7, "slow", .int(2000)), to: "slow")
        #expect(await log.wait { $0.contains(.timedOut(tab: "slow", id: .int(7), method: "slow")) })
        let firedAfter = log.time { $0 == .timedOut(tab: "slow", id: .int(7), method: "slow") }.map { sent.duration(to: $0) }
        // Not before the timeout; the upper bound only tells it from "never" on a loaded machine.
        #expect(firedAfter.map { $0 >= .milliseconds(490) && $0 < .milliseconds(1900) } == true, "fired after \(String(describing: firedAfter))")

        // The reply comes at ~2 s and is dropped, not delivered.
        let deadline = ContinuousClock.now + .seconds(5)
        while supervisor.droppedReplies("slow") < 1 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(supervisor.droppedReplies("slow") == 1)
        #expect(!log.events.contains { $0.replyID == .int(7) })
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func handshakeHasItsOwnTimeout() async throws {
        let (supervisor, log) = makeSupervisor(requestTimeout: .seconds(30), handshakeTimeout: .milliseconds(200))
        try await startReady(supervisor, log, pluginSpec("handshake"))
        try supervisor.send(request(1, "initialize"), to: "handshake")  // the fixture never answers it
        #expect(await log.wait(timeout: .seconds(3)) { $0.contains(.timedOut(tab: "handshake", id: .int(1), method: "initialize")) })
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func progressResetsTheTimer() async throws {
        let (supervisor, log) = makeSupervisor(requestTimeout: .milliseconds(1500))
        try await startReady(supervisor, log, pluginSpec("progress"))
        // Six progress notifications 400 ms apart: 2.4 s in all, well past the timeout.
        try supervisor.send(request(1, "progress", json(#"{"count":6,"every":400}"#)), to: "progress")
        #expect(await log.wait { $0.contains { $0.replyID == .int(1) } })
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        let progressCount = log.events.filter {
            if case .message(_, .notification("progress", _)) = $0 { return true } else { return false }
        }.count
        #expect(progressCount == 6)
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func streamedChunksResetTheTimerLikeProgress() async throws {
        let (supervisor, log) = makeSupervisor(requestTimeout: .milliseconds(1500))
        try await startReady(supervisor, log, pluginSpec("chunks"))
        // Six rows/chunk notifications 400 ms apart: 2.4 s in all, well past the timeout.
        try supervisor.send(request(1, "chunks", json(#"{"count":6,"every":400}"#)), to: "chunks")
        #expect(await log.wait { $0.contains { $0.replyID == .int(1) } })
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func progressCannotExtendPastTheHardTimeout() async throws {
        // Progress every 300 ms keeps the 1.2 s request timer from firing; the 2 s hard limit
        // ends the request anyway, long before the 4.8 s of progress.
        let (supervisor, log) = makeSupervisor(requestTimeout: .milliseconds(1200), hardTimeout: .seconds(2))
        try await startReady(supervisor, log, pluginSpec("hard"))
        let sent = ContinuousClock.now
        try supervisor.send(request(1, "progress", json(#"{"count":16,"every":300}"#)), to: "hard")
        #expect(await log.wait { $0.contains(.timedOut(tab: "hard", id: .int(1), method: "progress")) })
        let firedAfter = log.time { if case .timedOut = $0 { return true } else { return false } }.map { sent.duration(to: $0) }
        #expect(firedAfter.map { $0 >= .milliseconds(1990) && $0 < .milliseconds(4000) } == true, "fired after \(String(describing: firedAfter))")
        #expect(await log.wait { $0.contains { if case .message(_, .notification("progress", _)) = $0 { return true } else { return false } } })
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
    }

    @Test func cancelStopsTheTimerAndTheReplyIsDropped() async throws {
        let (supervisor, log) = makeSupervisor(requestTimeout: .milliseconds(1000))
        try await startReady(supervisor, log, pluginSpec("cancel"))
        try supervisor.send(request(1, "later"), to: "cancel")
        try supervisor.send(.notification(method: "$/cancel", params: json(#"{"id":1}"#)), to: "cancel")
        #expect(supervisor.pendingRequests("cancel").isEmpty)
        try supervisor.send(request(2, "flush"), to: "cancel")  // answers 1 (dropped), then 2
        #expect(await log.wait { $0.contains { $0.replyID == .int(2) } })
        try await Task.sleep(for: .milliseconds(1200))  // past request 1's timer, had it not stopped
        #expect(!log.events.contains { if case .timedOut = $0 { return true } else { return false } })
        #expect(!log.events.contains { $0.replyID == .int(1) })
        #expect(supervisor.droppedReplies("cancel") == 1)
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
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
