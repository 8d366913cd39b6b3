import SeededRandom
import Testing
import TabdeckProtocol

/// The fast scanner, the fast row reading and the direct rows writer against the code they
/// replaced: the same values (doubles bit for bit), the same errors at the same places, the
/// same bytes.
@Suite struct FastParserEquivalenceTests {
    @Test func handWrittenTextsParseAlike() {
        let texts = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, "[]", "{}", "[[]]", #"{"a":{}}"#, " \t\r\n[ 1 , 2 ] \n",
            #""plain""#, #""""#, #""\"\\\/\b\f\n\r\t""#, #""\u0041\u00e9\u4e2d\ud83d\ude00""#,
            #""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ud83d\ud83d""#, #""\ud83d\""#,
            #""\u12""#, #""\u12G4""#, #""\x""#, "\"tab\there\"", "\"nl\nhere\"", #""abc"#, #""abc\"#,
            #"{"a":1,"a":2}"#, #"{"a":1,"b":2,"a":3}"#, #"{"a" 1}"#, #"{"a":1,}"#, #"{"a":1"#, #"{1:2}"#, "{", "[", "[1,", "[1 2]",
            "tru", "nul", "nulx", "trueX", "falsey", "-", "-a", "01", "-01", "1.", "1.e5", "1e", "1e+", ".5", "+1",
            "0", "-0", "-0.0", "0.0", "1e400", "-1e400", "1e-400", "4.9e-324", "2.2250738585072014e-308",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
            "9007199254740992", "9007199254740993", "9007199254740993.0", "9007199254740992.5", "0.1", "0.30000000000000004",
            "1e22", "1e23", "1.7976931348623157e308", "12345.678", "-12345.678", "1E5", "1e-22", "1e-23", "3.14159265358979323846",
            "100000000000000000000000.0", "0.000000000000000000000000001", "123456789012345678.5", "1.5e10", "25e-3",
            #"{"rows":[{"id":1,"cells":[1,2.5,"x",null,true],"extra":{"deep":[{"k":[1,{"z":null}]}]}}]}"#,
            // Keys matched against the previous object's keys: escapes, duplicates, other orders.
            #"[{"a\\\"":1},{"a\\\"":2},{"a\\":3}]"#, #"[{"a\\":1},{"a\\":2}]"#, #"[{"\n":1},{"\n":2},{"\u000a":3}]"#,
            #"[{"a":1,"b":2},{"a":1,"a":3},{"a":1,"b":2,"b":4},{"b":1,"a":2},{"a":1},{"a":1,"b":2,"c":3},{"a":1,"b"}]"#,
            #"[{"é":1,"":2},{"é":3,"":4},{"\u00e9":5,"":6}]"#, #"[{"id":"1","cells":[]},{"id":"2","cells":[]},{"id":"3","cel"#,
            "[1]\n 2", "\n\n  x", "[\n1,\n2,\nx]", String(repeating: "[", count: 600), String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
            String(repeating: "{\"a\":", count: 513) + "1" + String(repeating: "}", count: 513), "",
        ]
        for text in texts { expectSameParse(Array(text.utf8), text) }
    }

    @Test func invalidUTF8IsRepairedAlike() {
        let bodies: [[UInt8]] = [[0xFF], [0xC3], [0xC3, 0x28], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
                                 [0xF4, 0x90, 0x80, 0x80], [0x61, 0x80, 0x62], Array("é".utf8) + [0xFF] + Array("ok".utf8)]
        for body in bodies {
            expectSameParse([0x22] + body + [0x22], "string \(body)")
            expectSameParse([0x22] + body + Array(#"\n"#.utf8) + body + [0x22], "escaped string \(body)")
            expectSameParse(Array(#"{"k":""#.utf8) + body + Array(#""}"#.utf8), "member \(body)")
            expectSameParse([0x5B] + body + [0x5D], "bare \(body)")
        }
    }

    @Test func everyPrefixOfARowsLineFailsAlike() {
        let line = Array(#"{"jsonrpc":"2.0","id":7,"result":{"generation":2,"offset":0,"rows":[{"id":"1","cells":[1,"Zoë \"Z\" \\ Müller",-12.5,"2024-01-31",null,true,1e3]},{"id":2,"cells":["\ud83d\ude00\u00e9\t",false]}],"total":null}}"#.utf8)
        for end in 0...line.count { expectSameParse(Array(line[0..<end]), "prefix of \(end) bytes") }
    }

    @Test func randomMutationsOfRowsLinesParseAlike() {
        var random = SplitMix(seed: 0xC0DEC)
        let line = MessageCodec.encodeRowsResponse(id: .int(3), TestRows.result(rows: 12, &random))
        let alphabet = Array(#"{}[]:,"\/u0123456789.eE+-tfnalsr x"#.utf8) + [0x00, 0x0A, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<4000 {
            var bytes = line
            mutate(&bytes, alphabet: alphabet, &random)
            expectSameParse(bytes, String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func aSpecialByteAtEveryPlaceOfAWordParsesAlike() {
        // The scanner jumps to the first '"', '\\' or control byte of 8 at a time: put each at
        // every offset, after plain, non-ASCII and other special bytes, at and before the end.
        let specials: [[UInt8]] = [[0x22], [0x5C, 0x6E], [0x5C, 0x22], [0x01], [0x1F], [0x00], [0x7F], [0xC3, 0xA9], [0x20], [0x5C]]
        for length in 0...19 {
            for at in 0...length {
                for special in specials {
                    for filler: UInt8 in [0x61, 0x21, 0xE9, 0x1F] {
                        var body = [UInt8](repeating: filler == 0xE9 ? 0x61 : filler, count: length)
                        if filler == 0xE9, length > 2 { body[length / 2] = 0xC3; body[length / 2 + 1] = 0xA9 }
                        body.insert(contentsOf: special, at: at)
                        let text = [0x22] + body + [0x22]
                        expectSameParse(text, "string \(text)")
                        expectSameParse(text + [0x2C, 0x31], "string \(text) then more")
                        expectSameParse(Array(text.dropLast()), "unterminated \(text)")
                    }
                }
            }
        }
    }

    @Test func randomNumbersParseToTheSameBits() {
        var random = SplitMix(seed: 42)
        for _ in 0..<20000 {
            var text = random.below(2) == 0 ? "-" : ""
            let integerDigits = 1 + random.below(20)
            text += String(1 + random.below(9))
            for _ in 1..<integerDigits { text += String(random.below(10)) }
            if random.below(4) == 0 { text = random.below(2) == 0 ? "0" : "-0" }
            if random.below(3) > 0 {
                text += "."
                for _ in 0..<(1 + random.below(20)) { text += String(random.below(10)) }
            }
            if random.below(3) == 0 {
                text += ["e", "E", "e+", "e-", "E-"][random.below(5)] + String(random.below(random.below(2) == 0 ? 30 : 400))
            }
            expectSameParse(Array(text.utf8), text)
        }
    }

    func expectSameParse(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = Result { () throws(JSONParseError) -> JSONValue in try JSONParser.parse(bytes) }
        let reference = Result { () throws(JSONParseError) -> JSONValue in try ReferenceJSONParser.parse(bytes) }
        switch (fast, reference) {
        case (.success(let a), .success(let b)):
            #expect(Exact(a) == Exact(b), "\(label)", sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(label)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(label): fast \(fast), reference \(reference)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct FastRowsTests {
    @Test func rowsReadAlikeOrFailAtTheSamePath() {
        let rows: [JSONValue] = [
            ["id": "a", "cells": [1, "x", 2.5, nil, true]],
            ["id": 42, "cells": []],
            ["id": -7, "cells": [[1, 2], ["k": "v"]], "section": "s", "detail": "d", "hasChildren": true],
            ["cells": [1], "id": "reordered", "unknown": ["nested": [1, ["x": nil]]]],
            ["id": "nulls", "cells": [], "section": nil, "detail": nil, "hasChildren": nil],
            ["id": "f", "cells": [], "hasChildren": false],
            ["id": nil, "cells": []], ["id": 1.5, "cells": []], ["id": true, "cells": []], ["id": ["x"], "cells": []],
            ["cells": []], ["id": "x"], ["id": "x", "cells": nil], ["id": "x", "cells": "abc"], ["id": "x", "cells": ["a": 1]],
            ["id": "x", "cells": [], "section": 3], ["id": "x", "cells": [], "detail": ["d"]], ["id": "x", "cells": [], "hasChildren": "yes"],
            ["id": "x", "cells": [], "hasChildren": 1], "not an object", 5, nil, [1, 2], [:],
        ]
        for (i, row) in rows.enumerated() {
            for value: JSONValue in [["generation": 3, "offset": 10, "rows": [row], "total": 5],
                                     ["rows": [["id": "first", "cells": []], row, ["id": "last", "cells": [1]]]]] {
                let fast = Result { () throws(JSONFieldError) -> RowsResult in try RowsResult(value) }
                let reference = Result { () throws(JSONFieldError) -> RowsResult in try referenceRowsResult(value) }
                #expect(fast == reference, "row \(i): \(row)")
            }
        }
        let outer: [JSONValue] = [["rows": "x"], ["rows": nil], [:], ["rows": [], "total": "many"], ["rows": [], "generation": 1.5], 3]
        for value in outer {
            let fast = Result { () throws(JSONFieldError) -> RowsResult in try RowsResult(value) }
            let reference = Result { () throws(JSONFieldError) -> RowsResult in try referenceRowsResult(value) }
            #expect(fast == reference, "\(value)")
        }
    }

    /// `RowsResult(_:)` as it was: a reader per row.
    func referenceRowsResult(_ value: JSONValue, path: String = "result") throws(JSONFieldError) -> RowsResult {
        let r = try JSONReader(value, path: path)
        var rows: [Row] = []
        for row in try r.objects("rows") { rows.append(try Row(reader: row)) }
        return RowsResult(generation: try r.optionalInt("generation") ?? 0, offset: try r.optionalInt("offset") ?? 0, rows: rows,
                          total: try r.optionalInt("total"), totalSent: r.value("total") != nil)
    }
}

@Suite struct RowsWriterTests {
    @Test func writesTheSameBytesAsTheGenericEncoder() {
        var random = SplitMix(seed: 7)
        for n in 0..<300 {
            let result = TestRows.result(rows: random.below(30), &random)
            let id: RequestID = n % 3 == 0 ? .string("r\(n)\"") : .int(Int64(n) - 100)
            #expect(MessageCodec.encodeRowsResponse(id: id, result) == MessageCodec.encode(.response(id: id, result: result.json)))
        }
    }

    @Test func randomRowsRoundTrip() throws {
        var random = SplitMix(seed: 2026)
        for n in 0..<300 {
            let result = TestRows.result(rows: random.below(40), &random)
            let line = MessageCodec.encodeRowsResponse(id: .int(Int64(n)), result)
            #expect(!line.contains(0x0A))
            guard case .response(.int(Int64(n)), let value) = try MessageCodec.decode(line) else {
                Issue.record("not a response"); continue
            }
            let back = try RowsResult(value)
            #expect(back == result)
            // Doubles come back bit for bit, -0.0 included.
            for (a, b) in zip(back.rows, result.rows) { #expect(a.cells.map(Exact.init) == b.cells.map(Exact.init)) }
        }
    }
}

@Suite struct NegativeZeroTests {
    @Test func negativeZeroIsWrittenWithItsSign() throws {
        #expect(JSONWriter.string(.double(-0.0)) == "-0.0")
        #expect(JSONWriter.string(.double(0.0)) == "0.0")
        #expect(JSONWriter.string(.array([.double(-0.0), .double(-1.0), .double(-0.5)])) == "[-0.0,-1.0,-0.5]")
        let row = Row(id: "z", cells: [.double(-0.0), .double(0.0)])
        let line = MessageCodec.encodeRowsResponse(id: .int(1), RowsResult(generation: 1, offset: 0, rows: [row], total: 1))
        #expect(String(decoding: line, as: UTF8.self).contains(#""cells":[-0.0,0.0]"#))
        guard case .response(_, let value) = try MessageCodec.decode(line) else { Issue.record("not a response"); return }
        let cells = try RowsResult(value).rows[0].cells
        #expect(cells.map(Exact.init) == [Exact(.double(-0.0)), Exact(.double(0.0))])
    }
}

/// A JSON value compared exactly: doubles by their bits (so -0.0 and 0.0 differ).
struct Exact: Equatable {
    let value: JSONValue
    init(_ value: JSONValue) { self.value = value }

    static func == (a: Exact, b: Exact) -> Bool {
        switch (a.value, b.value) {
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { Exact($0) == Exact($1) }
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && zip(x.values, y.values).allSatisfy { Exact($0) == Exact($1) }
        default: return a.value == b.value
        }
    }
}

/// Random rows with every kind of cell and text that needs escaping.
enum TestRows {
    static let texts = ["", "plain", "Zoë Müller", "\"quoted\"", "back\\slash", "tab\tnl\ncr\r", "\u{1}\u{1F}\u{7F}", "😀 emoji",
                        "中文", "a,b,c", "long text " + String(repeating: "xyzé", count: 20), "/slash/", "\u{2028}"]

    static func cell(_ random: inout SplitMix) -> JSONValue {
        switch random.below(9) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> random.below(64))
        case 3: return .double(Double(Int64(random.below(2_000_000)) - 1_000_000) / 100)
        case 4: return .double([0.1, -0.0, 0, 1e15, 1e300, 4.9406564584124654e-324, 123456789.125, 1e22, 1e23, -2.5e-10][random.below(10)])
        case 5: return .double(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF))
        default: return .string(texts[random.below(texts.count)] + texts[random.below(texts.count)])
        }
    }

    static func result(rows count: Int, _ random: inout SplitMix) -> RowsResult {
        var rows: [Row] = []
        for i in 0..<count {
            rows.append(Row(id: random.below(4) == 0 ? texts[random.below(texts.count)] : String(i),
                            cells: (0..<random.below(8)).map { _ in cell(&random) },
                            section: random.below(5) == 0 ? texts[random.below(texts.count)] : nil,
                            detail: random.below(5) == 0 ? texts[random.below(texts.count)] : nil,
                            hasChildren: random.below(4) == 0))
        }
        let total: Int? = random.below(3) == 0 ? nil : random.below(1_000_000)
        return RowsResult(generation: random.below(100), offset: random.below(1_000_000), rows: rows,
                          total: total, totalSent: total != nil || random.below(2) == 0)
    }
}

/// One to three random edits of `bytes` (replace, delete or insert a byte of `alphabet`), for
/// the tests that check the fast scanner against the reference parser on broken input.
func mutate(_ bytes: inout [UInt8], alphabet: [UInt8], _ random: inout SplitMix) {
    for _ in 0..<(1 + random.below(3)) {
        let at = random.below(bytes.count)
        switch random.below(3) {
        case 0: bytes[at] = alphabet[random.below(alphabet.count)]
        case 1: bytes.remove(at: at)
        default: bytes.insert(alphabet[random.below(alphabet.count)], at: at)
        }
    }
}
