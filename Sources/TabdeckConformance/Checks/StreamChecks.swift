import TabdeckProtocol

/// `stream: …`: for plugins with `paging: false`, instead of the paging checks. The whole
/// table is asked for with one `rows` request carrying `"stream": true`; the plugin sends
/// `rows/chunk` notifications naming the request, then the final result. Checked: every row
/// valid and typed, ids unique across the whole stream, the final `total` equal to the rows
/// sent, generation and offset echoed, no chunk after the result, and a second stream gives
/// the same ids in the same order (a stable natural order).
enum StreamChecks {
    static func run(_ ctx: CheckContext) {
        var first: [String]?
        ctx.check("stream: whole table", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let read = try ctx.stream(into: &f)
            first = read.ids
            let chunks = read.chunks == 1 ? "1 chunk" : "\(read.chunks) chunks"
            return "\(PagingChecks.rows(read.ids.count)) in \(chunks) and the result; ids unique; total \(read.total.map(String.init) ?? "missing")"
        }
        ctx.check("stream: again", needs: .rows) { (f) throws(CheckAbort) in
            let again = try ctx.stream(into: &f)
            guard let first else { throw CheckAbort(reason: "not run: the first stream failed", skip: true) }
            if again.ids != first {
                let at = zip(first, again.ids).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(first.count, again.ids.count)
                f.fail("the second stream differs from the first at row \(at) (\(first.count) rows, then \(again.ids.count)): the natural order must be stable")
            }
            return "the same \(PagingChecks.rows(again.ids.count)) in the same order"
        }
    }
}

/// One streamed read of the table.
struct StreamRead {
    var ids: [String]
    var chunks: Int
    var total: Int?
}

extension CheckContext {
    /// The `rows` params of a stream request.
    func streamParams(table: String, generation: Int) -> JSONValue {
        var request = RowsRequest(table: table, offset: 0, limit: StreamRules.unlimited, sort: [], generation: generation).json
        if case .object(var o) = request { o["stream"] = true; request = .object(o) }
        return request
    }

    /// Streams the whole table and checks it on the way (see ``StreamChecks``).
    func stream(into f: inout Findings) throws(CheckAbort) -> StreamRead {
        guard let table else { throw CheckAbort(reason: "there is no table", skip: true) }
        let generation = nextGeneration()
        let params = streamParams(table: table.table, generation: generation)
        let before = session.received.notifications.count
        let id = session.makeID()
        if let reason = session.post(id: id, method: Method.rows, params: params) {
            throw CheckAbort(reason: "could not send rows: \(reason)")
        }
        let value: JSONValue
        switch try answer(id, Method.rows) {
        case .success(let v): value = v
        case .failure(let error):
            throw CheckAbort(reason: "the stream request (rows with stream: true) answered error \(error.code): \(error.message)")
        }
        var rows: [JSONValue] = []
        var chunks = 0
        for (method, p) in session.received.notifications.dropFirst(before) where method == StreamRules.chunkMethod {
            guard let o = p.objectValue, o["id"] == id.json else { continue }
            guard let part = o["rows"]?.arrayValue else {
                f.fail("a rows/chunk for request \(id) has no rows array")
                continue
            }
            rows += part
            chunks += 1
        }
        guard let result = value.objectValue, let last = result["rows"]?.arrayValue else {
            throw CheckAbort(reason: "the stream's result is not an object with rows")
        }
        rows += last
        // The whole stream as one page: typed cells, unique ids, generation and offset echoed.
        var whole = result
        whole["rows"] = .array(rows)
        var warnings: [String: String] = [:]
        var local = Findings()
        let request = RowsRequest(table: table.table, offset: 0, limit: StreamRules.unlimited, generation: generation)
        let parsed = Validate.rowsResult(.object(whole), request: request, table: table, capabilities: capabilities,
                                         into: &local, warnings: &warnings)
        for (_, text) in warnings.sorted(by: { $0.key < $1.key }) { local.warn(text) }
        f.merge(local)
        guard let parsed else { throw CheckAbort(reason: "invalid rows in the stream", notes: local.lines()) }
        let total: Int? = if case .int(let n)? = result["total"] { Int(n) } else { nil }
        if let total, total != parsed.rows.count {
            f.fail("the stream's total is \(total), but \(parsed.rows.count) rows were sent (PROTOCOL.md 11.3.1: total counts the rows of every chunk and of the result)")
        } else if total == nil {
            f.fail("the stream's result has no total (it must be the number of rows sent)")
        }
        if let announced = self.total, announced != parsed.rows.count, !capabilities.live {
            f.warn("open announced \(announced) rows, the stream sent \(parsed.rows.count)")
        }
        return StreamRead(ids: parsed.rows.map(\.id), chunks: chunks, total: total)
    }
}

/// The wire names of streaming (``StreamWire``, as the host's spool uses them).
enum StreamRules {
    static let chunkMethod = StreamWire.chunkMethod
    static let unlimited = StreamWire.unlimited
}
