import Testing
@testable import TabdeckProtocol

/// `find`'s params and result (PROTOCOL.md 11.15).
@Suite struct FindRequestTests {
    @Test func positionsGoFromTheStartToTheEndThenWrap() {
        #expect(FindRequest(table: "t", text: "a", from: 3).positions(count: 10) == [3..<10])
        #expect(FindRequest(table: "t", text: "a", from: 3, wrap: true).positions(count: 10) == [3..<10, 0..<3])
        #expect(FindRequest(table: "t", text: "a", from: 0, wrap: true).positions(count: 10) == [0..<10])
        #expect(FindRequest(table: "t", text: "a", from: 3, backward: true).positions(count: 10) == [0..<4])
        #expect(FindRequest(table: "t", text: "a", from: 3, backward: true, wrap: true).positions(count: 10) == [0..<4, 4..<10])
        #expect(FindRequest(table: "t", text: "a", from: 9, backward: true, wrap: true).positions(count: 10) == [0..<10])
    }

    @Test func aStartPastTheEndLooksFromTheLastRowBackOrFromTheFirstWithWrap() {
        #expect(FindRequest(table: "t", text: "a", from: 12).positions(count: 10) == [])
        #expect(FindRequest(table: "t", text: "a", from: 12, wrap: true).positions(count: 10) == [10..<10, 0..<10])
        #expect(FindRequest(table: "t", text: "a", from: 12, backward: true).positions(count: 10) == [0..<10])
        #expect(FindRequest(table: "t", text: "a", from: 0, wrap: true).positions(count: 0) == [])
    }

    @Test func paramsRoundTripAndNameWhatIsWrong() throws {
        let r = FindRequest(table: "root", text: "Ada", from: 5, backward: true, wrap: true,
                            sort: [SortKey("name", .descending)], filter: "x", generation: 4)
        #expect(try FindRequest(r.json) == r)
        #expect(throws: JSONFieldError.self) { try FindRequest(["table": "t", "text": "", "from": 0]) }
        do {
            _ = try FindRequest(["table": "t", "text": "a", "from": -1])
            Issue.record("a negative from was accepted")
        } catch { #expect(error.path == "params.from") }
    }

    @Test func aResultWithoutARowHasNoIdAndDidNotWrap() throws {
        let found = FindResult(generation: 2, offset: 7, row: "r7", wrapped: true)
        #expect(try FindResult(found.json) == found)
        #expect(try FindResult(["generation": 2, "offset": .null, "wrapped": true]) == FindResult(generation: 2, offset: nil))
        #expect(try FindResult(["generation": 1, "offset": 3, "row": 42]).row == "42")
        #expect(throws: JSONFieldError.self) { try FindResult(["generation": 1, "offset": -2]) }
    }
}
