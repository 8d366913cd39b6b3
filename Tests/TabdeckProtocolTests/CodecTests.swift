import Testing
import TabdeckProtocol

@Suite struct JSONTests {
    @Test func roundTripsValues() throws {
        let value: JSONValue = ["s": "a\"b\\c\n\u{1}é😀", "i": -42, "big": .int(Int64.max), "d": 1.5, "t": true, "n": nil,
                                "a": [1, "x", [:]], "o": ["k": []]]
        let text = JSONWriter.string(value)
        #expect(!text.contains("\n"))
        #expect(try JSONParser.parse(text) == value)
    }

    @Test func parsesEscapesAndSurrogates() throws {
        #expect(try JSONParser.parse(#""\u00e9\ud83d\ude00\/\t""#) == .string("é😀/\t"))
        #expect(try JSONParser.parse("1e3") == .double(1000))
        #expect(try JSONParser.parse("-0.25") == .double(-0.25))
        #expect(try JSONParser.parse("123456789012345678901234") == .double(123456789012345678901234))
    }

    @Test func reportsWhereTheTextIsBroken() {
        func error(_ text: String) -> String {
            do { _ = try JSONParser.parse(text); return "parsed" } catch { return error.description }
        }
        #expect(error("{\"a\":1,}") == "line 1, column 8: expected a string key, found '}'")
        #expect(error("[1,\n 2,\n x]") == "line 3, column 2: unexpected character 'x', expected a value")
        #expect(error("\"abc") == "line 1, column 1: unterminated string")
        #expect(error("01") == "line 1, column 1: invalid number (leading zero)")
        #expect(error("[1] 2") == "line 1, column 5: unexpected text after the JSON value")
        #expect(error("\"a\u{1}\"") == "line 1, column 3: control character byte 0x1 in a string (must be escaped)")
        #expect(error(String(repeating: "[", count: 600)).contains("nesting deeper than 512"))
    }
}

@Suite struct MessageCodecTests {
    @Test func roundTripsEveryShape() throws {
        let messages: [Message] = [
            .request(id: .int(7), method: "rows", params: RowsRequest(table: "t", offset: 100, limit: 50, sort: [SortKey("a", .descending)], generation: 3).json),
            .request(id: .string("x"), method: "shutdown", params: .null),
            .notification(method: "badge", params: ["value": 3]),
            .response(id: .int(7), result: ["ok": true]),
            .failure(id: .int(8), error: RPCError(code: RPCError.methodNotFound, message: "no", data: ["m": "x"])),
            .failure(id: nil, error: RPCError(code: RPCError.parseError, message: "bad")),
        ]
        for m in messages {
            #expect(try MessageCodec.decode(MessageCodec.encode(m)) == m)
        }
    }

    @Test func malformedLinesGiveClearErrors() {
        func error(_ line: String) -> String {
            do { _ = try MessageCodec.decode(Array(line.utf8)); return "decoded" } catch { return error.description }
        }
        #expect(error("not json").hasPrefix("malformed JSON at column 1"))
        #expect(error("[1,2]") == "a message must be a JSON object, got an array")
        #expect(error(#"{"id":1}"#) == #"a message needs "method", "result" or "error""#)
        #expect(error(#"{"id":[1],"result":1}"#) == #"field "id" must be an integer or a string, got an array"#)
        #expect(error(#"{"method":5}"#) == #"field "method" must be a string, got an integer"#)
        #expect(error(#"{"result":1}"#) == #"a response needs an "id""#)
    }

    @Test func typedResultsNameTheBadField() {
        let bad: JSONValue = ["table": "t", "columns": [["id": "a", "type": "colour"]], "total": 3]
        #expect(throws: JSONFieldError(path: "result.columns[0].type", reason: #"unknown column type "colour" (text, integer, decimal, bool, date, enum)"#)) {
            try TableDescription(bad)
        }
        let rows: JSONValue = ["generation": 1, "offset": 0, "rows": [["id": 1, "cells": [1]], ["id": true, "cells": []]]]
        #expect(throws: JSONFieldError(path: "result.rows[1].id", reason: "expected a string or an integer, got a boolean")) {
            try RowsResult(rows)
        }
    }
}

