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
        let (table, progress) = try load(how)
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

        var columns = table.columns.map { c -> ColumnSpec in
            let w = c.widthHints
            return ColumnSpec(id: c.id, title: c.name, type: Self.columnType(c.type),
                              width: .flexible(min: w.min, ideal: w.ideal, max: w.max), decimals: c.decimals)
        }
        if columns.isEmpty { columns = [ColumnSpec(id: "empty", title: "(empty file)", type: .text, sortable: false)] }
        return TableDescription(table: handle, title: title, columns: columns, total: total)
    }

    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        let table = try self.table(request.table)
        let keys = try Self.sortKeys(request.sort, table)
        if table.columns.isEmpty { return request.result([], total: 0) }
        // A reply must fit the protocol's 4 MiB line: no page needs more than this many rows.
        let limit = min(request.limit, Self.maxPageRows)
        let page = try table.page(offset: request.offset, limit: limit, sort: keys, filter: request.filter,
                                  isCancelled: { cancel.isCancelled })
        let rows = zip(page.rows, table.values(rows: page.rows)).map { row, values in
            Row(id: String(row + 1), cells: values.map(Self.json))
        }
        return request.result(rows, total: page.total)
    }

    /// `locate`: row ids are 1-based line numbers (`rows` makes them so); the first one in the
    /// order and filter, by one scan of the cached order.
    func locate(_ request: LocateRequest, cancel: CancellationFlag) throws -> LocateResult {
        let table = try self.table(request.table)
        let keys = try Self.sortKeys(request.sort, table)
        for id in request.rows {
            guard let n = Int(id), n >= 1, !table.columns.isEmpty else { continue }
            if let at = try table.position(ofRow: n - 1, sort: keys, filter: request.filter, isCancelled: { cancel.isCancelled }) {
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

    func close(table handle: String) {
        lock.lock()
        let table = tables.removeValue(forKey: handle)
        hows[handle] = nil
        lock.unlock()
        table?.close()
    }

    /// The table of `handle`, read again first when its file changed on disk since: with the
    /// same columns the host is told the new count (`invalidate`) and the request goes on;
    /// with other columns the request fails saying so (the tab must be opened again).
    private func table(_ handle: String) throws -> CSVTable {
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

    private var notifierNow: Notifier? {
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
