import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// The data source of `tabdeck-sqlite`.
///
/// Open args: `{"path": "db.sqlite"}` (relative to the working directory, which is the config
/// file's folder), optionally `"table": "name"` to show one table or view directly instead of
/// the catalog. The database is opened read-only.
///
/// - The root table (`"root"`) is the catalog: one row per table or view (name, kind, row
///   count, columns), row id = the name. Row counts arrive from a background `COUNT(*)`; the
///   catalog is invalidated as they do.
/// - `children` of a catalog row opens that table or view as `"t1"`, `"t2"`, …: its rows,
///   sorted, filtered and paged by SQLite (see ``BrowsedTable``). Its `total` is the count if
///   known within 0.3 s, else null, followed by an `invalidate` with the total once counted.
/// - Queries that run long send `progress` (so the host does not time them out), and stop
///   when the host cancels the request.
/// - When another process changes the database, caches are dropped and every open table is
///   invalidated.
public final class SQLiteSource: TableDataSource, @unchecked Sendable {
    public let capabilities = {
        var c = PluginCapabilities(sort: true, multiSort: true, filter: true, children: true)
        c.cells = true
        c.where = true
        c.aggregate = true
        c.describe = true
        c.query = true
        c.find = true
        return c
    }()

    enum Opened {
        case catalog
        case table(BrowsedTable)
        /// The groups of an `aggregate`, in memory.
        case counts(CountTable)
        /// A `query` result or a `describe` table, in memory.
        case memory(MemoryTable)
    }

    private let lock = NSLock()
    private var file: DatabaseFile?
    private var tables: [String: Opened] = [:]
    private var lastFilter: [String: String] = [:]
    private var nextHandle = 1
    private var notifier: Notifier?
    private var countedNames: Set<String> = []
    private var lastCatalogFlush = Date.distantPast
    /// Page queries stop after this long (the host has no fixed limit; this bounds a runaway query).
    public var querySeconds = 100.0

    public init() {}

    public func attach(_ notifier: Notifier) {
        lock.lock(); self.notifier = notifier; lock.unlock()
    }

    // MARK: open

    public func open(args: JSONValue) throws -> TableDescription {
        let r = try JSONReader(args, path: "params.args")
        let path = try r.string("path")
        let only = try r.optionalString("table")
        let file = try DatabaseFile(path: path)
        let title = (path as NSString).lastPathComponent
        file.observeCounts { [weak self] table, filter, count, idle in self?.counted(table, filter, count, idle) }
        file.onChange = { [weak self] in self?.databaseChanged() }

        if let only {
            let table = try file.table(named: only)
            table.requestCount(filter: nil, urgent: true)
            let total = file.waitForCount(table: only, timeout: 0.3)
            install(file, root: .table(table))
            PluginLog.info("opened \(path), \(table.entry.kind.rawValue) \(only): \(table.columns.count) columns")
            return TableDescription(table: "root", title: "\(title) › \(only)", columns: table.columnSpecs, total: total,
                                    sqlNames: [SQLNames.identifier(only)])
        }
        let catalog = file.catalog
        install(file, root: .catalog)  // before counting: count notifications look for the catalog
        for kind in [false, true] {  // tables first: views can be slow to count
            for e in catalog where (e.kind == .view) == kind { file.requestCount(table: e.name) }
        }
        // Small databases are counted at once: give the first page its counts (0.25 s at most).
        let deadline = Date(timeIntervalSinceNow: 0.25)
        for e in catalog where file.waitForCount(table: e.name, timeout: deadline.timeIntervalSinceNow) == nil { break }
        PluginLog.info("opened \(path): \(catalog.count) tables and views")
        return TableDescription(table: "root", title: title, columns: CatalogTable.columns, total: catalog.count,
                                sqlNames: catalog.prefix(SQLNames.limit).map { SQLNames.identifier($0.name) })
    }

    private func install(_ file: DatabaseFile, root: Opened) {
        lock.lock()
        let old = self.file
        self.file = file
        tables = ["root": root]
        lastFilter = [:]
        lock.unlock()
        old?.close()
    }

    // MARK: rows