@Suite struct LineSplitterTests {
    @Test func splitsManyLinesInOneChunkAndAcrossChunks() {
        var s = LineSplitter()
        #expect(s.push(Array("a\nbb\r\ncc".utf8)) == [.line(Array("a".utf8)), .line(Array("bb".utf8))])
        #expect(s.push(Array("c\n\nd".utf8)) == [.line(Array("ccc".utf8)), .line([])])
        #expect(s.finish() == [.line(Array("d".utf8))])
        #expect(s.finish() == [])
    }

    @Test func overLongLinesAreCountedNotBuffered() {
        var s = LineSplitter(maxLineLength: 8)
        #expect(s.push(Array("0123456789".utf8)) == [])
        #expect(s.push(Array("ab\nok\n".utf8)) == [.overlong(byteCount: 12), .line(Array("ok".utf8))])
        #expect(s.push(Array("12345678\n".utf8)) == [.line(Array("12345678".utf8))])
    }

    @Test func randomChunkingGivesTheSameLines() {
        let text = (0..<500).map { "line \($0) " + String(repeating: "x", count: $0 % 37) }.joined(separator: "\n") + "\n"
        let bytes = Array(text.utf8)
        var rng = SystemRandomNumberGenerator()
        var s = LineSplitter()
        var lines: [LineSplitter.Piece] = []
        var i = 0
        while i < bytes.count {
            let n = Int.random(in: 1...200, using: &rng)
            lines += s.push(Array(bytes[i..<min(bytes.count, i + n)]))
            i += n
        }
        #expect(lines == text.split(separator: "\n").map { .line(Array($0.utf8)) })
    }
}

@Suite struct QueryRequestTests {
    @Test func roundTripsWithSourcesThroughJSONText() throws {
        let request = QueryRequest(sql: "SELECT * FROM root JOIN prices USING (id)",
                                   sources: [QuerySource(name: "prices", path: "/data/prices.parquet"),
                                             QuerySource(name: "t_2024", path: "/data/2024.csv")])
        let line = MessageCodec.encode(.request(id: .int(3), method: "query", params: request.json))
        guard case .request(_, _, let params) = try MessageCodec.decode(line) else { Issue.record("not a request"); return }
        #expect(try QueryRequest(params) == request)
        #expect(params["sources"]?.arrayValue?.count == 2)
    }

    @Test func noSourcesIsTheOldRequest() throws {
        #expect(QueryRequest(sql: "SELECT 1").json == ["sql": "SELECT 1"])
        #expect(try QueryRequest(["sql": "SELECT 1", "sources": []]) == QueryRequest(sql: "SELECT 1"))
    }

    @Test func refusesUnsafeNamesRepeatsAndRelativePaths() {
        #expect(throws: JSONFieldError(path: "params.sources[0].name", reason: #"not a SQL-safe name ([a-z_][a-z0-9_]*): "1x""#)) {
            try QueryRequest(["sql": "x", "sources": [["name": "1x", "path": "/a"]]])
        }
        #expect(throws: JSONFieldError(path: "params.sources[1].name", reason: #""a" names two sources"#)) {
            try QueryRequest(["sql": "x", "sources": [["name": "a", "path": "/a"], ["name": "a", "path": "/b"]]])
        }
        #expect(throws: JSONFieldError(path: "params.sources[0].path", reason: #"not an absolute path: "a.csv""#)) {
            try QueryRequest(["sql": "x", "sources": [["name": "a", "path": "a.csv"]]])
        }
        #expect(!QuerySource.isSQLName("Sales") && !QuerySource.isSQLName("") && QuerySource.isSQLName("_x9"))
    }
}
