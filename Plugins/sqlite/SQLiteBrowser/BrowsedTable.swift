import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// How a page was read (tests look at it; the plugin logs it at debug level).
public enum PagePlan: Hashable, Sendable {
    /// `ORDER BY … LIMIT n OFFSET k` from the start.
    case offset(Int)
    /// `WHERE (keys) > (anchor) ORDER BY … LIMIT n OFFSET skip`, from the remembered key of
    /// the row before position `anchor`.
    case keyset(anchor: Int, skip: Int)
    /// The reversed order with `OFFSET skip` counted from the end (the row count is known and
    /// the page is nearer the end than the start).
    case reverse(skip: Int)
}

/// Whether pages may use keyset anchors and the reversed order, or only OFFSET (the
/// reference the tests compare with).
public enum PagingMode: Sendable {
    case automatic
    case offsetOnly
}

/// A page of rows with the row count as known now.
public struct Page: Sendable {
    public var rows: [TabdeckProtocol.Row]
    public var total: Int?
    public var plan: PagePlan
    /// The page was cut short by size: more rows follow (PROTOCOL.md 11.3, `more`).
    public var more = false
}

/// A table or view opened for browsing: pages sorted, filtered and counted by SQLite.
///
/// Every order is made total with a unique tie-breaker after the user's keys: the rowid for
/// rowid tables, the primary key for WITHOUT ROWID tables, all columns for views. Pages are
/// read with keyset pagination when an anchor from an earlier page is near (and the
/// tie-breaker is a key), from the end in reverse when that is shorter, else with OFFSET.
public final class BrowsedTable: @unchecked Sendable {
    public let entry: CatalogEntry
    /// The columns, untyped ones typed from a sample of the data.
    public let columns: [ColumnInfo]
    /// The protocol column ids (the column names, made unique).
    public let columnIDs: [String]
    public let identity: RowIdentity
    let file: DatabaseFile
    let source: String
    /// Leading values in each fetched row before the columns (1 for the rowid).
    let lead: Int
    let selectList: String

    /// A page is cut short past this many bytes, with `more` (the host asks again for the
    /// rest), to keep replies under the 4 MiB line limit.
    static let pageBudget = 3 << 20
    /// The most rows one page returns. A longer page is served short, and then comes with the
    /// row count (a short page with an unknown count would mean "end of table").
    public static let maxPageRows = 10_000

    init(file: DatabaseFile, entry: CatalogEntry, columns: [ColumnInfo], identity: RowIdentity) {
        self.file = file
        self.entry = entry
        self.columns = columns
        self.identity = identity
        self.source = SQLText.quote(entry.name)
        var ids: [String] = []
        var seen = Set<String>()
        for c in columns {
            var id = c.name, n = 1
            while !seen.insert(id).inserted { n += 1; id = "\(c.name)_\(n)" }
            ids.append(id)
        }
        columnIDs = ids
        let names = columns.map { SQLText.quote($0.name) }
        if case .rowid(let r) = identity {
            lead = 1
            selectList = ([r] + names).joined(separator: ", ")
        } else {
            lead = 0
            selectList = names.joined(separator: ", ")
        }
    }

    public var name: String { entry.name }

    /// The protocol description of the columns.
    public var columnSpecs: [ColumnSpec] {
        zip(columns, columnIDs).map { c, id in
            let width: ColumnWidth? = switch c.type {
            case .integer, .decimal: .flexible(min: 4, ideal: 12, max: 24)
            case .bool: .fixed(5)
            case .date: .flexible(min: 10, ideal: 20, max: 30)
            default: nil
            }
            return ColumnSpec(id: id, title: c.name, type: c.type, width: width, alignment: c.type == .bool ? .center : nil,
                              order: c.order, collation: c.order == .protocol ? nil : c.collation)
        }
    }

    // MARK: Pages