    public func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        let (file, opened) = try lookup(request.table)
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        lock.lock(); lastFilter[request.table] = Selection(filter: filter, where: request.where).key; lock.unlock()
        switch opened {
        case .counts(let counts):
            return try counts.page(request)
        case .memory(let table):
            return try table.page(request)
        case .catalog:
            let items = file.catalog.map { CatalogTable.Item(entry: $0, count: file.cachedCount(table: $0.name)) }
            let page = try CatalogTable.page(items, offset: request.offset, limit: request.limit, sort: request.sort, filter: filter,
                                             where: request.where)
            for row in page.rows where row.cells[2] == .null { file.requestCount(table: row.id) }
            return request.result(page.rows, total: page.total)
        case .table(let table):
            let notifier = currentNotifier(), name = table.name
            let watch = QueryGuard(cancel: cancel, seconds: querySeconds) { seconds in
                notifier?.progress(done: seconds.rounded(), total: nil, message: "reading \(name) (\(Int(seconds)) s)")
            }
            let page: Page
            do {
                page = try table.page(offset: request.offset, limit: request.limit, sort: request.sort, filter: filter,
                                      where: request.where, watch: watch)
            } catch let error as QueryTimeout {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(error)")
            } catch let error as DatabaseError {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(SchemaReader.describe(error))")
            }
            PluginLog.debug("\(name) offset \(request.offset): \(page.rows.count) rows via \(page.plan) in \(Int(Date().timeIntervalSince(watch.started) * 1000)) ms")
            if page.total == nil { table.requestCount(filter: filter, where: request.where, urgent: true) }
            var result = request.result(page.rows, total: page.total)
            result.more = page.more
            return result
        }
    }

    // MARK: find

    /// The first row from `from` on (or back) holding the text (PROTOCOL.md 11.15): one query
    /// for a table or view (``BrowsedTable/find(_:watch:)``), sending progress while it runs and
    /// stopped on `$/cancel`; a scan of the rows for the tables in memory.
    public func find(_ request: FindRequest, cancel: CancellationFlag) throws -> FindResult {
        let (file, opened) = try lookup(request.table)
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        switch opened {
        case .counts(let counts):
            let order = try counts.order(sort: request.sort, filter: filter, clause: request.where)
            return try FindInMemory.find(request, in: order.map { counts.rows[$0] }, cancel: cancel)
        case .memory(let table):
            let order = try table.order(sort: request.sort, filter: filter, clause: request.where)
            return try FindInMemory.find(request, in: order.map { table.rows[$0] }, cancel: cancel)
        case .catalog:
            let items = file.catalog.map { CatalogTable.Item(entry: $0, count: file.cachedCount(table: $0.name)) }
            let all = try CatalogTable.page(items, offset: 0, limit: Int.max, sort: request.sort, filter: filter, where: request.where)
            return try FindInMemory.find(request, in: all.rows, cancel: cancel)
        case .table(let table):
            let notifier = currentNotifier(), name = table.name
            let watch = QueryGuard(cancel: cancel, seconds: querySeconds) { seconds in
                notifier?.progress(done: seconds.rounded(), total: nil, message: "finding in \(name) (\(Int(seconds)) s)")
            }
            let found: FoundRow?
            do {
                found = try table.find(request, watch: watch)
            } catch let error as QueryTimeout {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(error)")
            } catch let error as DatabaseError {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(SchemaReader.describe(error))")
            }
            PluginLog.debug("\(name) find from \(request.from): \(found.map { String($0.offset) } ?? "none") in \(Int(Date().timeIntervalSince(watch.started) * 1000)) ms")
            guard let found else { return FindResult(generation: request.generation, offset: nil) }
            return FindResult(generation: request.generation, offset: found.offset, row: found.id, wrapped: found.wrapped)
        }
    }

    // MARK: aggregate

    public func aggregate(_ request: AggregateRequest, cancel: CancellationFlag) throws -> AggregateResult {
        let (_, opened) = try lookup(request.table)
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        let columns: [ColumnSpec], groups: [Group], title: String
        switch opened {
        case .catalog:
            columns = CatalogTable.columns
            let indexes = try GroupBins.check(request, columns: columns)
            let (file, _) = try lookup(request.table)
            let items = file.catalog.map { CatalogTable.Item(entry: $0, count: file.cachedCount(table: $0.name)) }
            let all = try CatalogTable.page(items, offset: 0, limit: Int.max, sort: [], filter: filter, where: request.where)
            groups = GroupBins.count(all.rows.map(\.cells), indexes: indexes)
            title = "catalog"
        case .counts(let counts):
            columns = counts.columns
            let indexes = try GroupBins.check(request, columns: columns)
            let kept = try counts.order(sort: [], filter: filter, clause: request.where)
            groups = GroupBins.count(kept.map { counts.rows[$0].cells }, indexes: indexes)
            title = "groups"
        case .memory(let table):
            columns = table.columns
            let indexes = try GroupBins.check(request, columns: columns)
            groups = GroupBins.count(try table.cells(filter: filter, clause: request.where), indexes: indexes)
            title = "result"
        case .table(let table):
            columns = table.columnSpecs
            let indexes = try GroupBins.check(request, columns: columns)
            let notifier = currentNotifier(), name = table.name
            let watch = QueryGuard(cancel: cancel, seconds: querySeconds) { seconds in
                notifier?.progress(done: seconds.rounded(), total: nil, message: "counting groups of \(name) (\(Int(seconds)) s)")
            }
            do {
                groups = try table.groups(indexes, selection: Selection(filter: filter, where: request.where), watch: watch)
            } catch let error as QueryTimeout {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(error)")
            } catch let error as DatabaseError {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(SchemaReader.describe(error))")
            }
            title = name
        }
        let groupColumns = request.group.map { g in columns.first { $0.id == g.column }! }
        let (binned, sizes) = GroupBins.apply(groups, columns: groupColumns, bins: request.group.map(\.bins))
        let counts = try CountTable(groupColumns: groupColumns, groups: binned)
        lock.lock()
        let handle = "t\(nextHandle)"
        nextHandle += 1
        tables[handle] = .counts(counts)
        lock.unlock()
        let names = groupColumns.map { $0.title ?? $0.id }.joined(separator: ", ")
        PluginLog.info("\(title): \(counts.rows.count) groups of \(counts.counted) rows by \(names) as \(handle)")
        return counts.description(handle: handle, title: "\(title) › \(names)", sizes: sizes)
    }

    // MARK: describe, query

    /// The statistics of every column of a table under its filters (PROTOCOL.md 11.13), as a
    /// new table of one row per column (streamed through the kit's ``TableSummary``, bounded memory).
    public func describe(_ request: DescribeRequest, cancel: CancellationFlag) throws -> DescribeResult {
        let (file, opened) = try lookup(request.table)
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        let columns: [ColumnSpec], title: String
        var summary: TableSummary, described = 0
        switch opened {
        case .catalog:
            columns = CatalogTable.columns
            try Where.check(request.where, columns: columns)
            let items = file.catalog.map { CatalogTable.Item(entry: $0, count: file.cachedCount(table: $0.name)) }
            summary = TableSummary(columns: columns)
            for row in try CatalogTable.page(items, offset: 0, limit: Int.max, sort: [], filter: filter, where: request.where).rows {
                summary.add(row.cells); described += 1
            }
            title = "catalog"
        case .counts(let counts):
            columns = counts.columns
            summary = TableSummary(columns: columns)
            for i in try counts.order(sort: [], filter: filter, clause: request.where) { summary.add(counts.rows[i].cells); described += 1 }
            title = "groups"
        case .memory(let table):
            columns = table.columns
            summary = TableSummary(columns: columns)
            for cells in try table.cells(filter: filter, clause: request.where) { summary.add(cells); described += 1 }
            title = "result"
        case .table(let table):
            columns = table.columnSpecs
            summary = TableSummary(columns: columns)
            let notifier = currentNotifier(), name = table.name
            let watch = QueryGuard(cancel: cancel, seconds: querySeconds) { seconds in
                notifier?.progress(done: seconds.rounded(), total: nil, message: "describing \(name) (\(Int(seconds)) s)")
            }
            do {
                try table.eachRow(selection: Selection(filter: filter, where: request.where), watch: watch) { cells in
                    summary.add(cells); described += 1
                }
            } catch let error as QueryTimeout {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(error)")
            } catch let error as DatabaseError {
                throw RPCError(code: RPCError.internalError, message: "\(name): \(SchemaReader.describe(error))")
            }
            title = name
        }
        try cancel.check()
        let stats = MemoryTable(columns: DescribeRequest.columns, rows: summary.rows)
        let handle = install(.memory(stats))
        PluginLog.info("\(title): described \(columns.count) columns over \(described) rows as \(handle)")
        return DescribeResult(description: TableDescription(table: handle, title: "\(title) › describe", columns: stats.columns,
                                                            total: stats.rows.count),
                              estimates: summary.estimates)
    }

    /// Runs a read-only query (PROTOCOL.md 11.14) and answers its result, held in memory, as a
    /// new table.
    public func query(_ request: QueryRequest, cancel: CancellationFlag) throws -> TableDescription {
        lock.lock(); let file = self.file; lock.unlock()
        guard let file else { throw RPCError.unknown(table: "root") }
        let notifier = currentNotifier()
        let watch = QueryGuard(cancel: cancel, seconds: querySeconds) { seconds in
            notifier?.progress(done: seconds.rounded(), total: nil, message: "running the query (\(Int(seconds)) s)")
        }
        let result: MemoryTable
        do {
            result = try ReadOnlyQuery.run(path: file.path, sql: request.sql, watch: watch)
        } catch let error as QueryTimeout {
            throw RPCError(code: RPCError.internalError, message: "\(error)")
        } catch let error as DatabaseError {
            throw RPCError.badParams(SchemaReader.describe(error), path: "params.sql")
        }
        let handle = install(.memory(result))
        let title = request.sql.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        PluginLog.info("query: \(result.rows.count) rows as \(handle)")
        return TableDescription(table: handle, title: String(title.prefix(120)), columns: result.columns, total: result.rows.count)
    }

    /// Keeps a new table under a new handle.
    private func install(_ opened: Opened) -> String {
        lock.lock(); defer { lock.unlock() }
        let handle = "t\(nextHandle)"
        nextHandle += 1
        tables[handle] = opened
        return handle
    }

    // MARK: cell

    public func cell(table handle: String, row: String, column: String, cancel: CancellationFlag) throws -> String {
        let (_, opened) = try lookup(handle)
        guard case .table(let table) = opened else { throw RPCError.unsupported("the catalog's cells are never cut") }
        do {
            return try table.wholeText(row: row, column: column)
        } catch let error as DatabaseError {
            throw RPCError(code: RPCError.internalError, message: "\(table.name): \(SchemaReader.describe(error))")
        }
    }

    // MARK: children, close

    public func children(table handle: String, row: String) throws -> TableDescription {
        let (file, opened) = try lookup(handle)
        guard case .catalog = opened else { throw RPCError.unsupported("the rows of a table have no children") }
        let table = try file.table(named: row)
        table.requestCount(filter: nil, urgent: true)
        let total = file.waitForCount(table: row, timeout: 0.3)
        lock.lock()
        let child = "t\(nextHandle)"
        nextHandle += 1
        tables[child] = .table(table)
        lock.unlock()
        return TableDescription(table: child, title: row, columns: table.columnSpecs, total: total,
                                sqlNames: [SQLNames.identifier(row)])
    }

    public func close(table handle: String) {
        lock.lock()
        if handle != "root" { tables[handle] = nil; lastFilter[handle] = nil }
        lock.unlock()
    }

    // MARK: Notifications

    /// After a background count: update the catalog (batched: at most 4 invalidations a
    /// second, and one when the counter is idle) and give open tables of that name their total.
    private func counted(_ name: String, _ filter: String?, _ count: Int?, _ idle: Bool) {
        lock.lock()
        let notifier = self.notifier
        var catalogRows: [String] = []
        let rootIsCatalog: Bool = if case .catalog? = tables["root"] { true } else { false }
        if filter == nil && count != nil && rootIsCatalog { countedNames.insert(name) }
        if !countedNames.isEmpty && (idle || Date().timeIntervalSince(lastCatalogFlush) >= 0.25) {
            catalogRows = countedNames.sorted()
            countedNames = []
            lastCatalogFlush = Date()
        }
        var handles: [String] = []
        for (handle, opened) in tables {
            if case .table(let t) = opened, t.name == name, lastFilter[handle] == filter { handles.append(handle) }
        }
        lock.unlock()
        if !catalogRows.isEmpty { notifier?.invalidate(table: "root", rows: catalogRows) }
        if let count { for handle in handles.sorted() { notifier?.invalidate(table: handle, total: count) } }
    }

    /// Another process changed the database: every open table may show stale rows.
    private func databaseChanged() {
        lock.lock()
        let handles = tables.keys.sorted(), notifier = self.notifier
        lock.unlock()
        PluginLog.info("the database changed; refreshing \(handles.count) tables")
        for handle in handles { notifier?.invalidate(table: handle) }
    }

    private func lookup(_ handle: String) throws -> (DatabaseFile, Opened) {
        lock.lock(); defer { lock.unlock() }
        guard let file, let opened = tables[handle] else { throw RPCError.unknown(table: handle) }
        return (file, opened)
    }

    private func currentNotifier() -> Notifier? { lock.lock(); defer { lock.unlock() }; return notifier }
}
