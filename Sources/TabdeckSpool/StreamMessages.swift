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
    public static let chunkMethod = "rows/chunk"
    /// The `limit` of a stream request: no limit.
    public static let unlimited = 2_147_483_647

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

    /// Reads a `rows/chunk` notification's params: the request id and its rows (unparsed row objects).
    public static func chunk(_ params: JSONValue) throws(JSONFieldError) -> (id: RequestID, rows: [JSONValue]) {
        let r = try JSONReader(params, path: "params")
        let id: RequestID
        switch r.value("id") {
        case .int(let i)?: id = .int(i)
        case .string(let s)?: id = .string(s)
        default: throw JSONFieldError(path: "params.id", reason: "expected the id of the rows request (integer or string)")
        }
        return (id, try r.array("rows"))
    }

    /// Reads the rows and total of a `rows` result without building `Row` values.
    public static func result(_ value: JSONValue) throws(JSONFieldError) -> (rows: [JSONValue], total: Int?) {
        let r = try JSONReader(value, path: "result")
        return (try r.array("rows"), try r.optionalInt("total"))
    }
}
