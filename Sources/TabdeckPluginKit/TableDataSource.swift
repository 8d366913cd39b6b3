import TabdeckProtocol

/// What a plugin serves: the data source of its tables, in the spirit of
/// `UITableViewDataSource`. ``PluginRunner`` calls it from a small pool of worker
/// threads, so several calls may run at once: it must be thread-safe.
///
/// A handler reports failure by throwing: an ``RPCError`` goes to the host as it is, a
/// `JSONFieldError` becomes -32602 (invalid params) naming the field, `CancellationError`
/// becomes -32800, anything else -32603 (internal error).
///
/// A whole plugin:
///
/// ```swift
/// import TabdeckPluginKit
/// import TabdeckProtocol
///
/// struct Squares: TableDataSource {
///     let capabilities = PluginCapabilities()
///
///     func open(args: JSONValue) throws -> TableDescription {
///         TableDescription(table: "root", title: "Squares",
///                          columns: [ColumnSpec(id: "n", type: .integer), ColumnSpec(id: "square", type: .integer)],
///                          total: 1_000_000)
///     }
///
///     func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
///         guard request.table == "root" else { throw RPCError.unknown(table: request.table) }
///         let range = request.offset..<min(request.offset + request.limit, 1_000_000)
///         return request.result(range.map { n in Row(id: String(n), cells: [.int(Int64(n)), .int(Int64(n * n))]) },
///                               total: 1_000_000)
///     }
/// }
///
/// PluginRunner(name: "squares", version: "1.0.0", dataSource: Squares(), clock: SystemClock()).run()
/// ```
public protocol TableDataSource: Sendable {
    /// What the plugin can do (sent in the `initialize` result).
    var capabilities: PluginCapabilities { get }

    /// Opens the tab's table from its `args` (`{}` if the tab has none).
    func open(args: JSONValue) throws -> TableDescription

    /// A page of rows. Echo the request's `generation` and `offset`
    /// (``RowsRequest/result(_:total:)`` does). Check `cancel` in long loops.
    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult

    /// The child table of a row (drill-down). Default: not supported.
    func children(table: String, row: String) throws -> TableDescription

    /// Runs an action on rows. Default: not supported.
    func action(table: String, action: String, rows: [String]) throws -> ActionResult

    /// Runs an action with the values of its form (`input`, empty for an action without one).
    /// Default: the action without them.
    func action(table: String, action: String, rows: [String], input: JSONObject) throws -> ActionResult

    /// Moves a row just before or after its neighbour (a `movable` table; declare the `move`
    /// capability). Default: not supported.
    func move(_ request: MoveRequest) throws -> ActionResult

    /// Where the first of `request.rows` is in the request's order and filter (`locate`, sent
    /// only when ``capabilities`` declares `locate`). Default: not supported.
    func locate(_ request: LocateRequest, cancel: CancellationFlag) throws -> LocateResult

    /// The first row from `request.from` on (or back) in the request's order and filter with a
    /// cell that contains `request.text` by the filter's rule (`find`, PROTOCOL.md 11.15; sent
    /// only when ``capabilities`` declares `find`). Check `cancel` while looking. Default: not
    /// supported.
    func find(_ request: FindRequest, cancel: CancellationFlag) throws -> FindResult

    /// The whole table as a stream (a plugin with `paging: false`; PROTOCOL.md 11.3.1): hand the
    /// rows to `send` in order, a chunk at a time (each becomes one `rows/chunk`), and return the
    /// result with the last rows (may be none) and `total`, the number of rows sent in all.
    /// Check `cancel` while waiting. Default: not supported.
    func stream(_ request: RowsRequest, send: ([Row]) -> Void, cancel: CancellationFlag) throws -> RowsResult

    /// The answer to `rows` with the page's rows written as JSON by the data source where it
    /// can (read straight from its source's bytes, never made into ``Row`` values), or nil to be
    /// asked ``rows(_:cancel:)``. Only for speed: the bytes sent must be those ``rows(_:cancel:)``
    /// would give. Default: nil.
    func writtenRows(_ request: RowsRequest, cancel: CancellationFlag) throws -> WrittenRows?

    /// The whole text of a cell the plugin sent cut (`cell`, sent only when ``capabilities``
    /// declares `cells`): the kit answers the part the host asked for. Default: not supported.
    func cell(table: String, row: String, column: String, cancel: CancellationFlag) throws -> String

    /// The group counts of a table as a new table (`aggregate`, sent only when
    /// ``capabilities`` declares `aggregate`; PROTOCOL.md 11.12). Default: not supported.
    func aggregate(_ request: AggregateRequest, cancel: CancellationFlag) throws -> AggregateResult

