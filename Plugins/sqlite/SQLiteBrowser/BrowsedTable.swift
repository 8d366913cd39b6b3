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
}

/// One key of the ORDER BY: an SQL expression, where its value is in a fetched row, its
/// direction, and whether it can be NULL.
struct OrderTerm: Hashable {
    var expression: String
    var valueIndex: Int
    var descending: Bool
    var notNull: Bool

    var reversed: OrderTerm { var t = self; t.descending.toggle(); return t }
    var sql: String { expression + (descending ? " DESC" : " ASC") }
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

    /// A page's rows and cells are cut short past this many bytes (when the total is known,
    /// so that the host asks again for the rest), to keep replies under the 4 MiB line limit.
    static let pageBudget = 3 << 20
    /// The most rows one page returns. A longer page is only served short when the row count
    /// is known (a short page with an unknown count would mean "end of table").
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
            return ColumnSpec(id: id, title: c.name, type: c.type, width: width, alignment: c.type == .bool ? .center : nil)
        }
    }

    // MARK: Pages

    /// The rows at `offset ..< offset + limit` in the order of `sort` (column ids), keeping
    /// only rows with a text column containing `filter` (LIKE, ASCII case-insensitive).
    public func page(offset: Int, limit: Int, sort: [SortKey] = [], filter: String? = nil,
                     watch: QueryGuard? = nil, mode: PagingMode = .automatic) throws -> Page {
        let filter = filter.flatMap { $0.isEmpty ? nil : $0 }
        let terms = try orderTerms(sort)
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
                var sql = "SELECT count(*) FROM \(source)", args: [DatabaseValue] = []
                if let filter { let f = filterClause(filter); sql += " WHERE " + f.0; args = f.1 }
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

            var conditions: [String] = []
            var arguments: [DatabaseValue] = []
            if let filter {
                let (sql, args) = filterClause(filter)
                conditions.append(sql); arguments += args
            }
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

            let rows = try makeRows(fetched, previous: previous, offset: offset, filter: filter, terms: terms, db: db,
                                    canShorten: total != nil)
            if identity != .allColumns, let last = fetched.prefix(rows.count).last {
                file.anchors.remember(order, position: offset + rows.count, key: terms.map { last[$0.valueIndex] })
            }
            return Page(rows: rows, total: total, plan: plan)
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

    private func makeRows(_ fetched: [[DatabaseValue]], previous: [DatabaseValue]?, offset: Int, filter: String?,
                          terms: [OrderTerm], db: Database, canShorten: Bool) throws -> [TabdeckProtocol.Row] {
        var rows: [TabdeckProtocol.Row] = []
        rows.reserveCapacity(fetched.count)
        var bytes = 0
        var duplicate = 0
        for (i, values) in fetched.enumerated() {
            let id: String
            switch identity {
            case .rowid:
                id = Cells.id(rowid: values[0])
            case .primaryKey(let key):
                id = Cells.id(primaryKey: key.map { values[lead + $0] })
            case .allColumns:
                if i == 0 {
                    if let previous, Self.same(previous, values) {
                        duplicate = try identicalRows(values, before: offset, filter: filter, terms: terms, db: db)
                    }
                } else {
                    duplicate = Self.same(fetched[i - 1], values) ? duplicate + 1 : 0
                }
                id = Cells.id(values: values, duplicate: duplicate)
            }
            var cells: [JSONValue] = []
            cells.reserveCapacity(columns.count)
            for (c, column) in columns.enumerated() {
                let cell = Cells.cell(values[lead + c], type: column.type)
                if case .string(let s) = cell { bytes += s.utf8.count + 8 } else { bytes += 12 }
                cells.append(cell)
            }
            bytes += id.utf8.count + 24
            if canShorten, bytes > Self.pageBudget, !rows.isEmpty { break }
            rows.append(TabdeckProtocol.Row(id: id, cells: cells))
        }
        return rows
    }

    /// How many rows identical to `values` come before position `offset` (they are adjacent:
    /// every column is a sort key of a view).
    private func identicalRows(_ values: [DatabaseValue], before offset: Int, filter: String?, terms: [OrderTerm],
                               db: Database) throws -> Int {
        var arguments: [DatabaseValue] = []
        var sql = "SELECT count(*) FROM (SELECT " + columns.indices.map { "\(SQLText.quote(columns[$0].name)) AS _c\($0)" }
            .joined(separator: ", ") + " FROM \(source)"
        if let filter {
            let (f, args) = filterClause(filter)
            sql += " WHERE " + f; arguments += args
        }
        sql += " ORDER BY " + terms.map(\.sql).joined(separator: ", ") + " LIMIT ?) WHERE "
        arguments.append(offset.databaseValue)
        sql += columns.indices.map { "_c\($0) IS ?" }.joined(separator: " AND ")
        arguments += values.suffix(columns.count)
        return try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
    }

    /// The same stored values (same storage classes too).
    static func same(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            switch (x.storage, y.storage) {
            case (.null, .null): continue
            case (.int64(let p), .int64(let q)) where p == q: continue
            case (.double(let p), .double(let q)) where p.bitPattern == q.bitPattern: continue
            case (.string(let p), .string(let q)) where p.utf8.elementsEqual(q.utf8): continue
            case (.blob(let p), .blob(let q)) where p == q: continue
            default: return false
            }
        }
        return true
    }

    // MARK: SQL

    /// The ORDER BY terms: the user's keys, then the unique tie-breaker.
    func orderTerms(_ sort: [SortKey]) throws -> [OrderTerm] {
        var terms: [OrderTerm] = []
        var used = Set<Int>()
        for (i, key) in sort.enumerated() {
            guard let c = columnIDs.firstIndex(of: key.column) else {
                throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
            }
            guard used.insert(c).inserted else { continue }  // a repeated key decides nothing more
            terms.append(term(c, descending: key.direction == .descending))
        }
        // The tie-breaker runs in the direction of the last key, so that an index on the key
        // columns (which ends with the rowid or the primary key) serves the whole order.
        let descending = terms.last?.descending ?? false
        switch identity {
        case .rowid(let r):
            terms.append(OrderTerm(expression: r, valueIndex: 0, descending: descending, notNull: true))
        case .primaryKey(let key):
            for c in key where !used.contains(c) { terms.append(term(c, descending: descending, notNull: true)) }
        case .allColumns:
            for c in columns.indices where !used.contains(c) { terms.append(term(c, descending: descending)) }
        }
        return terms
    }

    private func term(_ c: Int, descending: Bool, notNull: Bool = false) -> OrderTerm {
        OrderTerm(expression: SQLText.quote(columns[c].name), valueIndex: lead + c, descending: descending,
                  notNull: notNull || columns[c].notNull)
    }

    /// `(a LIKE ? ESCAPE '\' OR b LIKE ? ESCAPE '\' …)` over the text and date columns (all
    /// columns if there are none), with the arguments.
    func filterClause(_ filter: String) -> (String, [DatabaseValue]) {
        var searched = columns.filter(\.isTextual)
        if searched.isEmpty { searched = columns }
        let pattern = SQLText.likePattern(containing: filter).databaseValue
        let sql = "(" + searched.map { "\(SQLText.quote($0.name)) LIKE ? ESCAPE '\(SQLText.likeEscape)'" }
            .joined(separator: " OR ") + ")"
        return (sql, Array(repeating: pattern, count: searched.count))
    }

    /// The condition "the row comes after the row whose sort-key values are `key`" in the
    /// order of `terms`.
    ///
    /// When every key has the same direction and neither the anchor nor (for descending
    /// keys) the columns can hold NULL, it is SQLite's row-value comparison
    /// `(k1, k2, rowid) > (?, ?, ?)`, which an index can seek. Otherwise it is spelled out
    /// key by key with SQLite's NULL order (NULL first ascending, last descending):
    /// `k1 > ? OR (k1 = ? AND (k2 > ? OR (k2 = ? AND rowid > ?)))`, with a leading range on
    /// the first key when it has one.
    static func after(_ terms: [OrderTerm], _ key: [DatabaseValue]) -> (String, [DatabaseValue]) {
        precondition(terms.count == key.count && !terms.isEmpty)
        let descending = terms[0].descending
        if terms.allSatisfy({ $0.descending == descending }) && key.allSatisfy({ !$0.isNull })
            && (!descending || terms.allSatisfy(\.notNull)) {
            let op = descending ? "<" : ">"
            if terms.count == 1 { return ("\(terms[0].expression) \(op) ?", key) }
            let lhs = terms.map(\.expression).joined(separator: ", ")
            let rhs = Array(repeating: "?", count: key.count).joined(separator: ", ")
            return ("(\(lhs)) \(op) (\(rhs))", key)
        }
        var condition = ""
        var arguments: [DatabaseValue] = []
        for (t, v) in zip(terms, key).reversed() {
            let strictly = Self.strictlyAfter(t, v)
            if condition.isEmpty {
                condition = strictly?.0 ?? "0"
                arguments = strictly?.1 ?? []
                continue
            }
            let equal = v.isNull ? ("\(t.expression) IS NULL", []) : ("\(t.expression) = ?", [v])
            let tail = "(\(equal.0) AND \(condition))"
            if let strictly {
                condition = "(\(strictly.0) OR \(tail))"
                arguments = strictly.1 + equal.1 + arguments
            } else {
                condition = tail
                arguments = equal.1 + arguments
            }
        }
        // A range on the first key lets SQLite seek an index instead of scanning from the start.
        let first = terms[0], v = key[0]
        if !v.isNull && (!first.descending || first.notNull) {
            return ("\(first.expression) \(first.descending ? "<=" : ">=") ? AND \(condition)", [v] + arguments)
        }
        if v.isNull && first.descending {
            return ("\(first.expression) IS NULL AND \(condition)", arguments)
        }
        return (condition, arguments)
    }

    /// The common descending case the row-value comparison cannot take alone: every key
    /// descending, only the first can be NULL, the anchor has no NULL. The rows after the
    /// anchor are then those with `(k1, k2, …) < (anchor)` (an index range), followed by
    /// those with `k1 IS NULL` (NULLs sort last descending): two queries that both seek.
    static func splitAfter(_ terms: [OrderTerm], _ key: [DatabaseValue]) -> (values: (String, [DatabaseValue]), nulls: String)? {
        guard terms.count == key.count, let first = terms.first, !first.notNull,
              terms.allSatisfy(\.descending), terms.dropFirst().allSatisfy(\.notNull), key.allSatisfy({ !$0.isNull }) else { return nil }
        let lhs = terms.map(\.expression).joined(separator: ", ")
        let rhs = Array(repeating: "?", count: key.count).joined(separator: ", ")
        let values = terms.count == 1 ? "\(first.expression) < ?" : "(\(lhs)) < (\(rhs))"
        return ((values, key), "\(first.expression) IS NULL")
    }

    /// "Strictly after `v`" for one key, or nil when nothing is (NULL, descending: last).
    private static func strictlyAfter(_ t: OrderTerm, _ v: DatabaseValue) -> (String, [DatabaseValue])? {
        switch (t.descending, v.isNull) {
        case (false, true): ("\(t.expression) IS NOT NULL", [])
        case (false, false): ("\(t.expression) > ?", [v])
        case (true, true): nil
        case (true, false): t.notNull ? ("\(t.expression) < ?", [v]) : ("(\(t.expression) < ? OR \(t.expression) IS NULL)", [v])
        }
    }

    // MARK: Counts

    /// Queues the count of the rows matching `filter` (nil: all rows).
    public func requestCount(filter: String?, urgent: Bool = false) {
        let filter = filter.flatMap { $0.isEmpty ? nil : $0 }
        guard let filter else { file.requestCount(table: name, urgent: urgent); return }
        let (clause, args) = filterClause(filter)
        file.counter.request(.init(key: .init(table: name, filter: filter, epoch: file.epoch.current),
                                   sql: "SELECT count(*) FROM \(source) WHERE \(clause)", arguments: StatementArguments(args),
                                   seconds: entry.kind == .view ? 15 : 300), urgent: urgent)
    }

    /// The row count (of rows matching `filter`) if known.
    public func cachedCount(filter: String?) -> Int? {
        file.cachedCount(table: name, filter: filter.flatMap { $0.isEmpty ? nil : $0 })
    }
}
