import CSVTable
import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// The data source of `tabdeck-csv`: one ``CSVTable`` per opened file.
///
/// Open args: `{"path": "people.csv", "delimiter": ","}` (delimiter optional: sniffed from the
/// header line; `"\t"` or `"tab"` for tabs). A relative path is relative to the working
/// directory (the host starts plugins in the config file's folder).
///
/// Big files are indexed on a background thread: `open` returns once the first 65,536 rows
/// are indexed, with `total` null; unsorted pages within the indexed rows are served at once;
/// `progress` notifications follow, and when indexing ends an `invalidate` carries the total.
final class CSVSource: TableDataSource, @unchecked Sendable {
    let capabilities: PluginCapabilities = {
        var c = PluginCapabilities(sort: true, multiSort: true, filter: true)
        c.locate = true
        c.where = true
        c.aggregate = true
        c.describe = true
        c.find = true
        return c
    }()

    private let lock = NSLock()
    private var tables: [String: CSVTable] = [:]
    /// How each table was opened, to read it again when its file changes.
    private var hows: [String: HowOpened] = [:]

    /// The args a table was opened with.
    struct HowOpened {
        var path: String
        var delimiter: UInt8?
        var types: [String: CSVTypeChoice]
        var title: String { (path as NSString).lastPathComponent }
    }
    private var opened = 0
    /// The tables of groups of `aggregate` (handles `agg1`, `agg2`...), until closed.
    private var counts: [String: CountTable] = [:]
    private var aggregated = 0
    /// The tables of statistics of `describe` (handles `desc1`, `desc2`...), until closed.
    private var described: [String: MemoryTable] = [:]
    private var describedCount = 0
    private var notifier: Notifier?

    func attach(_ notifier: Notifier) {
        lock.lock(); self.notifier = notifier; lock.unlock()
    }

    func open(args: JSONValue) throws -> TableDescription {
        let r = try JSONReader(args, path: "params.args")
        let path = try r.string("path")
        var delimiter: UInt8?
        if let d = try r.optionalString("delimiter") {
            do { delimiter = try CSVDialect.delimiter(from: d) } catch {
                throw RPCError.badParams("params.args.delimiter: \(error.message)", path: "params.args.delimiter")
            }
        }
        var types: [String: CSVTypeChoice] = [:]
        if let given = try r.optionalObject("types") {
            for key in given.object.keys {
                let name = try given.string(key)
                guard let choice = CSVTypeChoice(name) else {
                    throw RPCError.badParams("\(given.pathOf(key)): \"\(name)\" is not a column type (one of \(CSVTypeChoice.names.keys.sorted().joined(separator: ", ")))",
                                             path: given.pathOf(key))
                }
                types[key] = choice
            }
        }
        let how = HowOpened(path: path, delimiter: delimiter, types: types)
        let (table, progress) = try PhaseLog.measure("open") { try load(how) }
        // The first table is "root", later ones "t2", "t3"... (failed opens use no handle).
        lock.lock()
        opened += 1
        let handle = opened == 1 ? "root" : "t\(opened)"
        tables[handle] = table
        hows[handle] = how
        lock.unlock()
        let total = progress.opened(table: handle, rowCount: { table.rowCount })
        PluginLog.info("opened \(path): \(table.columns.count) columns, \(total.map(String.init) ?? "indexing") rows")
        let title = how.title
        return TableDescription(table: handle, title: title, columns: Self.columnSpecs(table), total: total)
    }

    /// The columns of a table as described to the host.
    static func columnSpecs(_ table: CSVTable) -> [ColumnSpec] {
        let columns = table.columns.map { c -> ColumnSpec in
            let w = c.widthHints
            return ColumnSpec(id: c.id, title: c.name, type: Self.columnType(c.type),
                              width: .flexible(min: w.min, ideal: w.ideal, max: w.max), decimals: c.decimals)
        }
        return columns.isEmpty ? [ColumnSpec(id: "empty", title: "(empty file)", type: .text, sortable: false)] : columns
    }

