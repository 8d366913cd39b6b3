import Testing
import TabdeckCore
import TabdeckProtocol

/// How cells become text: a decimal column's `decimals`.
@Suite struct CellTextTests {
    let money = ColumnSpec(id: "balance", type: .decimal, decimals: 2)

    @Test func fixedDigitsAfterThePoint() {
        #expect(CellText.of(.double(1370.3), in: money) == "1370.30")
        #expect(CellText.of(.double(-73.09), in: money) == "-73.09")
        #expect(CellText.of(.int(7), in: money) == "7.00")
        #expect(CellText.of(.double(0.005), in: money) == "0.01")  // half away from zero
        #expect(CellText.of(.double(2.675), in: money) == "2.68")  // as a person rounds it (printf says 2.67)
        #expect(CellText.of(.double(-0.001), in: money) == "0.00")  // no "-0.00"
        #expect(CellText.fixed(1234.5678, 0) == "1235")
        #expect(CellText.fixed(0.1, 15) == "0.100000000000000")
        #expect(CellText.fixed(1e300, 2) == CellText.of(.double(1e300)))  // too large: plain text
        #expect(CellText.fixed(.nan, 2) == "nan")
    }

    @Test func otherCellsAndColumnsAreUnchanged() {
        #expect(CellText.of(.string("n/a"), in: money) == "n/a")
        #expect(CellText.of(.null, in: money) == "")
        #expect(CellText.of(.double(1370.3), in: ColumnSpec(id: "x", type: .decimal)) == "1370.3")
        // Only decimal columns take the hint.
        #expect(ColumnSpec(id: "n", type: .integer, decimals: 2).decimals == nil)
    }

    /// Numbers sent as text (PROTOCOL.md 10.3, *Exact numbers*): shown as sent, `decimals`
    /// applied to the digits themselves.
    @Test func exactNumbersAreShownAsSentAndRoundedOnTheirDigits() {
        let plain = ColumnSpec(id: "x", type: .decimal), big = ColumnSpec(id: "n", type: .integer)
        #expect(CellText.of(.string("1234444433332222.44434322"), in: plain) == "1234444433332222.44434322")
        #expect(CellText.of(.string("123456789012345678901234567890"), in: big) == "123456789012345678901234567890")
        #expect(CellText.of(.string("3.00"), in: plain) == "3.00")
        #expect(CellText.of(.string("-0"), in: plain) == "-0")
        #expect(CellText.of(.string("NaN"), in: money) == "NaN" && CellText.of(.string("-Infinity"), in: money) == "-Infinity")
        // `decimals` on the text, half away from zero, never through a double.
        #expect(CellText.of(.string("2.675"), in: money) == "2.68")
        #expect(CellText.of(.string("0.005"), in: money) == "0.01")
        #expect(CellText.of(.string("-0.005"), in: money) == "-0.01")
        #expect(CellText.of(.string("999.995"), in: money) == "1000.00")
        #expect(CellText.of(.string("959.5"), in: money) == "959.50")
        #expect(CellText.of(.string("1234444433332222.44434322"), in: money) == "1234444433332222.44")
        #expect(CellText.of(.string("123456789012.12345678"), in: ColumnSpec(id: "x", type: .decimal, decimals: 6)) == "123456789012.123457")
        // A JSON integer too, exactly past a double's 53 bits.
        #expect(CellText.of(.int(9_007_199_254_740_993), in: money) == "9007199254740993.00")
        // A text that is not a number is text.
        #expect(CellText.of(.string("12 apples"), in: money) == "12 apples")
        #expect(CellText.of(.string("1.5"), in: big) == "1.5")
    }

    /// Exports and `copy`: a number text is written as sent (CSV and JSON), TSV as shown.
    @Test func csvFieldsAreQuotedByScalarsWrittenAsBytes() {
        // A quote with a combining mark on it is still a quote; \r\n is still a line break.
        let cases: [(String, String)] = [
            ("plain", "plain"), ("", ""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("\"\u{031B}", "\"\"\"\u{031B}\""), ("one\r\ntwo", "\"one\r\ntwo\""), ("cr\r", "\"cr\r\""),
            ("emoji 🙂, tab\there", "\"emoji 🙂, tab\there\""), ("明\u{031B}", "明\u{031B}"),
        ]
        for (text, field) in cases {
            #expect(TableFormat.csvRecord([.string(text)], columns: []) == field, "\(Array(text.unicodeScalars))")
        }
        let columns = [ColumnSpec(id: "a", type: .text), ColumnSpec(id: "n", type: .integer), ColumnSpec(id: "b", type: .bool)]
        var bytes: [UInt8] = Array("x".utf8)
        TableFormat.appendCSVRecord([.string("q\"\u{031B}"), .int(-7), .bool(true)], columns: columns, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x\"q\"\"\u{031B}\",-7,true")
        #expect(TableFormat.csvRecord([.string("q\"\u{031B}"), .int(-7), .bool(true)], columns: columns) == "\"q\"\"\u{031B}\",-7,true")
    }

    @Test func exactNumbersAreExportedAsSent() {
        let columns = [ColumnSpec(id: "amount", type: .decimal, decimals: 2), ColumnSpec(id: "n", type: .integer)]
        let cells: [JSONValue] = [.string("3.00"), .string("123456789012345678901234567890")]
        #expect(TableFormat.csvRecord(cells, columns: columns) == "3.00,123456789012345678901234567890")
        #expect(TableFormat.csvRecord([.string("959.5"), .null], columns: columns) == "959.5,")
        #expect(TableFormat.jsonObject(cells, columns: columns) == #"{"amount":"3.00","n":"123456789012345678901234567890"}"#)
        #expect(TableFormat.tsvLine([.string("2.675"), .string("-0")], columns: columns) == "2.68\t-0")
    }

    @Test func theHintIsReadWrittenAndChecked() throws {
        let spec = try ColumnSpec(reader: JSONReader(["id": "b", "type": "decimal", "decimals": 2], path: "columns[0]"))
        #expect(spec.decimals == 2)
        #expect(spec.json["decimals"] == 2)
        #expect(ColumnSpec(id: "x", type: .decimal).json["decimals"] == nil)
        #expect(throws: JSONFieldError.self) {
            try ColumnSpec(reader: JSONReader(["id": "b", "type": "decimal", "decimals": 16], path: "columns[0]"))
        }
        do {
            _ = try ColumnSpec(reader: JSONReader(["id": "b", "type": "decimal", "decimals": -1], path: "columns[0]"))
        } catch {
            #expect("\(error)".contains("columns[0].decimals"))
        }
    }
}
