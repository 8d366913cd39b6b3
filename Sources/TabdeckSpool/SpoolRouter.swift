import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// The edge adapter that gives sorting, paging and export to plugins that cannot sort
/// (`sort: false`) or cannot page (`paging: false`, streaming plugins).
///
/// It is the logic of a ``SpooledEndpoint`` (one router per tab, in front of the plugin's own
/// endpoint) and makes such a plugin look to the core like one that sorts, multi-sorts and pages:
/// - the plugin's `initialize` result reaches the core with `sort`, `multiSort` and `paging`
///   set (the plugin's own capabilities are kept here);
/// - table descriptions (`open`, `children` results) are noted, one spool table per table;
/// - the core's `rows` requests for those tables are answered from the spool (a folder of
///   append-only files, ``SpoolFile``) as if the plugin had answered them, with the same ids; natural-order pages
///   of a plugin that pages still go to the plugin;
/// - the spool fills itself with requests of its own (ids `"spool-N"`, ``SpoolIDs``): one
///   `stream` request for a streaming plugin, natural-order pages of 1,000 rows otherwise,
///   while `progress` notifications tell the core how many rows arrived, and an `invalidate`
///   refreshes the core's rows when the table is complete.
/// - the core's `aggregate` requests (PROTOCOL.md 11.12) are answered from the complete spool:
///   the groups become a table of the spool's own (`spool-agg-N`), paged, sorted, filtered and
///   closed like the others, never seen by the plugin; `describe` (11.13) likewise, as a table
///   of column statistics (`spool-desc-N`, ``SpoolFile/describe(_:filter:limits:)``).
///
/// Thread-safe: ``outgoing(_:tab:)`` runs on the runtime's thread, ``incoming(_:tab:)`` on the
/// plugin's reader thread; one lock serializes them. Storing rows and answering pages happen on
/// one serial writer queue, which is the only user of the ``SpoolFile``; page queries run there
/// without the lock, so the runtime's thread (which draws the screen) never waits for a sort.
public final class SpoolRouter: @unchecked Sendable {
    /// Sends a message to a tab's plugin.
    public typealias Send = @Sendable (_ tab: String, _ message: Message) -> Void
    /// Hands a message to the core as if the plugin had sent it.
    public typealias Deliver = @Sendable (_ tab: String, _ message: Message) -> Void

    /// The folder of the spool files (`<state>/spool`).
    public let folder: String
    private let send: Send
    private let deliver: Deliver
    private let lock = NSLock()
    /// The writer queue (storing rows) and how many messages may wait for it.
    private let work = DispatchQueue(label: "tabdeck.spool.writer")
    private let backlog = DispatchSemaphore(value: SpoolRouter.backlogLimit)
    static let backlogLimit = 8
    private var routes: [String: TabRoute] = [:]
    private var ids = SpoolIDs()
    private var nextTableNumber = 1
    /// Numbers the materialized order tables of this spool (names stay unique after drops).
    private var nextOrderNumber = 0
    /// Numbers the spool's own aggregate tables (handles `spool-agg-N`).
    private var nextAggregateNumber = 0
    /// Numbers the spool's own describe tables (handles `spool-desc-N`).
    private var nextDescribeNumber = 0
    /// The memory bounds of a `describe`'s statistics (smaller in tests, to cross them).
    var describeLimits = ColumnSummary.Limits.standard
    /// Core requests to answer on the writer queue, in order (``answerLater(id:_:tab:)``).
    private var deferredAnswers: [(tab: String, id: RequestID, question: Question)] = []

    /// A core request the spool answers on its writer queue.
    enum Question {
        case rows(RowsRequest)
        case aggregate(AggregateRequest)
        case describe(DescribeRequest)

        var table: String {
            switch self {
            case .rows(let r): r.table
            case .aggregate(let a): a.table
            case .describe(let d): d.table
            }
        }
    }
    /// Rows per page when pulling from a plugin that pages; pages in flight at once.
    static let pullPage = 1000
    static let pullInflight = 2
    /// Rows between two progress reports.
    static let progressStep = 10_000
    /// Seconds between two "sorting rows" reports while the spool computes an answer.
    static let heartbeatInterval = 2.0
    /// Rows of a sorted order read at once for the first pages (the read-ahead page then costs nothing).
    static let headRows = 1000

    /// Whether sorted and filtered views of a running stream show the rows so far (the full
    /// screen) or wait for every row (line mode and scripts: ``PageRoute/decide``).
    public let viewsSoFar: Bool

    public init(folder: String, viewsSoFar: Bool = true, send: @escaping Send, deliver: @escaping Deliver) {
        self.viewsSoFar = viewsSoFar
        self.folder = folder
        self.send = send
        self.deliver = deliver
    }