    /// A `where` clause as the engine's conditions, checked first (`-32602` naming
    /// `params.where[i].value`, as ``Where/check(_:columns:path:)`` says).
    static func conditions(_ clause: WhereClause, _ table: CSVTable) throws -> [CSVCondition] {
        try Where.check(clause, columns: columnSpecs(table))
        if table.columns.isEmpty { return [] }
        return clause.map { c in
            let j = table.columns.firstIndex { $0.id == c.column }!
            let type = table.columns[j].type
            let op: CSVWhereOp
            switch c.op {
            case .equal: op = .equal
            case .notEqual: op = .notEqual
            case .less: op = .less
            case .lessOrEqual: op = .lessOrEqual
            case .greater: op = .greater
            case .greaterOrEqual: op = .greaterOrEqual
            case .between: op = .between
            case .in: op = .oneOf
            case .null: op = .null
            case .notNull: op = .notNull
            }
            return CSVCondition(column: j, op: op, values: c.values.map { whereValue($0, type) })
        }
    }

    /// A checked `where` value as the engine compares it with cells of `type`.
    static func whereValue(_ v: JSONValue, _ type: CSVColumnType) -> CSVWhereValue {
        switch (v, type) {
        case (.int(let i), _): return .number(CSVNumber(String(i))!)
        case (.double(let d), _):
            // A JSON double by its shortest text (the decimal it is written as).
            let text = d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
            return .number(CSVNumber(text) ?? CSVNumber("NaN")!)
        case (.string(let s), .integer), (.string(let s), .decimal): return .number(CSVNumber(s) ?? CSVNumber("NaN")!)
        case (.string(let s), .date): return .date(ISODateTime(s)?.millis ?? 0)
        case (.string(let s), _): return .text(s)
        case (.bool(let b), _): return .bool(b)
        default: return .text("")  // Where.check refuses the others
        }
    }

    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        if let counts = countTable(request.table) { return try counts.page(request) }
        if let stats = describedTable(request.table) { return try stats.page(request) }
        let table = try self.table(request.table)
        let keys = try Self.sortKeys(request.sort, table)
        let conditions = try Self.conditions(request.where, table)
        if table.columns.isEmpty { return request.result([], total: 0) }
        // A reply must fit the protocol's 4 MiB line: no page needs more than this many rows.
        let limit = min(request.limit, Self.maxPageRows)
        let page = try PhaseLog.measure("rows", extra: ["sorted": keys.count]) {
            try table.page(offset: request.offset, limit: limit, sort: keys, filter: request.filter,
                           where: conditions, isCancelled: { cancel.isCancelled })
        }
        let rows = PhaseLog.measure("answer", extra: ["rows": page.rows.count]) {
            zip(page.rows, table.values(rows: page.rows)).map { row, values in
                Row(id: String(row + 1), cells: values.map(Self.json))
            }
        }
        return request.result(rows, total: page.total)
    }

    /// `locate`: row ids are 1-based line numbers (`rows` makes them so); the first one in the
    /// order and filter, by one scan of the cached order.
    func locate(_ request: LocateRequest, cancel: CancellationFlag) throws -> LocateResult {
        if let counts = countTable(request.table) {
            // Rows of a table of groups are `g` and their place in the natural order.
            let order = try counts.order(sort: request.sort, filter: request.filter, clause: request.where)
            for id in request.rows {
                guard id.hasPrefix("g"), let n = Int(id.dropFirst()), let at = order.firstIndex(of: n) else { continue }
                return LocateResult(row: id, offset: at)
            }
            return LocateResult(row: nil, offset: nil)
        }
        if let stats = describedTable(request.table) {
            // Rows of a table of statistics are the column ids; their place in the order.
            let order = try stats.order(sort: request.sort, filter: request.filter, clause: request.where)
            for id in request.rows {
                guard let n = stats.rows.firstIndex(where: { $0.id == id }), let at = order.firstIndex(of: n) else { continue }
                return LocateResult(row: id, offset: at)
            }
            return LocateResult(row: nil, offset: nil)
        }
        let table = try self.table(request.table)
        let keys = try Self.sortKeys(request.sort, table)
        let conditions = try Self.conditions(request.where, table)
        for id in request.rows {
            guard let n = Int(id), n >= 1, !table.columns.isEmpty else { continue }
            if let at = try table.position(ofRow: n - 1, sort: keys, filter: request.filter, where: conditions,
                                           isCancelled: { cancel.isCancelled }) {
                return LocateResult(row: id, offset: at)
            }
        }
        return LocateResult(row: nil, offset: nil)
    }

    static func sortKeys(_ sort: [SortKey], _ table: CSVTable) throws -> [CSVSortKey] {
        var keys: [CSVSortKey] = []
        for (i, key) in sort.enumerated() {
            guard let column = table.columns.firstIndex(where: { $0.id == key.column }) else {
                throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
            }
            keys.append(CSVSortKey(column: column, descending: key.direction == .descending))
        }
        return keys
    }

    // MARK: aggregate

    /// `aggregate`: the groups counted by the engine in one pass over the file (both cores),
    /// cut into bins by the protocol's rule, served from memory by a ``CountTable`` under a new
    /// handle until `close`.
    func aggregate(_ request: AggregateRequest, cancel: CancellationFlag) throws -> AggregateResult {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        let columns: [ColumnSpec], groups: [Group], title: String
        var engineSizes: [String: BinSize] = [:], binsDone = false
        var progress: RequestProgress?
        defer { progress?.stop() }
        if let counts = countTable(request.table) {
            // The groups of a table of groups (as the SQLite plugin does).
            columns = counts.columns
            let indexes = try GroupBins.check(request, columns: columns)
            let kept = try counts.order(sort: [], filter: filter, clause: request.where)
            groups = GroupBins.count(kept.map { counts.rows[$0].cells }, indexes: indexes)
            title = "groups"
        } else {
            let table = try self.table(request.table)
            columns = Self.columnSpecs(table)
            let indexes = try GroupBins.check(request, columns: columns)
            let conditions = try Self.conditions(request.where, table)
            lock.lock(); title = hows[request.table]?.title ?? request.table; lock.unlock()
            if table.columns.isEmpty {
                groups = []
            } else {
                let reporter = RequestProgress(message: "counting \(title) by \(request.group.map(\.column).joined(separator: ", "))",
                                               notifier: notifierNow)
                // Heard at least every 0.5 s in every phase (the index, the scans, the merge):
                // no count is stopped by the host's request deadline for being long.
                reporter.start()
                progress = reporter
                let found: [CSVGroup]
                do {
                    // Bins counted in the scan: no group per distinct value of a binned column.
                    let sizes: [Int: BinSize]
                    (found, sizes) = try table.binnedGroups(columns: indexes, bins: request.group.map(\.bins), filter: filter,
                                                            where: conditions, isCancelled: { cancel.isCancelled },
                                                            progress: { done, all in reporter.report(done, all) })
                    for (g, size) in sizes { engineSizes[request.group[g].column] = size }
                    binsDone = true
                } catch let error as CSVTooManyGroups {
                    throw RPCError(code: RPCError.internalError, message: "\(title): \(error): use bins or other columns")
                }
                groups = found.map { Group(cells: $0.values.map(Self.json), count: $0.count) }
            }
        }
        let groupColumns = request.group.map { g in columns.first { $0.id == g.column }! }
        progress?.phase("\(title): \(groups.count) groups")
        let (binned, sizes) = binsDone ? (groups, engineSizes) : Self.bin(groups, columns: groupColumns, bins: request.group.map(\.bins))
        let counts = try CountTable(groupColumns: groupColumns, groups: binned)
        lock.lock()
        aggregated += 1
        let handle = "agg\(aggregated)"
        self.counts[handle] = counts
        lock.unlock()
        let names = groupColumns.map { $0.title ?? $0.id }.joined(separator: ", ")
        PluginLog.info("\(title): \(counts.rows.count) groups of \(counts.counted) rows by \(names) as \(handle)")
        return counts.description(handle: handle, title: "\(title) › \(names)", sizes: sizes)
    }

    /// ``GroupBins/apply(_:columns:bins:)``, with number columns cut straight from their
    /// doubles (what it computes through exact decimals, without writing out a decimal per
    /// group: a column of money has as many groups as rows).
    static func bin(_ groups: [Group], columns: [ColumnSpec], bins: [Int?]) -> (groups: [Group], sizes: [String: BinSize]) {
        var groups = groups
        var sizes: [String: BinSize] = [:]
        var rest = bins
        for (k, binCount) in bins.enumerated() {
            guard let binCount, columns[k].type == .integer || columns[k].type == .decimal else { continue }
            rest[k] = nil
            func number(_ cell: JSONValue) -> Double? {
                switch cell {
                case .int(let i): Double(i)
                case .double(let d) where d.isFinite: d == 0 ? 0 : d
                default: nil
                }
            }
            var distinct = Set<Double>()
            for g in groups { if let d = number(g.cells[k]) { distinct.insert(d) } }
            guard distinct.count > binCount, let lo = distinct.min(), let hi = distinct.max() else { continue }
            let integer = columns[k].type == .integer
            let width = Bins.width(min: lo, max: hi, count: binCount, integer: integer)
            sizes[columns[k].id] = .width(Bins.text(width))
            for i in groups.indices {
                guard let d = number(groups[i].cells[k]) else { continue }
                let start = Bins.start(d, width: width)
                groups[i].cells[k] = integer && abs(start) < 9e18 ? .int(Int64(start)) : .string(Bins.text(start))
            }
        }
        if !sizes.isEmpty { groups = GroupBins.merge(groups) }
        let (dated, dateSizes) = GroupBins.apply(groups, columns: columns, bins: rest)
        return (dated, sizes.merging(dateSizes) { a, _ in a })
    }

    // MARK: describe

    /// Rows fed to the statistics per read of the file.
    static let describeBatch = 8192

    /// `describe` (PROTOCOL.md 11.13): the rows the filters keep, read in batches and fed to the
    /// kit's ``TableSummary`` (bounded memory, exact under its caps), served from memory under
    /// a new handle until `close`.
    func describe(_ request: DescribeRequest, cancel: CancellationFlag) throws -> DescribeResult {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        var summary: TableSummary, title: String, columns: [ColumnSpec]
        let rows: [Row], estimates: [String]
        if let counts = countTable(request.table) {
            columns = counts.columns
            summary = TableSummary(columns: columns)
            for i in try counts.order(sort: [], filter: filter, clause: request.where) { summary.add(counts.rows[i].cells) }
            title = "groups"
            (rows, estimates) = (summary.rows, summary.estimates)
        } else if let stats = describedTable(request.table) {
            columns = stats.columns
            summary = TableSummary(columns: columns)
            for cells in try stats.cells(filter: filter, clause: request.where) { summary.add(cells) }
            title = "describe"
            (rows, estimates) = (summary.rows, summary.estimates)
        } else {
            let table = try self.table(request.table)
            columns = Self.columnSpecs(table)
            let conditions = try Self.conditions(request.where, table)
            lock.lock(); title = hows[request.table]?.title ?? request.table; lock.unlock()
            if table.columns.isEmpty {
                summary = TableSummary(columns: columns)
                (rows, estimates) = (summary.rows, summary.estimates)
            } else {
                (rows, estimates) = try Self.describeTyped(table, columns: columns, filter: filter, where: conditions,
                                                           title: title, notifier: notifierNow, cancel: cancel)
            }
        }
        let stats = MemoryTable(columns: DescribeRequest.columns, rows: rows)
        lock.lock()
        describedCount += 1
        let handle = "desc\(describedCount)"
        described[handle] = stats
        lock.unlock()
        PluginLog.info("\(title): described \(columns.count) columns as \(handle)")
        return DescribeResult(description: TableDescription(table: handle, title: "\(title) › describe", columns: stats.columns,
                                                            total: stats.rows.count),
                              estimates: estimates)
    }

    /// The describe rows of a file's columns from the engine's typed scan (one parallel pass,
    /// numbers sorted: exact statistics, written by the kit's ``ColumnSummary/row(spec:_:)``).
    /// A typed column with cells that are not of its type (served as text) is described from
    /// its served cells by the kit's ``ColumnSummary`` instead, in a second pass.
    static func describeTyped(_ table: CSVTable, columns: [ColumnSpec], filter: String?, where conditions: [CSVCondition],
                              title: String, notifier: Notifier?, cancel: CancellationFlag) throws -> (rows: [Row], estimates: [String]) {
        let isCancelled = { cancel.isCancelled }
        let reporter = RequestProgress(message: "describing \(title)", notifier: notifier)
        // Heard at least every 0.5 s in every phase (the index, the scan, the statistics).
        reporter.start()
        defer { reporter.stop() }
        let stats = try table.describe(filter: filter, where: conditions, textLimit: ColumnSummary.Limits.standard.distinct,
                                       isCancelled: isCancelled, progress: { done, all in reporter.report(done, all) })
        var flagged = Set<String>()
        var rows = zip(columns, stats).map { spec, s in ColumnSummary.row(spec: spec, statistics(s)) }
        for s in stats where s.distinctEstimated { flagged.formUnion(["distinct", "top", "topCount"]) }
        let mixed = stats.indices.filter { stats[$0].invalid > 0 }
        if !mixed.isEmpty {
            var summaries = mixed.map { ColumnSummary(spec: columns[$0]) }
            let kept: [Int]
            if filter == nil && conditions.isEmpty {
                kept = Array(0..<(try table.waitUntilIndexed(isCancelled: isCancelled)))
            } else {
                kept = try table.page(offset: 0, limit: Int.max, filter: filter, where: conditions, isCancelled: isCancelled).rows
            }
            var done = 0
            while done < kept.count {
                try cancel.check()
                let batch = Array(kept[done..<min(kept.count, done + describeBatch)])
                for values in table.values(rows: batch) {
                    for (i, k) in mixed.enumerated() { summaries[i].add(json(values[k])) }
                }
                done += batch.count
            }
            for (i, k) in mixed.enumerated() {
                rows[k] = summaries[i].row()
                flagged.formUnion(summaries[i].estimates)
            }
        }
        return (rows, DescribeRequest.columns.map(\.id).filter(flagged.contains))
    }

    /// The engine's statistics of a column as the kit writes them.
    static func statistics(_ s: CSVColumnStats) -> ColumnSummary.Statistics {
        var out = ColumnSummary.Statistics()
        out.count = s.count; out.nulls = s.nulls; out.distinct = s.distinct
        out.min = s.min.map(json); out.max = s.max.map(json); out.top = s.top.map(json); out.topCount = s.topCount
        out.sorted = s.sorted; out.seen = s.sorted.count
        out.dateOnly = s.dateOnly
        return out
    }

    /// The title of an opened table (its file's name), or its handle.
    func title(of handle: String) -> String {
        lock.lock(); defer { lock.unlock() }
        return hows[handle]?.title ?? handle
    }

    func describedTable(_ handle: String) -> MemoryTable? {
        lock.lock(); defer { lock.unlock() }
        return described[handle]
    }

    func countTable(_ handle: String) -> CountTable? {
        lock.lock(); defer { lock.unlock() }
        return counts[handle]
    }

    func close(table handle: String) {
        lock.lock()
        counts[handle] = nil
        described[handle] = nil
        let table = tables.removeValue(forKey: handle)
        hows[handle] = nil
        lock.unlock()
        table?.close()
    }

    /// The table of `handle`, read again first when its file changed on disk since: with the
    /// same columns the host is told the new count (`invalidate`) and the request goes on;
    /// with other columns the request fails saying so (the tab must be opened again).
    func table(_ handle: String) throws -> CSVTable {
        lock.lock()
        guard let table = tables[handle], let how = hows[handle] else { lock.unlock(); throw RPCError.unknown(table: handle) }
        lock.unlock()
        guard let change = table.changedOnDisk() else { return table }
        let fresh: CSVTable, progress: IndexProgress
        do { (fresh, progress) = try load(how) } catch {
            throw RPCError(code: RPCError.internalError, message: "\(how.title) changed on disk (\(change)) and cannot be read again: \(error)")
        }
        guard fresh.columns.map(\.id) == table.columns.map(\.id), fresh.columns.map(\.type) == table.columns.map(\.type) else {
            fresh.close()
            throw RPCError(code: RPCError.internalError,
                           message: "\(how.title) changed on disk (\(change)) and its columns are not the same: open the tab again")
        }
        lock.lock()
        let current = tables[handle]
        if current === table { tables[handle] = fresh }
        lock.unlock()
        guard current === table else { fresh.close(); return current ?? fresh }  // another request read it again first
        table.close()
        PluginLog.info("\(how.path) changed on disk (\(change)): read again")
        notifierNow?.status("\(how.title) changed on disk (\(change)) and was read again")
        // A count still being indexed comes with the end of its progress, as at open.
        notifierNow?.invalidate(table: handle, total: progress.opened(table: handle, rowCount: { fresh.rowCount }))
        return fresh
    }

    /// Opens the file as `how` says (indexing in the background, reported by the progress).
    private func load(_ how: HowOpened) throws -> (CSVTable, IndexProgress) {
        let progress = IndexProgress(title: how.title, notifier: notifierNow)
        do {
            return (try CSVTable(path: how.path, options: .init(delimiter: how.delimiter, background: true,
                                                               progress: { done, all, rows in progress.report(done, all, rows) },
                                                               sortIndex: Self.sortIndex, types: how.types)), progress)
        } catch {
            throw RPCError(code: RPCError.invalidParams, message: "cannot open \(how.path): \(Self.reason(error, path: how.path))",
                           data: ["path": "params.args.path", "file": .string(how.path)])
        }
    }

    var notifierNow: Notifier? {
        lock.lock(); defer { lock.unlock() }
        return notifier
    }

    static let maxPageRows = 50_000

    /// Where sort orders persist across runs (`$TABDECK_CACHE_DIR/csv-sort`), if anywhere.
    static let sortIndex = SortIndexStore.fromEnvironment()

    static func json(_ value: CSVValue) -> JSONValue {
        switch value {
        case .null: .null
        case .text(let s): .string(s)
        case .integer(let i): .int(i)
        case .decimal(let d): .double(d)
        case .bool(let b): .bool(b)
        }
    }

    static func columnType(_ type: CSVColumnType) -> ColumnType {
        switch type {
        case .text: .text
        case .integer: .integer
        case .decimal: .decimal
        case .bool: .bool
        case .date: .date
        }
    }

    static func reason(_ error: Error, path: String) -> String {
        let text = "\(error)"
        let prefix = "cannot open \(path): "
        return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
    }
}