    /// Statistics of every column as a new table (`describe`, sent only when ``capabilities``
    /// declares `describe`; PROTOCOL.md 11.13). Default: not supported.
    func describe(_ request: DescribeRequest, cancel: CancellationFlag) throws -> DescribeResult

    /// A read-only query's result as a new table (`query`, sent only when ``capabilities``
    /// declares `query`; PROTOCOL.md 11.14). Default: not supported.
    func query(_ request: QueryRequest, cancel: CancellationFlag) throws -> TableDescription

    /// The host no longer needs a table. Default: nothing.
    func close(table: String)

    /// Called once before any request, with the notifier for pushing badges, invalidations,
    /// progress, status and log lines. Default: nothing.
    func attach(_ notifier: Notifier)
}

extension TableDataSource {
    public func children(table: String, row: String) throws -> TableDescription {
        throw RPCError.unsupported("this plugin has no child tables")
    }

    public func action(table: String, action: String, rows: [String]) throws -> ActionResult {
        throw RPCError.unsupported("this plugin has no actions")
    }

    public func action(table: String, action: String, rows: [String], input: JSONObject) throws -> ActionResult {
        try self.action(table: table, action: action, rows: rows)
    }

    public func move(_ request: MoveRequest) throws -> ActionResult {
        throw RPCError.unsupported("the rows of this table cannot be moved")
    }

    public func locate(_ request: LocateRequest, cancel: CancellationFlag) throws -> LocateResult {
        throw RPCError(code: RPCError.methodNotFound, message: "method not found: locate")
    }

    public func find(_ request: FindRequest, cancel: CancellationFlag) throws -> FindResult {
        throw RPCError(code: RPCError.methodNotFound, message: "method not found: find")
    }

    public func stream(_ request: RowsRequest, send: ([Row]) -> Void, cancel: CancellationFlag) throws -> RowsResult {
        throw RPCError.unsupported("this table is not streamed")
    }

    public func writtenRows(_ request: RowsRequest, cancel: CancellationFlag) throws -> WrittenRows? { nil }

    public func cell(table: String, row: String, column: String, cancel: CancellationFlag) throws -> String {
        throw RPCError(code: RPCError.methodNotFound, message: "method not found: cell")
    }

    public func aggregate(_ request: AggregateRequest, cancel: CancellationFlag) throws -> AggregateResult {
        throw RPCError(code: RPCError.methodNotFound, message: "method not found: aggregate")
    }

    public func describe(_ request: DescribeRequest, cancel: CancellationFlag) throws -> DescribeResult {
        throw RPCError(code: RPCError.methodNotFound, message: "method not found: describe")
    }

    public func query(_ request: QueryRequest, cancel: CancellationFlag) throws -> TableDescription {
        throw RPCError(code: RPCError.methodNotFound, message: "method not found: query")
    }

    public func close(table: String) {}

    public func attach(_ notifier: Notifier) {}
}

/// The result of an `action`.
public struct ActionResult: Hashable, Sendable {
    /// Shown to the user.
    public var message: String?
    /// Ask the host to refetch the rows.
    public var invalidate: Bool

    public init(message: String? = nil, invalidate: Bool = false) {
        self.message = message; self.invalidate = invalidate
    }

    public var json: JSONValue {
        var o = JSONObject()
        if let message { o["message"] = .string(message) }
        if invalidate { o["invalidate"] = true }
        return .object(o)
    }
}

extension RowsRequest {
    /// The result for this request: its generation and offset with `rows` and `total`, and,
    /// when their counts or footers changed (under this request's filter, say), the sections.
    public func result(_ rows: [Row], total: Int?, sections: [SectionSpec]? = nil, totalIsEstimate: Bool = false) -> RowsResult {
        RowsResult(generation: generation, offset: offset, rows: rows, total: total, sections: sections, totalIsEstimate: totalIsEstimate)
    }
}

extension RPCError {
    /// -32001: the `table` handle is not known.
    public static func unknown(table: String) -> RPCError {
        RPCError(code: RPCError.unknownTable, message: "unknown table \"\(table)\"")
    }

    /// -32002: the plugin cannot do what was asked.
    public static func unsupported(_ message: String) -> RPCError {
        RPCError(code: RPCError.notSupported, message: message)
    }

    /// -32602: bad parameters.
    public static func badParams(_ message: String, path: String? = nil) -> RPCError {
        RPCError(code: RPCError.invalidParams, message: message, data: path.map { ["path": .string($0)] })
    }

    /// -32003: an action failed.
    public static func failedAction(_ message: String) -> RPCError {
        RPCError(code: RPCError.actionFailed, message: message)
    }
}
