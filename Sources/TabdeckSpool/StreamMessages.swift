import TabdeckProtocol

/// The wire shapes of streaming (protocol v1, an additive part: `paging: false` plugins).
///
/// The host asks a streaming plugin for a whole table with one `rows` request carrying
/// `"stream": true` (offset 0, no sort). The plugin sends the rows in order in any number of
/// `rows/chunk` notifications naming the request, `{"id": 7, "rows": [ROW, ...]}`, then answers
/// the request with an ordinary `rows` result whose `rows` are the last ones (maybe none) and
/// whose `total` is the number of rows sent in all.
public enum StreamMessages {
    /// The notification carrying a part of a streamed answer.
    public static let chunkMethod = StreamWire.chunkMethod
    /// The `limit` of a stream request: no limit.
    public static let unlimited = StreamWire.unlimited

    /// The `rows` params asking for the whole table as a stream.
    public static func streamParams(table: String) -> JSONValue {
        var o: JSONObject = ["table": .string(table), "offset": 0, "limit": .int(Int64(unlimited)),
                             "sort": .array([]), "filter": .null, "generation": 1]
        o["stream"] = true
        return .object(o)
    }

    /// The `rows` params of one page in the plugin's natural order (for plugins that page but cannot sort).
    public static func pageParams(table: String, offset: Int, limit: Int) -> JSONValue {
        RowsRequest(table: table, offset: offset, limit: limit, sort: [], generation: 1).json
    }

    /// Reads a `rows/chunk` notification's params: the request id and its rows (taken as they
    /// are when the reader thread decoded them straight to rows).
    /// - Throws: the field at fault, e.g. `params.rows[3].cells`.
    public static func chunk(_ params: JSONValue) throws(JSONFieldError) -> (id: RequestID, rows: [Row]) {
        guard let id = requestID(params) else {
            throw JSONFieldError(path: "params.id", reason: "expected the id of the rows request (integer or string)")
        }
        return (id, try RowsResult(params, path: "params").rows)
    }

    /// The id of the request a `rows/chunk` notification belongs to, if its params name one.
    public static func requestID(_ params: JSONValue) -> RequestID? {
        guard case .object(let o) = params else { return nil }
        switch o["id"] {
        case .int(let i)?: return .int(i)
        case .string(let s)?: return .string(s)
        default: return nil
        }
    }

    /// Reads the rows and total of a `rows` result.
    /// - Throws: the field at fault, e.g. `result.rows[3].id`.
    public static func result(_ value: JSONValue) throws(JSONFieldError) -> (rows: [Row], total: Int?) {
        let parsed = try RowsResult(value)
        return (parsed.rows, parsed.total)
    }
}