/// Turns the indexer's progress into `progress` notifications (at most ~10 a second) and,
/// when indexing ends after `open` returned, an `invalidate` with the final total.
final class IndexProgress: @unchecked Sendable {
    let title: String
    let notifier: Notifier?
    private let lock = NSLock()
    private var table = ""
    private var isOpen = false
    private var done = false
    private var lastSent = 0.0

    init(title: String, notifier: Notifier?) {
        self.title = title; self.notifier = notifier
    }

    /// Called by `open` once the table exists, with its row count (nil while indexing).
    /// Returns the total for the description; if nil, `report` will send the invalidate.
    /// The count is read under the lock: a final report that came before is then seen in it.
    func opened(table: String, rowCount: () -> Int?) -> Int? {
        lock.lock(); defer { lock.unlock() }
        self.table = table
        isOpen = true
        let count = rowCount()
        if count != nil { done = true }
        return count
    }

    func report(_ bytesDone: Int, _ bytesTotal: Int, _ rows: Int) {
        let final = bytesDone >= bytesTotal
        lock.lock()
        guard isOpen, !done else { lock.unlock(); return }
        let now = Date().timeIntervalSince1970
        if !final && now - lastSent < 0.1 { lock.unlock(); return }
        lastSent = now
        if final { done = true }
        let table = self.table
        lock.unlock()
        // The total before the final progress: a host waiting for the count while progress is
        // shown (`page last`) has it when the progress ends.
        // `rows: []`: no row changed (rows are served only once indexed), so the host keeps its
        // pages and only learns the count.
        if final { notifier?.invalidate(table: table, rows: [], total: rows) }
        notifier?.progress(done: Double(bytesDone), total: Double(bytesTotal), message: "indexing \(title): \(rows) rows")
    }
}