    /// The rows at `offset ..< offset + limit` in the order of `sort` (column ids), keeping
    /// only rows with a text column containing `filter` (LIKE, ASCII case-insensitive) that
    /// meet every condition of `where` (PROTOCOL.md 11.11).
    public func page(offset: Int, limit: Int, sort: [SortKey] = [], filter: String? = nil, where clause: WhereClause = [],
                     watch: QueryGuard? = nil, mode: PagingMode = .automatic) throws -> Page {
        let selection = Selection(filter: filter, where: clause)
        let filter = selection.key
        let terms = try orderTerms(sort)
        let (selected, selectedArguments) = try conditions(selection)
        let asked = max(limit, 0)
        let limit = min(asked, Self.maxPageRows)
        return try file.pages.read(watch) { db in
            // The epoch is read after the connection looked for changes by other processes.
            let epoch = file.epoch.current
            let countKey = RowCounter.Key(table: name, filter: filter, epoch: epoch)
            let order = AnchorStore.Order(table: name, sort: sort, filter: filter, epoch: epoch)
            var total = file.counter.cached(countKey)
            if limit == 0 || total.map({ offset >= $0 }) == true {
                return Page(rows: [], total: total, plan: .offset(offset))
            }
            if asked > limit && total == nil {
                // The page will be cut short: the count must come with it.
                let (w, args) = try whereSQL(selection)
                let sql = "SELECT count(*) FROM \(source)" + w
                let n = try Int.fetchOne(db, sql: sql, arguments: StatementArguments(args)) ?? 0
                file.counter.remember(countKey, n)
                total = n
            }

            // Views have no key: ids count identical rows, which needs the row before the page.
            let before = (identity == .allColumns && offset > 0) ? 1 : 0
            var plan = PagePlan.offset(offset)
            var cost = offset
            var anchorKey: [DatabaseValue] = []
            if mode == .automatic {
                if identity != .allColumns, let a = file.anchors.nearest(order, atOrBefore: offset), offset - a.position <= cost {
                    plan = .keyset(anchor: a.position, skip: offset - a.position)
                    cost = offset - a.position
                    anchorKey = a.key
                }
                if let total, max(0, total - offset - limit) < cost {
                    plan = .reverse(skip: max(0, total - offset - limit))
                }
            }

            let conditions = selected, arguments = selectedArguments
            var fetched: [[DatabaseValue]]
            switch plan {
            case .offset:
                fetched = try fetch(db, conditions, arguments, terms, count: limit + before, skip: offset - before)
            case .keyset(_, let skip):
                if skip == 0, let split = Self.splitAfter(terms, anchorKey) {
                    // Rows with values before the NULLs that a descending order puts last.
                    fetched = try fetch(db, conditions + [split.values.0], arguments + split.values.1, terms, count: limit, skip: 0)
                    if fetched.count < limit {
                        fetched += try fetch(db, conditions + [split.nulls], arguments, terms, count: limit - fetched.count, skip: 0)
                    }
                } else {
                    let (sql, args) = Self.after(terms, anchorKey)
                    fetched = try fetch(db, conditions + [sql], arguments + args, terms, count: limit, skip: skip)
                }
            case .reverse(let skip):
                let end = min(offset + limit, total ?? Int.max)
                fetched = try fetch(db, conditions, arguments, terms.map(\.reversed), count: end - (offset - before), skip: skip)
                fetched.reverse()
            }
            var previous: [DatabaseValue]?
            if before == 1, !fetched.isEmpty { previous = fetched.removeFirst() }

            // A short page tells the row count: one that reached past the end from the start, or
            // from a keyset anchor (even with no row at all: the anchor was the last row).
            if total == nil, fetched.count < limit {
                switch plan {
                case .offset where !fetched.isEmpty || offset == 0, .keyset where !fetched.isEmpty, .keyset(_, 0):
                    total = offset + fetched.count
                    file.counter.remember(countKey, offset + fetched.count)
                default:
                    break
                }
            }

            let rows = try makeRows(fetched, previous: previous, offset: offset, selection: selection, terms: terms, db: db)
            if identity != .allColumns, let last = fetched.prefix(rows.count).last {
                file.anchors.remember(order, position: offset + rows.count, key: terms.map { last[$0.valueIndex] })
            }
            var page = Page(rows: rows, total: total, plan: plan)
            page.more = rows.count < fetched.count
            return page
        }
    }

