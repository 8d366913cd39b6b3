import TabdeckPluginKit
import TabdeckProtocol
import Testing

/// A streaming source (`paging: false`) that answers the whole table in its result: the rows
/// a stream has once its input has all been read.
struct WholeStreamSource: TableDataSource {
    let count: Int
    var capabilities: PluginCapabilities { PluginCapabilities(paging: false) }
    func open(args: JSONValue) throws -> TableDescription {
        TableDescription(table: "root", columns: [ColumnSpec(id: "word")], total: nil)
    }
    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        throw RPCError.unsupported("streamed")
    }
    func stream(_ request: RowsRequest, send: ([Row]) -> Void, cancel: CancellationFlag) throws -> RowsResult {
        let rows = (0..<count).map { Row(id: String($0), cells: [.string("a word of some length, number \($0)")]) }
        return request.result(rows, total: count)
    }
}

@Suite struct StreamTests {
    /// 200,000 rows in a stream's result are about 9 MB: they go out as chunks, never cut short
    /// (a result shortened to the 4 MiB line lost the rest: a stream has no `more`).
    @Test func aStreamsResultRowsGoOutAsChunksAndNoneIsLost() throws {
        let h = Harness(source: WholeStreamSource(count: 200_000))
        _ = try h.call(id: 1, "initialize", ["protocolVersion": 1])
        _ = try h.call(id: 2, "open", ["args": [:]])
        h.send(id: 3, "rows", ["table": "root", "offset": 0, "limit": 2147483647, "sort": [], "filter": .null,
                               "generation": 1, "stream": true])
        var ids: [String] = []
        while true {
            let m = try h.next(timeout: 30)
            if m["method"] == "rows/chunk", case .array(let rows)? = m["params"]?["rows"] {
                ids += rows.compactMap { $0["id"]?.stringValue }
            } else if m["id"] == 3 {
                let result = try #require(m["result"])
                if case .array(let rows)? = result["rows"] { ids += rows.compactMap { $0["id"]?.stringValue } }
                #expect(result["total"] == 200_000)
                #expect(result["more"] == nil)
                break
            }
        }
        #expect(ids.count == 200_000)
        #expect(ids.last == "199999")
        #expect(h.finish() == 0)
    }
}
