import Testing
import TabdeckPluginKit
import TabdeckProtocol

@Suite struct LineEncoderTests {
    @Test func aRowsReplyIsTheGenericLine() {
        let result = RowsResult(generation: 2, offset: 40, rows: [
            Row(id: "1", cells: [1, "Zoë \"Z\"\n", 2.5, nil, true], section: "s", detail: "d", hasChildren: true),
            Row(id: "2", cells: []),
        ], total: nil)
        let line = LineEncoder.rowsReply(id: .int(9), result)
        #expect(line == LineEncoder.line(for: .response(id: .int(9), result: result.json)))
        #expect(line.last == 0x0A)
        #expect(line.dropLast().firstIndex(of: 0x0A) == nil)
    }

    /// Rows a data source wrote itself (``WrittenRows``) go out as the same line as the rows.
    @Test func writtenRowsAreTheLineOfTheirRows() {
        let rows = [Row(id: "1", cells: [1, "Zoë \"Z\"\n", 2.5, nil, true]), Row(id: "2", cells: [.string("3.00")])]
        let result = RowsResult(generation: 2, offset: 40, rows: rows, total: 2, totalIsEstimate: true)
        var json: [UInt8] = []
        for (i, row) in rows.enumerated() {
            if i > 0 { json.append(UInt8(ascii: ",")) }
            row.write(into: &json)
        }
        var empty = result
        empty.rows = []
        #expect(LineEncoder.writtenRowsReply(id: .int(9), empty, json) == LineEncoder.rowsReply(id: .int(9), result))
        #expect(LineEncoder.writtenRowsReply(id: .int(9), empty, []) == LineEncoder.rowsReply(id: .int(9), empty))
    }

    /// Sections sent again with a page (PROTOCOL.md 10.6) are not lost on the fast path.
    @Test func aRowsReplyWithSectionsIsTheGenericLine() throws {
        let sections = [SectionSpec(id: "a", title: "A", footer: "2 rows", count: 2), SectionSpec(id: "b", title: "B", count: 0)]
        let result = RowsResult(generation: 3, offset: 0, rows: [Row(id: "1", cells: [1], section: "a")], total: 2, sections: sections)
        let line = LineEncoder.rowsReply(id: .int(4), result)
        #expect(line == LineEncoder.line(for: .response(id: .int(4), result: result.json)))
        guard case .response(_, let value) = try MessageCodec.decode(Array(line.dropLast())) else { Issue.record("not a response"); return }
        #expect(try RowsResult(value).sections == sections)
    }

    /// A page too long for its line comes short with `more` (PROTOCOL.md 11.3): as many rows as
    /// fit, so the host asks for the rest.
    @Test func anOverLongRowsReplyComesShortWithMore() throws {
        let big = String(repeating: "x", count: 1 << 16)
        let result = RowsResult(generation: 1, offset: 0, rows: (0..<70).map { Row(id: String($0), cells: [.string(big)]) }, total: 70)
        let line = LineEncoder.rowsReply(id: .string("r"), result)
        #expect(line.count <= LineSplitter.defaultMaxLineLength + 1)
        guard case .response(.string("r"), let value) = try MessageCodec.decode(Array(line.dropLast())) else { Issue.record("not a response"); return }
        let page = try RowsResult(value)
        #expect(page.more && page.rows == Array(result.rows.prefix(page.rows.count)) && page.rows.count == 63, "\(page.rows.count) rows")
        #expect(page.total == 70)
    }

    /// One row alone longer than a line becomes an error for its id, naming the row.
    @Test func aRowLongerThanALineBecomesAnErrorForItsID() throws {
        let result = RowsResult(generation: 1, offset: 9, rows: [Row(id: "huge", cells: [.string(String(repeating: "x", count: 5 << 20))])], total: 70)
        let line = LineEncoder.rowsReply(id: .string("r"), result)
        let message = try MessageCodec.decode(Array(line.dropLast()))
        guard case .failure(.string("r")?, let error) = message else { Issue.record("not an error: \(message)"); return }
        #expect(error.code == RPCError.internalError)
        #expect(error.message.contains("4 MiB") && error.message.contains("row huge (row 10)"), "\(error.message)")
    }
}
