import SeededRandom
import Testing
@testable import TabdeckProtocol

/// Short ASCII strings are put together from their bytes (`SmallStrings`): they must be the
/// very strings `String(decoding:as:)` makes (equal, same bytes, same hash, usable as usual).
@Suite struct SmallStringTests {
    @Test func layoutCheckPassesHere() {
        // If this fails the scanner still works, through `String(decoding:as:)` only.
        #expect(SmallStrings.enabled)
    }

    @Test func shortStringsEqualTheStandardLibrarysOnes() throws {
        let pieces = ["a", "Z", "0", " ", "-", "é", "中", "😀", "\\n", "\\\"", "\\u0041", "\\u00e9", "~", "\u{7F}"]
        var random = SplitMix(seed: 15)
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<random.below(18) { text += pieces[random.below(pieces.count)] }
            let json = "\"\(text)\""
            guard case .string(let parsed) = try JSONParser.parse(json) else { Issue.record("not a string: \(json)"); continue }
            let reference = try ReferenceJSONParser.parse(Array(json.utf8)).stringValue
            #expect(parsed == reference, "\(json)")
            #expect(Array(parsed.utf8) == Array((reference ?? "").utf8), "\(json)")
            #expect(parsed.hashValue == (reference ?? "").hashValue, "\(json)")
            var grown = parsed
            grown += "!"
            #expect(grown == (reference ?? "") + "!")
        }
    }

    @Test func shortIdsAndCellsThroughTheRowsPath() throws {
        let line = #"{"jsonrpc":"2.0","id":1,"result":{"rows":[{"id":123456789012345,"cells":["2024-01-02","alpha","0123456789abcde","0123456789abcdef",""]},{"id":"x","cells":["é",1]}]}}"#
        guard case .response(_, let value) = try MessageCodec.decode(Array(line.utf8)) else { Issue.record("not a response"); return }
        let rows = try RowsResult(value).rows
        #expect(rows.map(\.id) == ["123456789012345", "x"])
        #expect(rows[0].cells == [.string("2024-01-02"), .string("alpha"), .string("0123456789abcde"), .string("0123456789abcdef"), .string("")])
        #expect(rows[1].cells == [.string("é"), .int(1)])
    }
}