    /// The spool folder of `tab` (whether or not it exists).
    public func spoolPath(tab: String) -> String {
        SpoolFolder.path(folder: folder, tab: tab, pid: getpid())
    }

    /// Whether rows of `tab`'s plugin are still arriving (a stream, or the pull of a plugin
    /// that cannot sort).
    public func isFilling(tab: String) -> Bool {
        lock.withLock { routes[tab]?.tables.values.contains { $0.fill == .filling } ?? false }
    }

    /// Whether `tab`'s plugin is spooled (it lacks `sort` or `paging`).
    public func isSpooled(tab: String) -> Bool {
        lock.withLock { routes[tab]?.spooled ?? false }
    }

    // MARK: Core → plugin

    /// A message the core sends to `tab`'s plugin. Returns true when the spool took care of it
    /// (it must not be sent); false to send it unchanged.
    public func outgoing(_ message: Message, tab: String) -> Bool {
        lock.withLock {
            switch message {
            case .request(let id, let method, let params):
                if method == Method.initialize {
                    routes[tab] = TabRoute(initializeID: id)
                    return false
                }
                guard let route = routes[tab], route.spooled else { return false }
                if method == Method.open || method == Method.children {
                    route.describing[id] = true
                    return false
                }
                if method == Method.aggregate {
                    coreAggregate(id: id, params: params, route: route, tab: tab)
                    return true
                }
                if method == Method.describe {
                    coreDescribe(id: id, params: params, route: route, tab: tab)
                    return true
                }
                guard method == Method.rows, let request = try? RowsRequest(params),
                      let table = route.tables[request.table] else { return false }
                return coreRows(id: id, request: request, table: table, route: route, tab: tab)
            case .notification(Method.cancel, let params):
                guard let route = routes[tab], route.spooled, case .object(let o) = params, let raw = o["id"] else { return false }
                let id: RequestID? = switch raw { case .int(let i): .int(i); case .string(let s): .string(s); default: nil }
                for table in route.tables.values {
                    if let i = table.waiting.firstIndex(where: { $0.id == id }) {
                        table.waiting.remove(at: i)
                        return true
                    }
                    if let i = table.waitingWhole.firstIndex(where: { $0.id == id }) {
                        table.waitingWhole.remove(at: i)
                        return true
                    }
                }
                return false
            case .notification(Method.close, let params):
                if let route = routes[tab], case .object(let o) = params, case .string(let handle)? = o["table"],
                   let table = route.tables.removeValue(forKey: handle) {
                    for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
                    let (schema, orders) = (table.schema, Array(table.orders.values))
                    onWriter(route.file) { file in
                        file.drop(schema)
                        for name in orders { file.dropTable(named: name) }
                    }
                    return table.own  // the plugin never knew the spool's own tables
                }
                return false
            default:
                return false
            }
        }
    }

    /// Whether the plugin serves natural-order pages of `table` itself (never the spool's own tables).
    private func pluginPages(_ table: SpooledTable, route: TabRoute) -> Bool {
        !table.own && (route.capabilities?.paging ?? true)
    }

