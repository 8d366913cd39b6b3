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

    @Test func anOverLongRowsReplyBecomesAnErrorForItsID() throws {
        let big = String(repeating: "x", count: 1 << 16)
        let result = RowsResult(generation: 1, offset: 0, rows: (0..<70).map { Row(id: String($0), cells: [.string(big)]) }, total: 70)
        let line = LineEncoder.rowsReply(id: .string("r"), result)
        let message = try MessageCodec.decode(Array(line.dropLast()))
        guard case .failure(.string("r")?, let error) = message else { Issue.record("not an error: \(message)"); return }
        #expect(error.code == RPCError.internalError)
        #expect(error.message.contains("4 MiB"))
    }
}
