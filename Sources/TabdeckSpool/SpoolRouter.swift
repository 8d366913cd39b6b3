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
    let send: Send
    let deliver: Deliver
    let lock = NSLock()
    /// The writer queue (storing rows) and how many messages may wait for it.
    let work = DispatchQueue(label: "tabdeck.spool.writer")
    let backlog = DispatchSemaphore(value: SpoolRouter.backlogLimit)
    static let backlogLimit = 8
    var routes: [String: TabRoute] = [:]
    var ids = SpoolIDs()
    var nextTableNumber = 1
    /// Numbers the materialized order tables of this spool (names stay unique after drops).
    var nextOrderNumber = 0
    /// Numbers the spool's own aggregate tables (handles `spool-agg-N`).
    var nextAggregateNumber = 0
    /// Numbers the spool's own describe tables (handles `spool-desc-N`).
    var nextDescribeNumber = 0
    /// The memory bounds of a `describe`'s statistics (smaller in tests, to cross them).
    var describeLimits = ColumnSummary.Limits.standard
    /// The core's `find` requests the spool works on (tab and id), and those of them the core
    /// cancelled: a search checks now and then whether to stop (``SpoolFile/find``).
    var findsRunning: Set<FindKey> = []
    var findsCancelled: Set<FindKey> = []
    struct FindKey: Hashable { var tab: String; var id: RequestID }
    /// Core requests to answer on the writer queue, in order (``answerLater(id:_:tab:)``).
    var deferredAnswers: [(tab: String, id: RequestID, question: Question)] = []

    /// A core request the spool answers on its writer queue.
    enum Question {
        case rows(RowsRequest)
        case aggregate(AggregateRequest)
        case describe(DescribeRequest)
        case find(FindRequest)

        var table: String {
            switch self {
            case .rows(let r): r.table
            case .aggregate(let a): a.table
            case .describe(let d): d.table
            case .find(let f): f.table
            }
        }

        /// Refuses a question about columns the table does not have (or cannot bin).
        func check(columns: [ColumnSpec]) throws {
            switch self {
            case .rows: break
            case .aggregate(let a):
                _ = try GroupBins.check(a, columns: columns)
                try Where.check(a.where, columns: columns)
            case .describe(let d):
                try Where.check(d.where, columns: columns)
            case .find(let f):
                try Where.check(f.where, columns: columns)
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
                if method == Method.find {
                    coreWholeTable(id: id, params: params, route: route, tab: tab) { (p) throws -> Question in .find(try FindRequest(p)) }
                    return true
                }
                if method == Method.aggregate || method == Method.describe {
                    coreWholeTable(id: id, params: params, route: route, tab: tab) { (p) throws -> Question in
                        method == Method.aggregate ? .aggregate(try AggregateRequest(p)) : .describe(try DescribeRequest(p))
                    }
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
                if let id, findsRunning.contains(FindKey(tab: tab, id: id)) {
                    findsCancelled.insert(FindKey(tab: tab, id: id))
                    return true
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
    func pluginPages(_ table: SpooledTable, route: TabRoute) -> Bool {
        !table.own && (route.capabilities?.paging ?? true)
    }

    func coreRows(id: RequestID, request: RowsRequest, table: SpooledTable, route: TabRoute, tab: String) -> Bool {
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

    /// The core's `aggregate` or `describe` for a table of this plugin (PROTOCOL.md 11.12,
    /// 11.13): the spool answers once every row has arrived (a count of part of a table would be
    /// wrong), with a table of its own. Called with the lock held.
    func coreWholeTable(id: RequestID, params: JSONValue, route: TabRoute, tab: String,
                                read: (JSONValue) throws -> Question) {
        let question: Question
        do {
            question = try read(params)
        } catch {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            return
        }
        guard let table = route.tables[question.table] else {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.unknownTable, message: "unknown table \(question.table)")))
            return
        }
        do {
            try question.check(columns: table.schema.columns)
        } catch {
            deliver(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            return
        }
        whenComplete(id: id, question, table: table, route: route, tab: tab)
    }

    /// Answers a question about a whole table once every row has arrived (filling the spool
    /// first if needed); fails it if the fill failed. Called with the lock held.
    func whenComplete(id: RequestID, _ question: Question, table: SpooledTable, route: TabRoute, tab: String) {
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
    func later(_ tab: String, _ body: @escaping @Sendable (TabRoute) -> Void) {
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
    func onWriter(_ file: SpoolFile?, _ body: @escaping @Sendable (SpoolFile) -> Void) {
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