    /// The whole text of one cell (`cell`, for a cell sent cut), the row found by its id.
    public func wholeText(row id: String, column: String) throws -> String {
        guard let c = columnIDs.firstIndex(of: column) else {
            throw RPCError.badParams("params.column: \(name) has no column \"\(column)\"", path: "params.column")
        }
        var condition: String
        var arguments: [DatabaseValue]
        switch identity {
        case .rowid(let r):
            guard let n = Int64(id) else { throw RPCError.badParams("params.row: \"\(id)\" is not a row id of \(name)", path: "params.row") }
            condition = "\(r) = ?"; arguments = [n.databaseValue]
        case .primaryKey(let key):
            let values = try Self.keyValues(id, count: key.count, table: name)
            condition = key.map { "\(SQLText.quote(columns[$0].name)) IS ?" }.joined(separator: " AND ")
            arguments = values
        case .allColumns:
            throw RPCError.unsupported("\(name) has no key: its rows cannot be found again by id")
        }
        let value = try file.pages.read(nil) { db in
            try DatabaseValue.fetchOne(db, sql: "SELECT \(SQLText.quote(columns[c].name)) FROM \(source) WHERE \(condition) LIMIT 1",
                                       arguments: StatementArguments(arguments))
        }
        guard let value else { throw RPCError.badParams("params.row: \(name) has no row \(id) (any more)", path: "params.row") }
        switch value.storage {
        case .null: return ""
        case .string(let s): return s
        default:
            if case .string(let s) = Cells.cell(value, type: .text) { return s }
            return ""
        }
    }

    /// The primary key values of a row id (``Cells/id(primaryKey:)`` reversed).
    static func keyValues(_ id: String, count: Int, table: String) throws -> [DatabaseValue] {
        if count == 1 && !id.hasPrefix("[") { return [Int64(id).map(\.databaseValue) ?? id.databaseValue] }
        guard case .array(let items)? = try? JSONParser.parse(id), items.count == count else {
            throw RPCError.badParams("params.row: \"\(id)\" is not a row id of \(table)", path: "params.row")
        }
        return try items.map { item throws -> DatabaseValue in
            switch item {
            case .null: return .null
            case .int(let i): return i.databaseValue
            case .double(let d): return d.databaseValue
            case .string(let s): return s.databaseValue
            default: throw RPCError.unsupported("a key of \(table) that is a blob: its rows cannot be found again by id")
            }
        }
    }

    /// Runs `SELECT … WHERE conditions ORDER BY terms LIMIT count OFFSET skip`. A long skip
    /// over a keyed table first finds the page's keys alone (SQLite then sorts and steps over
    /// narrow key records, or walks a covering index) and reads the full rows only for those.
    private func fetch(_ db: Database, _ conditions: [String], _ arguments: [DatabaseValue], _ terms: [OrderTerm],
                       count: Int, skip: Int) throws -> [[DatabaseValue]] {
        guard count > 0 else { return [] }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let orderBy = " ORDER BY " + terms.map(\.sql).joined(separator: ", ")
        let sql: String
        let keys: String? = switch identity {
        case .rowid(let r): r
        case .primaryKey(let key): key.count == 1 ? SQLText.quote(columns[key[0]].name)
            : "(" + key.map { SQLText.quote(columns[$0].name) }.joined(separator: ", ") + ")"
        case .allColumns: nil
        }
        if let keys, skip >= Self.lateLookupSkip {
            let inner = keys.hasPrefix("(") ? String(keys.dropFirst().dropLast()) : keys
            sql = "SELECT \(selectList) FROM \(source) WHERE \(keys) IN (SELECT \(inner) FROM \(source)\(whereClause)\(orderBy)"
                + " LIMIT ? OFFSET ?)" + orderBy
        } else {
            sql = "SELECT \(selectList) FROM \(source)\(whereClause)\(orderBy) LIMIT ? OFFSET ?"
        }
        var rows: [[DatabaseValue]] = []
        let cursor = try GRDB.Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments + [count.databaseValue, skip.databaseValue]))
        while let row = try cursor.next() { rows.append(Array(row.databaseValues)) }
        return rows
    }

    /// Skips from this many rows on read the keys first (see `fetch`).
    static let lateLookupSkip = 2_000

    // MARK: Counts

    /// Queues the count of the rows matching `filter` and `where` (nil and none: all rows).
    public func requestCount(filter: String?, where clause: WhereClause = [], urgent: Bool = false) {
        let selection = Selection(filter: filter, where: clause)
        guard let key = selection.key else { file.requestCount(table: name, urgent: urgent); return }
        guard let (w, args) = try? whereSQL(selection) else { return }
        file.counter.request(.init(key: .init(table: name, filter: key, epoch: file.epoch.current),
                                   sql: "SELECT count(*) FROM \(source)" + w, arguments: StatementArguments(args),
                                   seconds: entry.kind == .view ? 15 : 300), urgent: urgent)
    }

    /// The row count (of rows matching `filter`) if known.
    public func cachedCount(filter: String?, where clause: WhereClause = []) -> Int? {
        file.cachedCount(table: name, filter: Selection(filter: filter, where: clause).key)
    }
}
