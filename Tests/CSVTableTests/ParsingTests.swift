import Testing
@testable import CSVTable

@Suite struct ParsingTests {
    @Test func quotedFieldsWithDelimitersQuotesAndNewlines() throws {
        let (t, _f) = try table(#"""
        a,b,c
        "x, y","say ""hi""","line1
        line2"
        "",plain,"trailing"junk
        mid"quote,"a""b",3

        """#)
        _ = _f
        #expect(t.rowCount == 3)
        #expect(t.strings(row: 0) == ["x, y", "say \"hi\"", "line1\nline2"])
        #expect(t.strings(row: 1) == ["", "plain", "trailing"])
        #expect(t.strings(row: 2) == ["mid\"quote", "a\"b", "3"])
    }

    @Test func crlfLineEndings() throws {
        let (t, _f) = try table("id,name\r\n1,Ada\r\n2,\"Grace\r\nHopper\"\r\n3,\r\n")
        _ = _f
        #expect(t.rowCount == 3)
        #expect(t.columns.map(\.name) == ["id", "name"])
        #expect(t.strings(row: 0) == ["1", "Ada"])
        #expect(t.strings(row: 1) == ["2", "Grace\r\nHopper"])
        #expect(t.strings(row: 2) == ["3", ""])
        #expect(t.values(row: 0) == [.integer(1), .text("Ada")])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let file = TempFile(bytes: [0xEF, 0xBB, 0xBF] + Array("name,n\nZoë,1\n".utf8))
        let t = try CSVTable(path: file.path)
        #expect(t.columns.map(\.name) == ["name", "n"])
        #expect(t.strings(row: 0) == ["Zoë", "1"])
    }

    @Test func emptyFile() throws {
        let (t, _f) = try table("")
        _ = _f
        #expect(t.columns.isEmpty)
        #expect(t.rowCount == 0)
        #expect(try t.page(offset: 0, limit: 10).rows.isEmpty)
    }

    @Test func headerOnly() throws {
        for text in ["a,b,c\n", "a,b,c", "a,b,c\r\n\n\n"] {
            let (t, _f) = try table(text)
            _ = _f
            #expect(t.columns.map(\.id) == ["a", "b", "c"])
            #expect(t.rowCount == 0)
            #expect(try t.page(offset: 0, limit: 10) == CSVTable.Page(rows: [], total: 0))
            #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 1)]) == CSVTable.Page(rows: [], total: 0))
        }
    }

    /// Short rows are padded with null; fields past the header's count are dropped.
    @Test func raggedRows() throws {
        let (t, _f) = try table("a,b,c\n1,2\n1,2,3,4,5\n7\n")
        _ = _f
        #expect(t.strings(row: 0) == ["1", "2", nil])
        #expect(t.strings(row: 1) == ["1", "2", "3"])
        #expect(t.values(row: 2) == [.integer(7), .null, .null])
        #expect(t.values(row: 1) == [.integer(1), .integer(2), .integer(3)])
    }

    @Test func blankLinesAreSkippedAndLastLineNeedsNoNewline() throws {
        let (t, _f) = try table("a,b\n\n1,x\n\r\n2,y")
        _ = _f
        #expect(t.rowCount == 2)
        #expect(t.allStrings() == [["1", "x"], ["2", "y"]])
    }

    @Test func unterminatedQuoteRunsToTheEnd() throws {
        let (t, _f) = try table("a,b\n1,\"open\n2,x\n")
        _ = _f
        #expect(t.rowCount == 1)
        #expect(t.strings(row: 0) == ["1", "open\n2,x\n"])
    }

    @Test func headerNamesAreMadeUnique() throws {
        let (t, _f) = try table("x,,x,x\n1,2,3,4\n")
        _ = _f
        #expect(t.columns.map(\.id) == ["x", "column 2", "x_2", "x_3"])
        #expect(t.columns.map(\.name) == ["x", "column 2", "x", "x"])
    }

    @Test func delimiterIsSniffedOrGiven() throws {
        let (tsv, _a) = try table("a\tb,c\n1\t2,3\n", name: "t.tsv")
        #expect(tsv.delimiter == Byte.tab)
        #expect(tsv.strings(row: 0) == ["1", "2,3"])
        let (semi, _b) = try table("a;b;c\n1;2;3\n")
        #expect(semi.delimiter == Byte.semicolon)
        #expect(semi.columns.count == 3)
        let (pipe, _c) = try table("\"a|b\",c\n1,2\n")
        #expect(pipe.delimiter == Byte.comma)
        let (given, _d) = try table("a;b,c\n1;2,3\n", delimiter: Byte.comma)
        #expect(given.strings(row: 0) == ["1;2", "3"])
        _ = (_a, _b, _c, _d)
        #expect(try CSVDialect.delimiter(from: "\\t") == Byte.tab)
        #expect(throws: CSVError.self) { try CSVDialect.delimiter(from: "ab") }
        #expect(throws: CSVError.self) { try CSVDialect.delimiter(from: "\"") }
    }

    @Test func missingFileNamesIt() throws {
        #expect {
            try CSVTable(path: "/nonexistent/people.csv")
        } throws: { error in
            "\(error)".contains("/nonexistent/people.csv") && "\(error)".contains("No such file")
        }
    }
}
