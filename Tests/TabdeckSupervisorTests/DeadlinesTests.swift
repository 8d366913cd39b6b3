import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor

@Suite struct DeadlinesTests {
    let start = ContinuousClock.now

    @Test func expiresInSendOrderAndOnlyOnce() {
        var deadlines = Deadlines()
        let insertedRows = deadlines.insert(.int(2), method: "rows", timeout: .seconds(1), hardTimeout: .seconds(5), now: start)
        #expect(insertedRows)
        let insertedOpen = deadlines.insert(.int(1), method: "open", timeout: .seconds(1), hardTimeout: .seconds(5), now: start)
        #expect(insertedOpen)
        let insertedX = deadlines.insert(.string("x"), method: "rows", timeout: .seconds(3), hardTimeout: .seconds(5), now: start)
        #expect(insertedX)
        let insertedDuplicate = deadlines.insert(.int(1), method: "again", timeout: .seconds(1), hardTimeout: .seconds(5), now: start)
        #expect(!insertedDuplicate)
        #expect(deadlines.earliest == start + .seconds(1))
        let early = deadlines.expire(now: start + .milliseconds(999))
        #expect(early.isEmpty)
        let expired = deadlines.expire(now: start + .seconds(1))
        #expect(expired.map(\.id) == [.int(2), .int(1)])
        #expect(expired.map(\.method) == ["rows", "open"])
        let again = deadlines.expire(now: start + .seconds(2))
        #expect(again.isEmpty)
        #expect(deadlines.pendingIDs == [.string("x")])
    }

    @Test func progressResetsButNeverPastTheHardDeadline() {
        var deadlines = Deadlines()
        _ = deadlines.insert(.int(1), method: "rows", timeout: .seconds(2), hardTimeout: .seconds(5), now: start)
        deadlines.progress(now: start + .seconds(1))
        #expect(deadlines.earliest == start + .seconds(3))
        deadlines.progress(now: start + .seconds(4))
        #expect(deadlines.earliest == start + .seconds(5))
        let early = deadlines.expire(now: start + .milliseconds(4999))
        let due = deadlines.expire(now: start + .seconds(5))
        #expect(early.isEmpty)
        #expect(due.map(\.id) == [.int(1)])
    }

    @Test func removeAllReturnsPendingInSendOrder() {
        var deadlines = Deadlines()
        for id in [5, 3, 9] as [Int64] {
            _ = deadlines.insert(.int(id), method: "rows", timeout: .seconds(1), hardTimeout: .seconds(2), now: start)
        }
        let first = deadlines.remove(.int(3))
        let second = deadlines.remove(.int(3))
        #expect(first != nil)
        #expect(second == nil)
        let pending = deadlines.removeAll()
        #expect(pending == [.int(5), .int(9)])
        #expect(deadlines.isEmpty)
    }

    @Test func cancelParamsNameTheRequest() {
        #expect(cancelledRequestID(json(#"{"id":12}"#)) == .int(12))
        #expect(cancelledRequestID(json(#"{"id":"a"}"#)) == .string("a"))
        #expect(cancelledRequestID(json(#"{"other":1}"#)) == nil)
        #expect(cancelledRequestID(.null) == nil)
    }
}
