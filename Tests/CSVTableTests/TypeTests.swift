import Testing
@testable import CSVTable

@Suite struct TypeTests {
    @Test func inference() throws {
        let (t, _f) = try table("""
        int,dec,flag,day,stamp,text,zip,empty,mixed
        1,1.5,true,2024-01-31,2024-01-31T10:00:00Z,hello,01234,,1
        -20,2,FALSE,1999-12-31,2024-02-29 23:59:59.5+01:00,42,00501,,2.5
        ,-3.25e2,,,,,,,
        300,.5,True,2000-02-29,2024-03-01T00:00,x,12345,,7

        """)
        _ = _f
        #expect(t.columns.map(\.type) == [.integer, .decimal, .bool, .date, .date, .text, .text, .text, .decimal])
        #expect(t.values(row: 0) == [.integer(1), .decimal(1.5), .bool(true), .text("2024-01-31"),
                                     .text("2024-01-31T10:00:00Z"), .text("hello"), .text("01234"), .text(""), .decimal(1)])
        #expect(t.values(row: 2) == [.null, .decimal(-325), .null, .null, .null, .text(""), .text(""), .text(""), .null])
        #expect(t.values(row: 1)[2] == .bool(false))
    }

    @Test func decimalsWhenEveryNumberWithAPointHasTheSameScale() throws {
        let (t, _f) = try table("""
        money,mixed,exp,whole,ints
        1370.30,1.5,1.5,2.0,3
        -7,2.25,2e3,4.0,4
        0.05,3,1.0,6.0,5

        """)
        _ = _f
        #expect(t.columns.map(\.type) == [.decimal, .decimal, .decimal, .decimal, .integer])
        #expect(t.columns.map(\.decimals) == [2, nil, nil, 1, nil])
    }

    @Test func invalidDatesAreText() throws {
        let (t, _f) = try table("d\n2023-02-29\n2024-13-01\n")
        _ = _f
        #expect(t.columns[0].type == .text)
    }

    @Test func valueParsers() {
        func p<T>(_ s: String, _ f: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
            Array(s.utf8).withUnsafeBufferPointer { f($0) }
        }
        #expect(p("9223372036854775807", ValueParser.integer) == Int64.max)
        #expect(p("-9223372036854775808", ValueParser.integer) == Int64.min)
        #expect(p("9223372036854775808", ValueParser.integer) == nil)
        #expect(p("+5", ValueParser.integer) == 5)
        #expect(p("0", ValueParser.integer) == 0)
        #expect(p("007", ValueParser.integer) == nil)
        #expect(p("1 ", ValueParser.integer) == nil)
        #expect(p("0.1", ValueParser.decimal) == 0.1)
        #expect(p("1234.56", ValueParser.decimal) == 1234.56)
        #expect(p("-0.000001", ValueParser.decimal) == -0.000001)
        #expect(p("1e3", ValueParser.decimal) == 1000)
        #expect(p("12345678901234567890.5", ValueParser.decimal) == 12345678901234567890.5)
        #expect(p(".", ValueParser.decimal) == nil)
        #expect(p("1.", ValueParser.decimal) == nil)
        #expect(p("-", ValueParser.decimal) == nil)
        #expect(p("1e", ValueParser.decimal) == nil)
        #expect(p("nan", ValueParser.decimal) == nil)
        #expect(p("1970-01-01", ValueParser.date) == 0)
        #expect(p("1970-01-02T00:00:01.250Z", ValueParser.date) == 86_401_250)
        #expect(p("1970-01-01T01:00+01:00", ValueParser.date) == 0)
        #expect(p("1970-01-01T00:00-0130", ValueParser.date) == 5_400_000)
        #expect(p("1969-12-31", ValueParser.date) == -86_400_000)
        #expect(p("2024-02-30", ValueParser.date) == nil)
        #expect(p("2024-1-01", ValueParser.date) == nil)
    }

    @Test func widthsCountDisplayCells() throws {
        let (t, _f) = try table("name,n\n田中,1\nZoë,22\nAda Lovelace,333\n")
        _ = _f
        #expect(t.columns[0].maxWidth == 12)
        #expect(DisplayWidth.of(Array("田中".utf8)) == 4)
        #expect(DisplayWidth.of(Array("Zoë".utf8)) == 3)
        let hints = t.columns[0].widthHints
        #expect(hints.min <= hints.ideal && hints.ideal <= hints.max)
    }
}
