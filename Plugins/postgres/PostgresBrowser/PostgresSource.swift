import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// The data source of `tabdeck-postgres`.
///
/// Open args: `{"url": "postgresql://USER@HOST:PORT/DB"}`, optionally `"table": "SCHEMA.NAME"`
/// to open that table directly, `"key": ["COL", ...]` the columns that identify a row of that
/// table when it has no primary key or unique index (a view), `"keys": {"SCHEMA.NAME": ["COL",
/// ...]}` the same for the tables opened from the catalog, and the TLS settings `"sslmode"`,
/// `"sslrootcert"`, `"sslcert"`, `"sslkey"` (libpq's, also accepted in the URL's query and from
/// `PGSSLMODE` …; the args win over the URL, the URL over the environment: ``PGTLS``). The
/// password comes from `PGPASSWORD` or `.pgpass`, never from the args. `PGAPPNAME` names the
/// connections on the server (`application_name`, default `tabdeck-postgres`). Without `table`
/// the root is the catalog (``PGCatalog``); a catalog row's children are its rows
/// (``PGTable``), as `"t1"`, `"t2"`, ….
///
/// A table's total is the planner's estimate first; the exact `count(*)` then runs in the
/// background (progress every second, the `stop-count` action cancels it, on the server too,
/// and it is not started again for that table and filter) and arrives as an `invalidate` with
/// the total. A lost connection fails the request with a clear message; the
/// next request reconnects.
public final class PostgresSource: TableDataSource, @unchecked Sendable {
    public let capabilities = {
        var c = PluginCapabilities(sort: true, multiSort: true, filter: true, children: true, actions: true)
        c.cells = true
        c.where = true
        c.aggregate = true
        c.describe = true
        c.query = true
        c.find = true
        return c
    }()

    private let lock = NSLock()
    private var connection: PGConnection?
    private var catalog: [PGCatalog.Entry] = []
    private var tables: [String: PGTable] = [:]
    private var counts: [CountKey: Int] = [:]
    private var counting: [CountKey: CancellationFlag] = [:]
    /// Counts stopped by `stop-count`: not started again for the same table and filter.
    private var stopped: Set<CountKey> = []
    /// The filter of each table's latest `rows` request: a count is announced only for it.
    private var lastFilter: [String: String] = [:]
    private var nextHandle = 1
    private var notifier: Notifier?
    /// Declared keys by `schema.name`, from the args.
    private var declaredKeys: [String: [String]] = [:]
    let environment: [String: String]