    private func coreRows(id: RequestID, request: RowsRequest, table: SpooledTable, route: TabRoute, tab: String) -> Bool {
        let pages = pluginPages(table, route: route)
        switch PageRoute.decide(request, pluginPages: pages, fill: table.fill, arrived: table.arrived, soFar: viewsSoFar) {
        case .forward:
            return false
        case .answer:
            answerLater(id: id, .rows(request), tab: tab)
        case .answerSoFar:
            answerSoFar(id: id, request: request, table: table, tab: tab)
        case .fail(let message):
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: message)))
        case .wait:
            table.waiting.append((id, request))
            if table.fill == .idle { startFilling(table, route: route, tab: tab) }
        }
        return true
    }

    /// The core's `aggregate` for a table of this plugin (PROTOCOL.md 11.12): the spool counts
    /// its rows once every row has arrived (a count of part of a table would be wrong), and
    /// answers with a table of its own. Called with the lock held.
    private func coreAggregate(id: RequestID, params: JSONValue, route: TabRoute, tab: String) {
        let request: AggregateRequest
        do {
            request = try AggregateRequest(params)
        } catch {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            return
        }
        guard let table = route.tables[request.table] else {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.unknownTable, message: "unknown table \(request.table)")))
            return
        }
        do {
            _ = try GroupBins.check(request, columns: table.schema.columns)
            try Where.check(request.where, columns: table.schema.columns)
        } catch {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            return
        }
        whenComplete(id: id, .aggregate(request), table: table, route: route, tab: tab)
    }

    /// The core's `describe` for a table of this plugin (PROTOCOL.md 11.13): like `aggregate`,
    /// answered from the complete spool with a table of its own. Called with the lock held.
    private func coreDescribe(id: RequestID, params: JSONValue, route: TabRoute, tab: String) {
        let request: DescribeRequest
        do {
            request = try DescribeRequest(params)
        } catch {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            return
        }
        guard let table = route.tables[request.table] else {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.unknownTable, message: "unknown table \(request.table)")))
            return
        }
        do {
            try Where.check(request.where, columns: table.schema.columns)
        } catch {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            return
        }
        whenComplete(id: id, .describe(request), table: table, route: route, tab: tab)
    }

    /// Answers a question about a whole table once every row has arrived (filling the spool
    /// first if needed); fails it if the fill failed. Called with the lock held.
    private func whenComplete(id: RequestID, _ question: Question, table: SpooledTable, route: TabRoute, tab: String) {
        switch table.fill {
        case .complete:
            answerLater(id: id, question, tab: tab)
        case .failed(let message):
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: message)))
        case .idle, .filling:
            table.waitingWhole.append((id, question))
            if table.fill == .idle { startFilling(table, route: route, tab: tab) }
        }
    }

    // MARK: Plugin → core

    /// A message from `tab`'s plugin. Returns true when the spool took care of it (delivering
    /// whatever the core should see itself); false to deliver it unchanged.
    public func incoming(_ message: Message, tab: String) -> Bool {
        // Rows are stored on the writer queue, in order, while this (the plugin's reader) thread
        // decodes the next lines.
        switch message {
        case .response(let id, let result) where SpoolIDs.isSpool(id):
            later(tab) { route in self.ownReply(id: id, .success(result), route: route, tab: tab) }
            return true
        case .failure(let id?, let error) where SpoolIDs.isSpool(id):
            later(tab) { route in self.ownReply(id: id, .failure(error), route: route, tab: tab) }
            return true
        case .notification(StreamMessages.chunkMethod, let params):
            guard isSpooled(tab: tab) else { return false }
            later(tab) { route in self.chunk(params, route: route, tab: tab) }
            return true
        case .notification(Method.invalidate, let params):
            if isSpooled(tab: tab) { later(tab) { route in self.invalidate(params, route: route, tab: tab) } }
            return false
        default:
            break
        }
        return lock.withLock {
            guard let route = routes[tab] else { return false }
            switch message {
            case .response(let id, let result) where id == route.initializeID:
                return handshake(result, id: id, route: route, tab: tab)
            case .response(let id, let result) where route.describing.removeValue(forKey: id) != nil:
                describe(result, route: route)
                // A stream is read once, from its start: at once, so that a pipe's writer is not
                // held up and the rows are in when asked for.
                if route.capabilities?.paging == false, let handle = try? TableDescription(result).table,
                   let table = route.tables[handle], table.fill == .idle {
                    startFilling(table, route: route, tab: tab, announce: false)
                }
                guard let offered = Self.withoutSourceSorts(result) else { return false }
                deliver(tab, .response(id: id, result: offered))
                return true
            case .failure(let id?, _) where route.describing.removeValue(forKey: id) != nil:
                return false
            default:
                return false
            }
        }
    }

    /// Runs `body` on the writer queue under the lock (if the tab is still routed). At most
    /// `backlogLimit` messages wait there; the reader thread waits beyond that, which slows
    /// the plugin down through its pipe instead of holding many rows in memory.
    private func later(_ tab: String, _ body: @escaping @Sendable (TabRoute) -> Void) {
        backlog.wait()
        work.async { [self] in
            lock.withLock { if let route = routes[tab] { body(route) } }
            runDeferredAnswers()
            backlog.signal()
        }
    }

    /// Waits until every message handed to the writer queue so far has been handled.
    public func drain() {
        work.sync {}
    }

    /// Runs `body` with `file` on the writer queue, after what is queued there: the only
    /// thread that touches a spool file, so that closing a table never unmaps the rows a page
    /// is reading (the file checks it: ``SpoolFile``).
    private func onWriter(_ file: SpoolFile?, _ body: @escaping @Sendable (SpoolFile) -> Void) {
        guard let file else { return }
        work.async { body(file) }
    }

    /// The plugin of `tab` stopped (exited, crashed, was killed): its spool is deleted. When
    /// rows were still arriving, the core's log says how far the stream got.
    public func pluginEnded(tab: String) {
        drain()
        let file = lock.withLock { () -> SpoolFile? in
            guard let route = routes.removeValue(forKey: tab) else { return nil }
            for table in route.tables.values where table.fill == .filling {
                deliver(tab, .notification(method: Method.log, params: [
                    "level": "error",
                    "message": .string("the rows of table \(table.handle) stopped after \(table.arrived) rows: the plugin ended before sending them all"),
                ]))
            }
            return route.file
        }
        work.sync { file?.remove() }
    }

    /// Deletes every spool (on quit).
    public func removeAll() {
        drain()
        let files = lock.withLock { () -> [SpoolFile] in
            defer { routes.removeAll() }
            return routes.values.compactMap(\.file)
        }
        work.sync { for file in files { file.remove() } }
    }

    // MARK: Handshake and tables

    private func handshake(_ result: JSONValue, id: RequestID, route: TabRoute, tab: String) -> Bool {
        route.initializeID = nil
        guard let info = try? InitializeResult(result) else { return false }
        route.capabilities = info.capabilities
        guard route.spooled, case .object(var o) = result else { return false }
        var caps: JSONObject
        if case .object(let c)? = o["capabilities"] { caps = c } else { caps = [:] }
        caps["sort"] = true
        caps["multiSort"] = true
        caps["paging"] = true
        caps["filter"] = true  // the spool filters its rows (whether or not the plugin can)
        caps["where"] = true
        caps["aggregate"] = true  // the spool counts groups from its rows (PROTOCOL.md 11.12)
        caps["describe"] = true  // and describes its columns (11.13)
        caps["locate"] = false  // offsets are the spool's, which the plugin cannot know
        o["capabilities"] = .object(caps)
        deliver(tab, .response(id: id, result: .object(o)))
        return true
    }

    private func describe(_ result: JSONValue, route: TabRoute) {
        guard let description = try? TableDescription(result) else { return }
        if let old = route.tables[description.table]?.schema { onWriter(route.file) { $0.drop(old) } }
        let schema = SpoolSchema(tableName: "t\(nextTableNumber)", columns: description.columns)
        nextTableNumber += 1
        route.tables[description.table] = SpooledTable(handle: description.table, schema: schema, announcedTotal: description.total,
                                                       title: description.title)
    }

    /// A table description (an `open` or `children` result) with every column in its
    /// source's own order (`order: source`) marked not sortable: the spool sorts for this
    /// plugin and cannot sort by such a column, so the core does not offer it (PROTOCOL.md
    /// 10.2). Nil when no column changes.
    static func withoutSourceSorts(_ result: JSONValue) -> JSONValue? {
        guard case .object(var o) = result, case .array(var columns)? = o["columns"] else { return nil }
        var changed = false
        for i in columns.indices {
            guard case .object(var column) = columns[i], column["order"] == .string(ColumnOrder.source.rawValue),
                  column["sortable"] != .bool(false) else { continue }
            column["sortable"] = .bool(false)
            columns[i] = .object(column)
            changed = true
        }
        guard changed else { return nil }
        o["columns"] = .array(columns)
        return .object(o)
    }

    // MARK: Filling

    /// `announce`: report progress at once (a core request waits for the rows); a stream started
    /// with its description reports once rows arrive for a request.
    private func startFilling(_ table: SpooledTable, route: TabRoute, tab: String, announce: Bool = true) {
        let file: SpoolFile
        do {
            file = try route.file ?? SpoolFile(path: spoolPath(tab: tab), owner: work)
            route.file = file
        } catch {
            fail(table, "could not create the spool: \(error)", route: route, tab: tab)
            return
        }
        let (schema, handle) = (table.schema, table.handle)
        onWriter(file) { [self] file in
            do { try file.create(schema) } catch {
                lock.withLock {
                    guard let route = routes[tab], let table = route.tables[handle], table.schema == schema else { return }
                    fail(table, "could not create the spool: \(error)", route: route, tab: tab)
                }
            }
        }
        table.fill = .filling
        table.arrived = 0
        table.reported = 0
        if announce { reportProgress(table, tab: tab) }
        if route.capabilities?.paging == false {
            let id = ids.allocate()
            table.inflight[id] = -1
            send(tab, .request(id: id, method: Method.rows, params: StreamMessages.streamParams(table: table.handle)))
        } else {
            table.nextPull = 0
            table.pullEnded = false
            table.early = [:]
            pull(table, tab: tab)
        }
    }

    /// Keeps `pullInflight` natural-order pages on their way until the end has been seen.
    private func pull(_ table: SpooledTable, tab: String) {
        while !table.pullEnded && table.inflight.count < Self.pullInflight {
            let id = ids.allocate()
            table.inflight[id] = table.nextPull
            send(tab, .request(id: id, method: Method.rows,
                               params: StreamMessages.pageParams(table: table.handle, offset: table.nextPull, limit: Self.pullPage)))
            table.nextPull += Self.pullPage
        }
    }

    private func chunk(_ params: JSONValue, route: TabRoute, tab: String) {
        guard let id = StreamMessages.requestID(params),
              let table = route.tables.values.first(where: { $0.inflight[id] == -1 }) else {
            return  // a chunk of a request no longer wanted (cancelled, table closed)
        }
        do {
            append(try StreamMessages.chunk(params).rows, to: table, route: route, tab: tab)
        } catch {
            fail(table, "\(SpoolError.badRows(tab: tab, table: table.handle, reason: "rows/chunk \(error)"))", route: route, tab: tab)
        }
    }

    private func ownReply(id: RequestID, _ outcome: Result<JSONValue, RPCError>, route: TabRoute, tab: String) {
        guard let table = route.tables.values.first(where: { $0.inflight[id] != nil }),
              let offset = table.inflight.removeValue(forKey: id) else { return }
        let parsed: (rows: [Row], total: Int?)
        switch outcome {
        case .failure(let error):
            fail(table, "plugin \(tab) could not send the rows of \(table.handle): \(error.message) (code \(error.code))", route: route, tab: tab)
            return
        case .success(let result):
            do { parsed = try StreamMessages.result(result) } catch {
                fail(table, "\(SpoolError.badRows(tab: tab, table: table.handle, reason: "\(error)"))", route: route, tab: tab)
                return
            }
        }
        if offset < 0 {  // the end of a stream
            append(parsed.rows, to: table, route: route, tab: tab)
            complete(table, route: route, tab: tab)
            return
        }
        table.early[offset] = parsed.rows
        while let rows = table.early.removeValue(forKey: table.arrived) {
            if rows.count < Self.pullPage { table.pullEnded = true }
            append(rows, to: table, route: route, tab: tab)
            if table.fill != .filling { return }
            if table.pullEnded { break }
        }
        if table.pullEnded {
            // Pages asked for past the end are not needed.
            for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
            table.inflight = [:]
            table.early = [:]
            complete(table, route: route, tab: tab)
        } else {
            pull(table, tab: tab)
        }
    }

    private func append(_ rows: [Row], to table: SpooledTable, route: TabRoute, tab: String) {
        guard table.fill == .filling, let file = route.file, !rows.isEmpty else { return }
        do {
            table.arrived += try file.insert(rows, into: table.schema)
        } catch {
            fail(table, "\(error)", route: route, tab: tab)
            return
        }
        // While the core waits for these rows its requests live on progress (the core's ledger
        // times out a request that hears nothing): every arrival counts then.
        if table.arrived - table.reported >= Self.progressStep || table.hasWaiting { reportProgress(table, tab: tab) }
        refreshSoFar(table, tab: tab)
        answerWaiting(table, route: route, tab: tab)
    }

    private func complete(_ table: SpooledTable, route: TabRoute, tab: String) {
        do { try route.file?.commit() } catch { fail(table, "\(error)", route: route, tab: tab); return }
        table.fill = .complete
        table.viewedSoFar = nil
        if table.saidSoFar {
            table.saidSoFar = false
            deliver(tab, .notification(method: Method.status, params: ["text": ""]))
        }
        // The total before the final progress (see CSVSource.report).
        deliver(tab, .notification(method: Method.invalidate, params: [
            "table": .string(table.handle), "total": .int(Int64(table.arrived))]))
        deliver(tab, .notification(method: Method.progress, params: [
            "done": .int(Int64(table.arrived)), "total": .int(Int64(table.arrived)), "message": "rows received"]))
        answerWaiting(table, route: route, tab: tab)
    }

    private func fail(_ table: SpooledTable, _ message: String, route: TabRoute, tab: String) {
        table.fill = .failed(message)
        for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
        table.inflight = [:]
        deliver(tab, .notification(method: Method.log, params: ["level": "error", "message": .string(message)]))
        deliver(tab, .notification(method: Method.progress, params: ["done": 1, "total": 1]))
        answerWaiting(table, route: route, tab: tab)
    }

    private func reportProgress(_ table: SpooledTable, tab: String) {
        table.reported = table.arrived
        deliver(tab, .notification(method: Method.progress, params: [
            "done": .int(Int64(table.arrived)), "total": table.announcedTotal.map { .int(Int64($0)) } ?? .null,
            "message": "receiving rows"]))
    }

    /// Answers the waiting requests that can be answered now, in order.
    private func answerWaiting(_ table: SpooledTable, route: TabRoute, tab: String) {
        switch table.fill {
        case .complete:
            for (id, question) in table.waitingWhole { answerLater(id: id, question, tab: tab) }
            table.waitingWhole = []
        case .failed(let message):
            for (id, _) in table.waitingWhole {
                deliver(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: message)))
            }
            table.waitingWhole = []
        case .idle, .filling:
            break
        }
        guard !table.waiting.isEmpty else { return }
        var still: [(id: RequestID, request: RowsRequest)] = []
        for (id, request) in table.waiting {
            switch PageRoute.decide(request, pluginPages: pluginPages(table, route: route), fill: table.fill,
                                    arrived: table.arrived, soFar: viewsSoFar) {
            case .answer: answerLater(id: id, .rows(request), tab: tab)
            case .answerSoFar: answerSoFar(id: id, request: request, table: table, tab: tab)
            case .fail(let message): deliver(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: message)))
            case .wait, .forward: still.append((id, request))
            }
        }
        table.waiting = still
    }

    /// Answers a page of the first screens from the rows received so far; a sorted or
    /// filtered one says so in the tab's status. The view is refreshed as more rows arrive
    /// (``refreshSoFar``).
    private func answerSoFar(id: RequestID, request: RowsRequest, table: SpooledTable, tab: String) {
        if table.viewedSoFar == nil { table.viewedSoFar = table.arrived }
        if !request.sort.isEmpty || RowKeep(request) != nil, !table.saidSoFar {
            table.saidSoFar = true
            reportSoFar(table, tab: tab)
        }
        answerLater(id: id, .rows(request), tab: tab)
    }

    private func reportSoFar(_ table: SpooledTable, tab: String) {
        deliver(tab, .notification(method: Method.status, params: [
            "text": .string("sorted and filtered: the \(table.arrived) rows received so far")]))
    }

    /// While a sorted or filtered view shows part of a stream, more rows refresh it: after
    /// every arrival while the table is small, then each time it has grown by a tenth.
    private func refreshSoFar(_ table: SpooledTable, tab: String) {
        guard let shown = table.viewedSoFar, table.arrived < 10_000 || table.arrived >= shown + shown / 10 else { return }
        table.viewedSoFar = table.arrived
        if table.saidSoFar { reportSoFar(table, tab: tab) }
        deliver(tab, .notification(method: Method.invalidate, params: ["table": .string(table.handle)]))
    }

    /// Answers a core `rows` request from the spool, on the writer queue: after the rows
    /// already handed to it are stored, and off the runtime's thread, which draws the screen
    /// (the first deep page of a 1,000,000-row order builds an order table: a second or two).
    /// Called with the lock held; returns at once. The answer runs after the writer-queue
    /// block that is running now, if any (``later(_:_:)``), or in a block of its own.
    private func answerLater(id: RequestID, _ question: Question, tab: String) {
        deferredAnswers.append((tab, id, question))
        work.async { [self] in runDeferredAnswers() }
    }

    /// Answers what ``answerLater(id:_:tab:)`` queued. On the writer queue, without the lock.
    private func runDeferredAnswers() {
        while let next = lock.withLock({ () -> (String, RequestID, Question)? in
            deferredAnswers.isEmpty ? nil : deferredAnswers.removeFirst()
        }) {
            let (tab, id, question) = next
            // Looked up again: the plugin may have stopped or the table closed meanwhile.
            guard let (route, table) = lock.withLock({ () -> (TabRoute, SpooledTable)? in
                guard let route = routes[tab], let table = route.tables[question.table] else { return nil }
                return (route, table)
            }) else {
                switch question {
                case .rows: break
                case .aggregate, .describe:
                    deliver(tab, .failure(id: id, error: RPCError(code: RPCError.unknownTable, message: "unknown table \(question.table)")))
                }
                continue
            }
            switch question {
            case .rows(let request): answer(id: id, request: request, table: table, route: route, tab: tab)
            case .aggregate(let request): answer(id: id, aggregate: request, table: table, route: route, tab: tab)
            case .describe(let request): answer(id: id, describe: request, table: table, route: route, tab: tab)
            }
        }
    }

    /// Runs `work` with "still working" beats (``Heartbeat``) on the tab's progress bar; the
    /// `reply` it is given ends the beats' progress before it delivers the answer, so that the
    /// core never sees a bar after it.
    private func beating(_ tab: String, _ what: String, _ work: (_ reply: @escaping Deliver) -> Void) {
        let end: Message = .notification(method: Method.progress, params: ["done": 1, "total": 1])
        let heartbeat = Heartbeat(every: Self.heartbeatInterval) { [deliver] in
            deliver(tab, .notification(method: Method.progress, params: ["done": 0, "message": .string(what)]))
        }
        let reply: Deliver = { [deliver] tab, message in
            if heartbeat.stop() { deliver(tab, end) }
            deliver(tab, message)
        }
        work(reply)
        if heartbeat.stop() { deliver(tab, end) }
    }

    /// Runs on the writer queue without the lock; takes it only to read and update the
    /// table's state, so that the runtime's thread never waits for a sort.
    private func answer(id: RequestID, request: RowsRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let state = lock.withLock { () -> (file: SpoolFile?, fill: SpoolFill, arrived: Int, order: String?,
                                            head: (sort: [SortKey], rows: [JSONValue])?)? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            return (route.file, table.fill, table.arrived, table.orders[request.sort], table.head)
        }
        guard let state else { return }  // the plugin stopped or the table was closed meanwhile
        beating(tab, "sorting rows") { reply in
            guard let file = state.file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            if let filter = RowKeep(request) {
                do {
                    try Where.check(request.where, columns: table.schema.columns)
                } catch {
                    reply(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
                    return
                }
                answerFiltered(id: id, request: request, filter: filter, table: table, file: file, tab: tab, reply: reply)
                return
            }
            do {
                var orderTable = state.order
                if orderTable == nil, state.fill == .complete, !request.sort.isEmpty,
                   OrderPolicy.materialize(offset: request.offset, rows: state.arrived) {
                    let name = lock.withLock { () -> String in
                        nextOrderNumber += 1
                        return "\(table.schema.tableName)_o\(nextOrderNumber)"
                    }
                    try file.materialize(table.schema, request.sort, name: name)
                    lock.withLock { table.orders[request.sort] = name }
                    orderTable = name
                }
                let rows: [JSONValue]
                if orderTable == nil, state.fill == .complete, !request.sort.isEmpty,
                   request.offset + request.limit <= Self.headRows {
                    // The first screens of a sorted order come from one top-N query, kept.
                    var head = state.head
                    if head?.sort != request.sort {
                        head = (request.sort, try file.page(table.schema, sort: request.sort, offset: 0, limit: Self.headRows))
                        lock.withLock { table.head = head }
                    }
                    let all = head!.rows
                    rows = Array(all[min(request.offset, all.count)..<min(request.offset + request.limit, all.count)])
                } else {
                    rows = try file.page(table.schema, sort: request.sort, offset: request.offset, limit: request.limit,
                                         orderTable: orderTable)
                }
                var result: JSONObject = ["generation": .int(Int64(request.generation)), "offset": .int(Int64(request.offset)),
                                          "rows": .array(rows)]
                if state.fill == .complete { result["total"] = .int(Int64(state.arrived)) }
                reply(tab, .response(id: id, result: .object(result)))
            } catch {
                let code = switch error as? SpoolError { case .unknownColumn?, .sourceOrder?: RPCError.invalidParams; default: RPCError.internalError }
                reply(tab, .failure(id: id, error: RPCError(code: code, message: "\(error)")))
            }
        }
    }

    /// A filtered page, from the complete spool (``PageRoute`` waits for every row): the rows
    /// whose cells contain the text, in the order asked for, and how many there are. Deep
    /// filtered pages go through `OFFSET` (no materialized order: a filter usually keeps few rows).
    private func answerFiltered(id: RequestID, request: RowsRequest, filter: RowKeep, table: SpooledTable,
                                file: SpoolFile, tab: String, reply: Deliver) {
        do {
            let rows = try file.page(table.schema, sort: request.sort, offset: request.offset, limit: request.limit,
                                     filter: filter)
            var total = lock.withLock { table.filteredCounts[filter] }
            if total == nil {
                let counted = try file.count(table.schema, filter: filter)
                // While rows arrive the count is of the rows so far, and not kept.
                lock.withLock { if table.fill == .complete { table.filteredCounts[filter] = counted } }
                total = counted
            }
            let result: JSONObject = ["generation": .int(Int64(request.generation)), "offset": .int(Int64(request.offset)),
                                      "rows": .array(rows), "total": .int(Int64(total!))]
            reply(tab, .response(id: id, result: .object(result)))
        } catch {
            let code = switch error { case .unknownColumn, .sourceOrder: RPCError.invalidParams; default: RPCError.internalError }
            reply(tab, .failure(id: id, error: RPCError(code: code, message: error.description)))
        }
    }

    /// Answers an `aggregate` from the complete spool, on the writer queue without the lock:
    /// counts the rows the filters keep by the group columns' cells (one pass, memory for the
    /// groups only), cuts bins (``GroupBins/apply(_:columns:bins:)``), orders the groups
    /// naturally and stores them as a table of the spool's own (`spool-agg-N`, complete at once),
    /// whose pages, sorts, filters and `close` are the spool's like any other table's.
    private func answer(id: RequestID, aggregate request: AggregateRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let file = lock.withLock { () -> SpoolFile?? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            return .some(route.file)
        }
        guard let file else { return }  // the plugin stopped meanwhile
        beating(tab, "counting rows") { reply in
            guard let file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            let columns = table.schema.columns
            let indexes: [Int]
            do {
                indexes = try GroupBins.check(request, columns: columns)
                try Where.check(request.where, columns: columns)
            } catch {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
                return
            }
            let keep = request.filter != nil || !request.where.isEmpty ? RowKeep(text: request.filter, where: request.where) : nil
            let specs = indexes.map { ColumnSpec(id: columns[$0].id, title: columns[$0].title, type: columns[$0].type) }
            do {
                let counted = try file.groups(table.schema, filter: keep, indexes: indexes)
                let (groups, sizes) = GroupBins.apply(counted.groups, columns: specs, bins: request.group.map(\.bins))
                let made = GroupTable.rows(groups, groupColumns: specs)
                let (handle, schema) = lock.withLock { () -> (String, SpoolSchema) in
                    nextAggregateNumber += 1
                    let schema = SpoolSchema(tableName: "t\(nextTableNumber)", columns: specs + AggregateResult.countColumns)
                    nextTableNumber += 1
                    return ("spool-agg-\(nextAggregateNumber)", schema)
                }
                try file.create(schema)
                _ = try file.insert(made.rows, into: schema)
                try file.commit()
                let groupsTable = SpooledTable(handle: handle, schema: schema, announcedTotal: made.rows.count, own: true)
                groupsTable.fill = .complete
                groupsTable.arrived = made.rows.count
                let title = ([table.title ?? table.handle] + specs.map(\.title)).joined(separator: " › ")
                let registered = lock.withLock { () -> Bool in
                    guard routes[tab] === route else { return false }
                    route.tables[handle] = groupsTable
                    return true
                }
                guard registered else { file.drop(schema); return }
                let result = AggregateResult(
                    description: TableDescription(table: handle, title: title, columns: schema.columns, total: made.rows.count),
                    rows: made.counted, largest: made.largest, bins: sizes)
                reply(tab, .response(id: id, result: result.json))
            } catch {
                let code = switch error as? SpoolError { case .unknownColumn?: RPCError.invalidParams; default: RPCError.internalError }
                reply(tab, .failure(id: id, error: RPCError(code: code, message: "\(error)")))
            }
        }
    }

    /// Answers a `describe` from the complete spool, on the writer queue without the lock: one
    /// pass over the rows the filters keep through ``TableSummary`` (bounded memory), stored as a
    /// table of the spool's own (`spool-desc-N`, complete at once) with `estimates`.
    private func answer(id: RequestID, describe request: DescribeRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let file = lock.withLock { () -> SpoolFile?? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            return .some(route.file)
        }
        guard let file else { return }  // the plugin stopped meanwhile
        let limits = describeLimits
        beating(tab, "describing columns") { reply in
            guard let file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            let keep = request.filter != nil || !request.where.isEmpty ? RowKeep(text: request.filter, where: request.where) : nil
            do {
                try Where.check(request.where, columns: table.schema.columns)
                let summary = try file.describe(table.schema, filter: keep, limits: limits)
                let rows = summary.rows
                let (handle, schema) = lock.withLock { () -> (String, SpoolSchema) in
                    nextDescribeNumber += 1
                    let schema = SpoolSchema(tableName: "t\(nextTableNumber)", columns: DescribeRequest.columns)
                    nextTableNumber += 1
                    return ("spool-desc-\(nextDescribeNumber)", schema)
                }
                try file.create(schema)
                _ = try file.insert(rows, into: schema)
                try file.commit()
                let described = SpooledTable(handle: handle, schema: schema, announcedTotal: rows.count, own: true)
                described.fill = .complete
                described.arrived = rows.count
                let registered = lock.withLock { () -> Bool in
                    guard routes[tab] === route else { return false }
                    route.tables[handle] = described
                    return true
                }
                guard registered else { file.drop(schema); return }
                let result = DescribeResult(
                    description: TableDescription(table: handle, title: "\(table.title ?? table.handle) › describe",
                                                  columns: schema.columns, total: rows.count),
                    estimates: summary.estimates)
                reply(tab, .response(id: id, result: result.json))
            } catch let error as JSONFieldError {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            } catch {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "\(error)")))
            }
        }
    }

    private func invalidate(_ params: JSONValue, route: TabRoute, tab: String) {
        guard case .object(let o) = params else { return }
        let handle: String? = if case .string(let s)? = o["table"] { s } else { nil }
        for table in route.tables.values where handle == nil || table.handle == handle {
            guard table.fill != .idle, !table.own else { continue }
            // The plugin's data changed: refill on the next request that needs the spool.
            for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
            table.inflight = [:]
            let orders = Array(table.orders.values)
            onWriter(route.file) { file in for name in orders { file.dropTable(named: name) } }
            table.orders = [:]
            table.head = nil
            table.filteredCounts = [:]
            table.fill = .idle
            table.viewedSoFar = nil
            table.saidSoFar = false
            table.arrived = 0
            if table.hasWaiting { startFilling(table, route: route, tab: tab) }
        }
    }
}

/// What the spool knows about one tab's plugin.
final class TabRoute {
    /// The id of the `initialize` request until it is answered.
    var initializeID: RequestID?
    /// The plugin's own capabilities.
    var capabilities: PluginCapabilities?
    /// `open` and `children` requests in flight (their results describe tables).
    var describing: [RequestID: Bool] = [:]
    var tables: [String: SpooledTable] = [:]
    var file: SpoolFile?

    init(initializeID: RequestID) { self.initializeID = initializeID }

    /// Whether the plugin needs the spool: it cannot sort, or cannot page.
    var spooled: Bool {
        guard let c = capabilities else { return false }
        return !c.sort || !c.paging
    }
}
