import Testing
import TabdeckProtocol

/// The one ledger of a plugin connection's requests.
@Suite struct RequestLedgerTests {
    @Test func expiresInSendOrderAndOnlyOnce() {
        var deadlines = RequestLedger<Void>()
        let insertedRows = deadlines.insert(.int(2), method: "rows", timeout: 1, now: 0)
        #expect(insertedRows)
        let insertedOpen = deadlines.insert(.int(1), method: "open", timeout: 1, now: 0)
        #expect(insertedOpen)
        let insertedX = deadlines.insert(.string("x"), method: "rows", timeout: 3, now: 0)
        #expect(insertedX)
        let insertedDuplicate = deadlines.insert(.int(1), method: "again", timeout: 1, now: 0)
        #expect(!insertedDuplicate)
        #expect(deadlines.earliest == 1)
        let early = deadlines.expire(now: 0.999)
        #expect(early.isEmpty)
        let expired = deadlines.expire(now: 1)
        #expect(expired.map(\.id) == [.int(2), .int(1)])
        #expect(expired.map(\.method) == ["rows", "open"])
        #expect(expired.map(\.expiry) == [.timedOut(seconds: 1), .timedOut(seconds: 1)])
        let again = deadlines.expire(now: 2)
        #expect(again.isEmpty)
        #expect(deadlines.pendingIDs == [.string("x")])
    }

    @Test func progressRestartsTheTimeoutWithoutAnyLimit() {
        var deadlines = RequestLedger<Void>()
        _ = deadlines.insert(.int(1), method: "rows", timeout: 10, now: 0)
        // An hour of work reporting progress every 9 s: never due.
        var now = 0.0
        while now < 3600 {
            now += 9
            let r1 = deadlines.expire(now: now)
            #expect(r1.isEmpty)
            deadlines.progress(now: now)
        }
        #expect(deadlines.earliest == now + 10)
        let r2 = deadlines.expire(now: now + 9.999)
        #expect(r2.isEmpty)
        let r3 = deadlines.expire(now: now + 10)
        #expect(r3.map(\.expiry) == [.timedOut(seconds: 10)])
    }

    @Test func aCancelledRequestHasTheGraceThatProgressDoesNotExtend() {
        var deadlines = RequestLedger<Void>()
        _ = deadlines.insert(.int(1), method: "rows", timeout: 10, now: 0)
        _ = deadlines.insert(.int(2), method: "rows", timeout: 10, now: 0)
        let r4 = deadlines.cancel(.int(1), grace: 5, now: 2)
        #expect(r4)
        let r5 = deadlines.cancel(.int(1), grace: 5, now: 3)
        #expect(!r5, "a second cancel changes nothing")
        let r6 = deadlines.cancel(.int(9), grace: 5, now: 3)
        #expect(!r6, "an unknown id is ignored")
        #expect(deadlines.pendingIDs == [.int(2)], "a cancelled request is no longer pending")
        #expect(deadlines.contains(.int(1)))
        deadlines.progress(now: 6)
        let r7 = deadlines.expire(now: 6.999)
        #expect(r7.isEmpty)
        let due = deadlines.expire(now: 7)
        #expect(due.map(\.id) == [.int(1)])
        #expect(due.map(\.expiry) == [.cancelIgnored(seconds: 5)])
        #expect(deadlines.earliest == 16, "the running request was extended by the progress")
    }

    @Test func aCancelledRequestIsSettledByItsAnswerOrByALaterOnesAnswer() {
        var deadlines = RequestLedger<Void>()
        _ = deadlines.insert(.int(1), method: "rows", timeout: 10, now: 0)
        _ = deadlines.insert(.int(2), method: "rows", timeout: 10, now: 0)
        _ = deadlines.insert(.int(3), method: "rows", timeout: 10, now: 0)
        deadlines.cancel(.int(1), grace: 5, now: 1)
        deadlines.cancel(.int(3), grace: 5, now: 1)
        // Request 2 was sent before the cancels: its answer says nothing about them.
        let r8 = deadlines.answer(.int(2))
        #expect(r8 != nil && r8?.cancel == nil)
        #expect(deadlines.contains(.int(1)) && deadlines.contains(.int(3)))
        // Request 3 answered late: settled, and known to be a cancelled one.
        let r9 = deadlines.answer(.int(3))
        #expect(r9?.cancel != nil)
        // Request 4, sent after the cancel of 1, is answered: the plugin went on, so it dropped 1.
        _ = deadlines.insert(.int(4), method: "rows", timeout: 10, now: 2)
        let r10 = deadlines.answer(.int(4))
        #expect(r10 != nil)
        #expect(!deadlines.contains(.int(1)))
        #expect(deadlines.isEmpty)
        let r11 = deadlines.expire(now: 100)
        #expect(r11.isEmpty)
    }

    @Test func removeAllReturnsRunningRequestsInSendOrder() {
        var deadlines = RequestLedger<Void>()
        for id in [5, 3, 9, 4] as [Int64] {
            _ = deadlines.insert(.int(id), method: "rows", timeout: 1, now: 0)
        }
        let first = deadlines.remove(.int(3))
        let second = deadlines.remove(.int(3))
        #expect(first != nil)
        #expect(second == nil)
        deadlines.cancel(.int(4), grace: 5, now: 0)
        let pending = deadlines.removeAll()
        #expect(pending == [.int(5), .int(9)])
        #expect(deadlines.isEmpty)
    }
}
