import SeededRandom
import Testing
@testable import TabdeckProtocol

/// `MessageCodec.decode` reads a `rows` reply straight to rows (`JSONScanner+Rows.swift`): the
/// message must equal the generic parser's for every line, fast path taken or not, errors
/// included, and `RowsResult(_:)` must give the same rows or the same error.
@Suite struct RowsFastPathTests {
    /// The two decodings of `line`, checked alike; returns whether the fast path took the result.
    @discardableResult
    func expectSameDecode(_ line: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expectAlike(line, label, path: "result", sourceLocation: sourceLocation) {
            if case .response(_, let result) = $0 { result } else { nil }
        }
    }

    /// The two decodings of `line` (fast path on and off) are equal, errors included; so are
    /// the rows read from the member `member` picks (at `path`). Returns whether the fast path
    /// took that member.
    func expectAlike(_ line: [UInt8], _ label: String, path: String, sourceLocation: SourceLocation,
                     member: (Message) -> JSONValue?) -> Bool {
        let fast = Result { () throws(ProtocolError) -> Message in try MessageCodec.decode(line, rowsFastPath: true) }
        let generic = Result { () throws(ProtocolError) -> Message in try MessageCodec.decode(line, rowsFastPath: false) }
        switch (fast, generic) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(label)", sourceLocation: sourceLocation)
            #expect(a.hashValue == b.hashValue, "\(label)", sourceLocation: sourceLocation)
            guard let x = member(a), let y = member(b) else { return false }
            #expect(Exact(x) == Exact(y), "\(label)", sourceLocation: sourceLocation)
            let rowsA = Result { () throws(JSONFieldError) -> RowsResult in try RowsResult(x, path: path) }
            let rowsB = Result { () throws(JSONFieldError) -> RowsResult in try RowsResult(y, path: path) }
            #expect(rowsA == rowsB, "\(label)", sourceLocation: sourceLocation)
            if case .object(let o) = x, case .rows = o.storage { return true }
            return false
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(label)", sourceLocation: sourceLocation)
            return false
        default:
            Issue.record("\(label): fast \(fast), generic \(generic)", sourceLocation: sourceLocation)
            return false
        }
    }

    func line(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func writtenRowsRepliesTakeTheFastPath() {
        var random = SplitMix(seed: 0xFA57)
        for n in 0..<300 {
            let result = TestRows.result(rows: random.below(30), &random)
            let bytes = MessageCodec.encodeRowsResponse(id: .int(Int64(n)), result)
            #expect(expectSameDecode(bytes, "reply \(n)"), "reply \(n) should take the fast path")
        }
    }

    @Test func usualShapesTakeTheFastPath() {
        let texts = [
            #"{"jsonrpc":"2.0","id":1,"result":{"generation":1,"offset":0,"rows":[{"id":1,"cells":[1,"a"]},{"id":-2,"cells":[]},{"id":0,"cells":[null]}],"total":3}}"#,
            #"{"jsonrpc":"2.0","id":"x","result":{"rows":[{"id":"a","cells":[{"k":[1,2]},[3]],"section":null,"detail":"d","hasChildren":false},{"id":"b","cells":[],"section":"s","detail":null,"hasChildren":true}]}}"#,
            #"{"result":{"total":null,"rows":[]},"id":3,"jsonrpc":"2.0"}"#,
            #" { "id" : 4 , "result" : { "rows" : [ { "cells" : [ 1 , 2.5 ] , "id" : "z" } , { "cells" : [ ] , "id" : "y" } ] , "offset" : 7 } } "#,
            #"{"id":5,"result":{"rows":[{"id":-0,"cells":[]},{"id":-2,"cells":[]},{"id":-10,"cells":[]},{"id":9223372036854775807,"cells":[]},{"id":-9223372036854775808,"cells":[]}]}}"#,
            // Rows of different shapes: ids of both kinds, keys in other orders, other keys, escaped keys.
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[]},{"id":2,"cells":[]},{"id":"3","cells":[]}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[],"hasChildren":null},{"id":"b","cells":[],"hasChildren":false}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[]},{"cells":[],"id":"b"},{"id":"c","cells":[]}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[]},{"id":"b","cells":[],"detail":"d"},{"section":null,"id":"c","cells":[1]}]}}"#,
            #"{"id":1,"result":{"rows":[{"\u0069d":"a","cells":[]},{"\u0069d":"b","cells":[]}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[]},{"\u0069d":"b","cells":[]}]}}"#,
            // Members of the wrong type outside the rows: taken, and RowsResult reports them as before.
            #"{"id":6,"result":{"generation":"two","rows":[{"id":"a","cells":[]}]}}"#,
            #"{"id":7,"result":{"offset":1.5,"rows":[],"total":"many"}}"#,
        ]
        for text in texts { #expect(expectSameDecode(line(text), text), "\(text) should take the fast path") }
    }

    @Test func unusualShapesFallBackAlike() {
        let texts = [
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[]}],"extra":1}}"#,               // unknown result member
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[],"x":1}]}}"#,                    // unknown row member
            #"{"id":1,"result":{"rows":[],"rows":[{"id":"a","cells":[]}]}}"#,                // repeated member
            #"{"id":1,"result":{"rows":[{"id":"a","id":"b","cells":[]}]}}"#,                 // repeated row key
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[]},{"id":"b"}]}}"#,               // a missing key
            #"{"id":1,"result":{"rows":[{}]}}"#, #"{"id":1,"result":{}}"#, #"{"id":1,"result":{"rows":null}}"#,
            #"{"id":1,"result":{"rows":[1]}}"#, #"{"id":1,"result":{"rows":[{"id":1.5,"cells":[]}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":1e2,"cells":[]}]}}"#, #"{"id":1,"result":{"rows":[{"id":true,"cells":[]}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":"a","cells":"x"}]}}"#, #"{"id":1,"result":{"rows":[{"id":"a","cells":[],"section":1}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":"a","cells":[],"hasChildren":"y"}]}}"#,
            #"{"id":1,"result":{"rows":[{"id":18446744073709551616,"cells":[]}]}}"#,        // integer too large
            #"{"id":1,"result":[1,2]}"#, #"{"id":1,"result":"rows"}"#, #"{"id":1,"result":null}"#,
            #"{"id":1,"error":{"code":1,"message":"m"},"result":{"rows":[]}}"#,
            #"{"method":"progress","params":{"result":{"rows":[]}}}"#,                        // not the top-level result
            #"{"id":1,"method":"rows","params":{"rows":[]}}"#,
        ]
        for text in texts { expectSameDecode(line(text), text) }
    }

    @Test func errorsAreTheSameAtEveryPrefix() {
        let text = #"{"jsonrpc":"2.0","id":7,"result":{"generation":2,"offset":0,"rows":[{"id":"1","cells":[1,"Zoë \"Z\" \\ Müller",-12.5,"2024-01-31",null,true,1e3],"section":null,"detail":"d","hasChildren":true},{"id":"2","cells":["\ud83d\ude00\u00e9\t",false],"section":"s","detail":null,"hasChildren":false}],"total":null}}"#
        let bytes = line(text)
        for end in 0...bytes.count { expectSameDecode(Array(bytes[0..<end]), "prefix of \(end) bytes") }
        expectSameDecode(bytes + line(" x"), "text after the value")
        expectSameDecode(bytes.dropLast() + line(#","x":}"#), "error after the result")
    }

    @Test func randomMutationsDecodeAlike() {
        var random = SplitMix(seed: 0xBAD5)
        let alphabet = Array(#"{}[]:,"\/u0123456789.eE+-tfnalsr xid"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        for n in 0..<3000 {
            let result = TestRows.result(rows: 1 + random.below(6), &random)
            var bytes = MessageCodec.encodeRowsResponse(id: .int(Int64(n)), result)
            mutate(&bytes, alphabet: alphabet, &random)
            expectSameDecode(bytes, String(decoding: bytes, as: UTF8.self))
        }
    }

    /// A `rows/chunk` notification (`{"id":N,"rows":[...]}` params) as a streaming plugin writes it.
    func chunkLine(id: Int, _ rows: [Row]) -> [UInt8] {
        line(#"{"jsonrpc":"2.0","method":"rows/chunk","params":{"id":\#(id),"rows":"#
             + JSONWriter.string(.array(rows.map(\.json))) + "}}")
    }

    /// Whether the chunk's params took the fast path; the message equals the generic parser's
    /// either way, and so do the rows read from it.
    @discardableResult
    func expectSameChunk(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expectAlike(bytes, label, path: "params", sourceLocation: sourceLocation) {
            if case .notification(_, let params) = $0 { params } else { nil }
        }
    }

    @Test func rowsChunkNotificationsTakeTheFastPath() {
        var random = SplitMix(seed: 0xC4C)
        for n in 0..<200 {
            let rows = TestRows.result(rows: random.below(30), &random).rows
            #expect(expectSameChunk(chunkLine(id: n, rows), "chunk \(n)"), "chunk \(n) should take the fast path")
        }
        // Other params, and chunks of other shapes, decode as the generic parser does.
        for text in [#"{"method":"progress","params":{"done":1,"total":2}}"#, #"{"method":"rows/chunk","params":{"id":1,"rows":[],"x":1}}"#,
                     #"{"method":"rows/chunk","params":{"id":1,"rows":[{"id":"a"}]}}"#] {
            #expect(!expectSameChunk(line(text), text))
        }
    }

    @Test func randomlyMutatedChunksDecodeAlike() {
        var random = SplitMix(seed: 0xC4C2)
        let alphabet = Array(#"{}[]:,"\/u0123456789.eE+-tfnalsr xid"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        for n in 0..<2000 {
            var bytes = chunkLine(id: n, TestRows.result(rows: 1 + random.below(6), &random).rows)
            mutate(&bytes, alphabet: alphabet, &random)
            expectSameChunk(bytes, String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func aDecodedRowsObjectBehavesAsAnyObject() throws {
        let bytes = line(#"{"id":1,"result":{"generation":1,"rows":[{"id":5,"cells":["a"],"section":null}],"total":1}}"#)
        guard case .response(_, .object(let fast)) = try MessageCodec.decode(bytes, rowsFastPath: true),
              case .response(_, .object(let generic)) = try MessageCodec.decode(bytes, rowsFastPath: false)
        else { Issue.record("not a response with an object"); return }
        guard case .rows = fast.storage else { Issue.record("fast path not taken"); return }
        #expect(fast.keys == ["generation", "rows", "total"])
        #expect(fast["rows"] == [["id": 5, "cells": ["a"], "section": nil]])
        #expect(fast["total"] == 1 && fast["missing"] == nil && fast.count == 3)
        #expect(Array(fast.map(\.0)) == generic.keys && Array(fast.map(\.1)) == generic.values)
        var changedFast = fast, changedGeneric = generic
        changedFast["total"] = 2; changedGeneric["total"] = 2
        changedFast["generation"] = nil; changedGeneric["generation"] = nil
        #expect(changedFast == changedGeneric && changedFast != fast)
        #expect(Set([JSONValue.object(fast), .object(generic)]).count == 1)
        // Carrying the rows does not make every JSON value bigger.
        #expect(MemoryLayout<JSONObject>.size == 16)
        #expect(MemoryLayout<JSONValue>.size == 17)
    }
}