    struct CountKey: Hashable { var handle: String; var filter: String?; var clause: WhereClause = [] }
    /// The tables of groups made by `aggregate`, in memory.
    private var countTables: [String: CountTable] = [:]
    /// The results of `query` and the tables of `describe`, in memory.
    private var resultTables: [String: MemoryTable] = [:]
    /// A `query` is stopped (on the server) after this long.
    public var statementSeconds = 100

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) { self.environment = environment }

    public func attach(_ notifier: Notifier) { lock.lock(); self.notifier = notifier; lock.unlock() }

    // MARK: open

    public func open(args: JSONValue) throws -> TableDescription {
        let r = try JSONReader(args, path: "params.args")
        let url = try r.string("url")
        let target = try PGTarget(url: url)
        if r.value("password") != nil {
            throw RPCError.badParams("params.args.password: a password does not belong in the config; use PGPASSWORD or ~/.pgpass",
                                     path: "params.args.password")
        }
        let only = try r.optionalString("table")
        var keys: [String: [String]] = [:]
        if let k = try r.optionalObject("keys") {
            for name in k.object.keys { keys[name] = try k.optionalStrings(name) ?? [] }
        }
        let key = try r.optionalStrings("key")
        var tlsArgs: [String: String] = [:]
        for key in PGTLS.keys { tlsArgs[key] = try r.optionalString(key) }
        let tls = try PGTLS.resolve(args: tlsArgs, url: try PGTarget.parameters(url: url), environment: environment,
                                    fileExists: { FileManager.default.fileExists(atPath: $0) })
        let connection = try PGConnection(target: target, password: target.password(environment: environment), tls: tls,
                                          applicationName: environment["PGAPPNAME"] ?? "tabdeck-postgres")
        connection.heartbeat = { [weak self] seconds in
            self?.currentNotifier()?.progress(done: Double(seconds), total: nil, message: "waiting for PostgreSQL (\(seconds) s; Esc cancels)")
        }
        try connection.probe()
        lock.lock(); self.connection = connection; tables = [:]; declaredKeys = keys; lock.unlock()
        if let only {
            let parts = only.split(separator: ".", maxSplits: 1).map(String.init)
            let (schema, name) = parts.count == 2 ? (parts[0], parts[1]) : ("public", only)
            let table = try PGTable.open(connection, schema: schema, name: name, declaredKey: key ?? keys["\(schema).\(name)"])
            install("root", table)
            PluginLog.info("opened \(target.display) \(schema).\(name): \(table.columns.count) columns, rows identified by \(Self.describe(table.identity))")
            return describe(table, handle: "root", title: "\(target.database) › \(only)")
        }
        let entries = try PGCatalog.read(connection)
        lock.lock(); catalog = entries; lock.unlock()
        notifier?.badge(.number(entries.count))
        PluginLog.info("opened \(target.display): \(entries.count) tables and views")
        return TableDescription(table: "root", title: target.database, columns: PGCatalog.columns, total: entries.count,
                                sqlNames: entries.prefix(SQLNames.limit).map { Self.sqlName(schema: $0.schema, name: $0.name) })
    }

    private func install(_ handle: String, _ table: PGTable) { lock.lock(); tables[handle] = table; lock.unlock() }

    /// The description of an opened table; says which columns were left out for want of a grant.
    private func describe(_ table: PGTable, handle: String, title: String) -> TableDescription {
        if !table.hidden.isEmpty {
            let list = table.hidden.joined(separator: ", ")
            PluginLog.info("\(table.name): columns left out, no SELECT privilege: \(list)")
            currentNotifier()?.status("\(table.name): \(table.hidden.count) column\(table.hidden.count == 1 ? "" : "s") left out (no SELECT privilege): \(list)")
        }
        let total = total(of: table, handle: handle, filter: nil)
        return TableDescription(table: handle, title: title, columns: table.columnSpecs, total: total.count, actions: table.actions,
                                totalIsEstimate: total.estimated, rowIDs: table.rowIDs,
                                sqlNames: [Self.sqlName(schema: table.schema, name: table.name)])
    }

    /// A table's name in the user's SQL: `public` tables without their schema (on the default
    /// search path), others qualified.
    static func sqlName(schema: String, name: String) -> String {
        schema == "public" ? SQLNames.identifier(name) : SQLNames.identifier(schema) + "." + SQLNames.identifier(name)
    }

    static func describe(_ identity: PGIdentity) -> String {
        switch identity {
        case .key(let columns, let source): "\(source.rawValue) (\(columns.map(\.name).joined(separator: ", ")))"
        case .place(let partitioned): partitioned ? "(tableoid, ctid)" : "ctid"
        case .none: "position (no key: ids unstable)"
        }
    }

    // MARK: cell

    public func cell(table handle: String, row: String, column: String, cancel: CancellationFlag) throws -> String {
        lock.lock()
        let table = tables[handle]
        lock.unlock()
        guard let table else { throw RPCError.unknown(table: handle) }
        return try table.wholeText(row: row, column: column, cancel: cancel)
    }

    // MARK: rows

    public func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        try answer(request, written: false, cancel: cancel).result
    }

    /// A table's pages are written straight from the server's bytes (``PGRowWriter``) unless
    /// `TABDECK_PG_PAGES=values` (the tests compare the two).
    public func writtenRows(_ request: RowsRequest, cancel: CancellationFlag) throws -> WrittenRows? {
        try answer(request, written: environment["TABDECK_PG_PAGES"] != "values", cancel: cancel)
    }

    private func answer(_ request: RowsRequest, written: Bool, cancel: CancellationFlag) throws -> WrittenRows {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        lock.lock()
        let table = tables[request.table], entries = catalog, hasConnection = connection != nil
        let exact = counts[CountKey(handle: request.table, filter: filter, clause: request.where)]
        lastFilter[request.table] = filter
        let groups = countTables[request.table], result = resultTables[request.table]
        lock.unlock()
        if let groups { return WrittenRows(result: try groups.page(request), json: nil) }
        if let result { return WrittenRows(result: try result.page(request), json: nil) }
        if let table {
            let page: PGTable.Page
            do {
                page = try table.answer(offset: request.offset, limit: request.limit, sort: request.sort, filter: filter,
                                        where: request.where, exactTotal: exact, generation: request.generation, written: written,
                                        cancel: cancel)
            } catch let error as RPCError {
                // The rows asked named, so the host shows the failure against that request.
                throw RPCError(code: error.code, message: "\(error.message) (\(table.schema).\(table.name), rows "
                               + "\(request.offset + 1)–\(request.offset + request.limit) asked)", data: error.data)
            }
            let total = total(of: table, handle: request.table, filter: filter, where: request.where)
            switch page {
            case .rows(let rows):
                return WrittenRows(result: request.result(rows, total: total.count, totalIsEstimate: total.estimated), json: nil)
            case .written(let json):
                return WrittenRows(result: request.result([], total: total.count, totalIsEstimate: total.estimated), json: json)
            }
        }
        guard request.table == "root", hasConnection else { throw RPCError.unknown(table: request.table) }
        let page = try PGCatalog.page(entries, offset: request.offset, limit: request.limit, sort: request.sort, filter: filter,
                                      where: request.where)
        return WrittenRows(result: request.result(page.rows, total: page.total), json: nil)
    }

    // MARK: find

    /// The first row from `from` on (or back) holding the text (PROTOCOL.md 11.15): one query on
    /// the server for a table (``PGTable/find(_:cancel:)``: heartbeats while it runs, cancelled
    /// on the server on `$/cancel`), a scan of the rows for the tables in memory.
    public func find(_ request: FindRequest, cancel: CancellationFlag) throws -> FindResult {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        lock.lock()
        let table = tables[request.table], entries = catalog, hasConnection = connection != nil
        let groups = countTables[request.table], result = resultTables[request.table]
        lock.unlock()
        if let groups {
            let order = try groups.order(sort: request.sort, filter: filter, clause: request.where)
            return try FindInMemory.find(request, in: order.map { groups.rows[$0] }, cancel: cancel)
        }
        if let result {
            let order = try result.order(sort: request.sort, filter: filter, clause: request.where)
            return try FindInMemory.find(request, in: order.map { result.rows[$0] }, cancel: cancel)
        }
        if let table {
            let started = Date()
            do {
                let found = try table.find(request, cancel: cancel)
                PluginLog.debug("\(table.name) find from \(request.from): \(found.offset.map(String.init) ?? "none") in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
                return found
            } catch let error as RPCError {
                throw RPCError(code: error.code, message: "\(error.message) (\(table.schema).\(table.name), find)", data: error.data)
            }
        }
        guard request.table == "root", hasConnection else { throw RPCError.unknown(table: request.table) }
        let page = try PGCatalog.page(entries, offset: 0, limit: entries.count, sort: request.sort, filter: filter, where: request.where)
        return try FindInMemory.find(request, in: page.rows, cancel: cancel)
    }

    /// The exact count if known, else (without a filter) the estimate; starts the exact count
    /// in the background when it is not known yet.
    private func total(of table: PGTable, handle: String, filter: String?, where clause: WhereClause = []) -> (count: Int?, estimated: Bool) {
        let key = CountKey(handle: handle, filter: filter, clause: clause)
        lock.lock()
        if let n = counts[key] { lock.unlock(); return (n, false) }
        let start = counting[key] == nil && !stopped.contains(key)
        let flag = CancellationFlag()
        if start { counting[key] = flag }
        lock.unlock()
        if start { startCount(table, key, flag) }
        let estimate = filter == nil && clause.isEmpty ? table.estimate : nil
        return (estimate, estimate != nil)
    }

    private func startCount(_ table: PGTable, _ key: CountKey, _ flag: CancellationFlag) {
        let thread = Thread { [self] in
            let started = Date()
            let done = DispatchSemaphore(value: 0)
            let ticker = Thread { [self] in
                while done.wait(timeout: .now() + 1) == .timedOut {
                    let s = Int(Date().timeIntervalSince(started))
                    currentNotifier()?.progress(done: Double(s), total: nil, message: "counting rows of \(table.name) (\(s) s; stop-count stops)")
                }
            }
            ticker.start()
            var n: Int?, failure: String?
            do { n = try table.count(filter: key.filter, where: key.clause, cancel: flag) } catch {
                failure = (error as? RPCError)?.message ?? "\(error)"
            }
            done.signal()
            lock.lock()
            counting[key] = nil
            if let n, tables[key.handle] === table { counts[key] = n }
            let notifier = self.notifier, current = lastFilter[key.handle] == key.filter
            lock.unlock()
            // A failed count (the server gone) says so; the next rows request starts it again.
            if let failure, !flag.isCancelled { PluginLog.info("counting rows of \(table.name) failed: \(failure)") }
            let message = flag.isCancelled ? "counting stopped" : failure.map { "counting rows of \(table.name) failed: \($0)" } ?? "counted"
            notifier?.progress(done: 1, total: 1, message: message)
            // Only the count changed (`"rows": []`, PROTOCOL 12.2): the host keeps its pages. A filtered
            // count goes with the next page (an invalidate's total is the unfiltered table's).
            if let n, !flag.isCancelled, current, key.filter == nil, key.clause.isEmpty { notifier?.invalidate(table: key.handle, rows: [], total: n) }
        }
        thread.name = "postgres-count"
        thread.start()
    }

    private func currentNotifier() -> Notifier? { lock.lock(); defer { lock.unlock() }; return notifier }

    // MARK: aggregate

    public func aggregate(_ request: AggregateRequest, cancel: CancellationFlag) throws -> AggregateResult {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        lock.lock()
        let table = tables[request.table], counted = countTables[request.table], entries = catalog, hasConnection = connection != nil
        lock.unlock()
        let columns: [ColumnSpec], groups: [Group], title: String
        var sizes: [String: BinSize] = [:]
        if let counted {
            columns = counted.columns
            let indexes = try GroupBins.check(request, columns: columns)
            let kept = try counted.order(sort: [], filter: filter, clause: request.where)
            (groups, sizes) = GroupBins.apply(GroupBins.count(kept.map { counted.rows[$0].cells }, indexes: indexes),
                                              columns: indexes.map { columns[$0] }, bins: request.group.map(\.bins))
            title = "groups"
        } else if let table {
            columns = table.columnSpecs
            _ = try GroupBins.check(request, columns: columns)
            (groups, sizes) = try table.groups(request.group, filter: filter, where: request.where, cancel: cancel)
            title = "\(table.schema).\(table.name)"
        } else if request.table == "root", hasConnection {
            columns = PGCatalog.columns
            let indexes = try GroupBins.check(request, columns: columns)
            let all = try PGCatalog.page(entries, offset: 0, limit: entries.count, sort: [], filter: filter, where: request.where)
            (groups, sizes) = GroupBins.apply(GroupBins.count(all.rows.map(\.cells), indexes: indexes),
                                              columns: indexes.map { columns[$0] }, bins: request.group.map(\.bins))
            title = "catalog"
        } else {
            throw RPCError.unknown(table: request.table)
        }
        let groupColumns = request.group.map { g in columns.first { $0.id == g.column }! }
        let result = try CountTable(groupColumns: groupColumns, groups: groups)
        lock.lock()
        let handle = "t\(nextHandle)"
        nextHandle += 1
        countTables[handle] = result
        lock.unlock()
        let names = groupColumns.map { $0.title ?? $0.id }.joined(separator: ", ")
        PluginLog.info("\(title): \(result.rows.count) groups of \(result.counted) rows by \(names) as \(handle)")
        return result.description(handle: handle, title: "\(title) › \(names)", sizes: sizes)
    }

    // MARK: describe, query

    /// The statistics of every column of a table under its filters (PROTOCOL.md 11.13): one
    /// query per column, on the server; answered as a new table held in memory.
    public func describe(_ request: DescribeRequest, cancel: CancellationFlag) throws -> DescribeResult {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        lock.lock()
        let table = tables[request.table]
        let known = table != nil || countTables[request.table] != nil || resultTables[request.table] != nil
            || (request.table == "root" && connection != nil)
        lock.unlock()
        guard known else { throw RPCError.unknown(table: request.table) }
        guard let table else { throw RPCError.unsupported("describe works on the tables of the database, not on this one") }
        try Where.check(request.where, columns: table.columnSpecs)
        let (conditions, binds) = table.selection(filter: filter, where: request.where)
        var rows: [Row] = []
        for column in table.columns {
            try cancel.check()
            let sql = PGQuery.statistics(column, source: table.source, conditions: conditions)
            let stats = try table.connection.query(sql, binds, cancel: cancel).first ?? []
            rows.append(PGQuery.describeRow(column, stats))
        }
        let result = MemoryTable(columns: DescribeRequest.columns, rows: rows)
        let handle = keep(result)
        PluginLog.info("\(table.schema).\(table.name): described \(rows.count) columns as \(handle)")
        return DescribeResult(description: TableDescription(table: handle, title: "\(table.schema).\(table.name) › describe",
                                                            columns: result.columns, total: rows.count))
    }

    /// Runs a query read-only (PROTOCOL.md 11.14): in a READ ONLY transaction with the
    /// statement timeout, as a subquery (so never a statement that changes data), stopped on
    /// the server on `$/cancel`; its result is held in memory and served as a new table.
    public func query(_ request: QueryRequest, cancel: CancellationFlag) throws -> TableDescription {
        lock.lock(); let connection = self.connection; lock.unlock()
        guard let connection else { throw RPCError.unknown(table: "root") }
        if let refusal = PGQuery.refusal(request.sql) { throw RPCError.badParams(refusal, path: "params.sql") }
        let result: (columns: [(name: String, oid: UInt32)], rows: [[String?]])
        do {
            // The columns first (planned, not run), then the rows with every value as text.
            let setup = PGQuery.setup(statementSeconds: statementSeconds)
            let shape = try connection.transaction(setup: setup, PGQuery.wrap(request.sql, limit: 0), cancel: cancel)
            let rows = try connection.transaction(setup: setup, PGQuery.textWrap(request.sql, columns: shape.columns.count - 1),
                                                  cancel: cancel)
            result = (shape.columns, rows.rows)
        } catch let error as RPCError where error.code == RPCError.internalError && error.message.hasPrefix("PostgreSQL: ") {
            let position = error.data?["position"]?.intValue.flatMap { PGQuery.position(Int($0), in: request.sql) }
            throw RPCError(code: RPCError.invalidParams, message: error.message,
                           data: position.map { ["position": .int(Int64($0))] })
        }
        let table = try PGQuery.resultTable(result.columns, result.rows)
        let handle = keep(table)
        let title = request.sql.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        PluginLog.info("query: \(table.rows.count) rows as \(handle)")
        return TableDescription(table: handle, title: String(title.prefix(120)), columns: table.columns, total: table.rows.count)
    }

    private func keep(_ table: MemoryTable) -> String {
        lock.lock(); defer { lock.unlock() }
        let handle = "t\(nextHandle)"
        nextHandle += 1
        resultTables[handle] = table
        return handle
    }

    // MARK: children, actions, close

    public func children(table handle: String, row: String) throws -> TableDescription {
        lock.lock()
        let entry = handle == "root" ? catalog.first { $0.id == row } : nil
        let connection = self.connection
        let declared = entry.flatMap { declaredKeys[$0.id] }
        lock.unlock()
        guard let entry, let connection else {
            throw handle == "root" ? RPCError.badParams("params.row: unknown table \"\(row)\"", path: "params.row")
                : RPCError.unsupported("the rows of a table have no children")
        }
        let table = try PGTable.open(connection, schema: entry.schema, name: entry.name, declaredKey: declared)
        lock.lock()
        let child = "t\(nextHandle)"
        nextHandle += 1
        tables[child] = table
        lock.unlock()
        return describe(table, handle: child, title: entry.id)
    }

    public func action(table handle: String, action: String, rows: [String]) throws -> ActionResult {
        lock.lock()
        let table = tables[handle]
        let running = counting.filter { $0.key.handle == handle }
        if action == "stop-count" { stopped.formUnion(running.keys) }
        lock.unlock()
        guard let table else { throw RPCError.unknown(table: handle) }
        switch action {
        case "delete":
            let n = try table.delete(ids: rows)
            lock.lock(); counts = counts.filter { $0.key.handle != handle }; lock.unlock()
            PluginLog.info("deleted \(n) rows of \(table.name)")
            return ActionResult(message: "deleted \(n) row\(n == 1 ? "" : "s") of \(table.name)", invalidate: true)
        case "stop-count":
            for flag in running.values { flag.cancel() }
            return ActionResult(message: running.isEmpty ? "no count is running" : "counting stopped")
        default:
            throw RPCError.badParams("params.action: unknown action \"\(action)\"", path: "params.action")
        }
    }

    public func close(table handle: String) {
        lock.lock()
        if handle != "root" { tables[handle] = nil; countTables[handle] = nil; resultTables[handle] = nil }
        for (key, flag) in counting where key.handle == handle && handle != "root" { flag.cancel() }
        lock.unlock()
    }
}
