import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// A table or view opened for browsing: every page sorted, filtered and limited by the server.
///
/// The order is made total with the primary key (or `ctid` for a table without one) after the
/// user's keys. Pages are read by keyset: from the key of the row before the page, remembered
/// from the page before (``PGAnchors``). A jump reads only the keys of the rows it skips, from
/// the nearest remembered key. Views have neither key nor ctid: they page by OFFSET.
public final class PGTable: @unchecked Sendable {
    public let schema: String
    public let name: String
    public let columns: [PGColumn]
    /// The primary-key columns (empty without one).
    public let primaryKey: [PGColumn]
    /// True for a view (no ctid: OFFSET paging, no delete).
    public let isView: Bool
    /// The planner's row estimate (`reltuples`), nil when never analyzed.
    public let estimate: Int?
    let connection: PGConnection
    let anchors = PGAnchors()

    init(connection: PGConnection, schema: String, name: String, columns: [PGColumn], primaryKey: [PGColumn],
         isView: Bool, estimate: Int?) {
        self.connection = connection; self.schema = schema; self.name = name; self.columns = columns
        self.primaryKey = primaryKey; self.isView = isView; self.estimate = estimate
    }

    /// Reads the columns, primary key, kind and estimate of `schema.name`.
    static func open(_ connection: PGConnection, schema: String, name: String) throws -> PGTable {
        let rel = try connection.query("""
            SELECT c.oid::text, c.relkind::text, c.reltuples::bigint::text FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2
            """, [schema, name])
        guard let r = rel.first, let oid = r[0] else {
            throw RPCError.badParams("params.args.table: no table or view \"\(schema).\(name)\"", path: "params.args.table")
        }
        let cols = try connection.query("""
            SELECT attname::text, format_type(atttypid, atttypmod), attnotnull::text FROM pg_attribute
            WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped ORDER BY attnum
            """, [oid])
        let columns = cols.map { PGColumn(name: $0[0] ?? "", sqlType: $0[1] ?? "text", notNull: $0[2] == "true") }
        let pk = try connection.query("""
            SELECT a.attname::text FROM pg_index i JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord) ON true
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indrelid = $1::oid AND i.indisprimary ORDER BY k.ord
            """, [oid])
        let keyNames = pk.compactMap { $0[0] }
        let kind = r[1] ?? "r"
        let estimate = (r[2].flatMap { Int($0) }).flatMap { $0 >= 0 ? $0 : nil }
        return PGTable(connection: connection, schema: schema, name: name, columns: columns,
                       primaryKey: keyNames.compactMap { n in columns.first { $0.name == n } },
                       isView: kind == "v" || kind == "f", estimate: estimate)
    }

    var source: String { PGSQL.qualified(schema, name) }

    /// The tie-breaker: the primary key, else `ctid`; none for a view.
    var identity: [PGOrderTerm] {
        if isView { return [] }
        if primaryKey.isEmpty { return [PGOrderTerm(expression: "ctid", castFormat: "$n::tid", descending: false, notNull: true)] }
        return primaryKey.map { PGOrderTerm(expression: $0.sortExpression, castFormat: $0.parameter(0).replacingOccurrences(of: "$0", with: "$n"),
                                            descending: false, notNull: true) }
    }

    /// The protocol columns (ids are the column names).
    public var columnSpecs: [ColumnSpec] {
        columns.map { c in
            let width: ColumnWidth? = switch c.type {
            case .integer, .decimal: .flexible(min: 4, ideal: 12, max: 24)
            case .bool: .fixed(5)
            case .date: .flexible(min: 10, ideal: 10, max: 12)
            default: nil
            }
            return ColumnSpec(id: c.name, title: c.name, type: c.type, width: width)
        }
    }

    /// The delete action, for tables with a primary key.
    public var actions: [ActionSpec] {
        var list: [ActionSpec] = []
        if !primaryKey.isEmpty && !isView {
            list.append(ActionSpec(id: "delete", title: "Delete rows", multiple: true, destructive: true))
        }
        list.append(ActionSpec(id: "stop-count", title: "Stop counting rows", multiple: true))
        return list
    }

    // MARK: Pages

    /// The rows at `offset ..< offset + limit` in the order of `sort`, keeping those with a
    /// cell containing `filter`.
    /// `exactTotal`: the exact number of matching rows when known (the last page is then read
    /// backward from the end).
    public func page(offset: Int, limit: Int, sort: [SortKey], filter: String?, exactTotal: Int? = nil,
                     cancel: CancellationFlag?) throws -> [Row] {
        let terms = try PGSQL.orderTerms(sort, columns: columns, identity: identity)
        var conditions: [String] = []
        var binds: [String?] = []
        if let filter {
            conditions.append(PGSQL.filter(columns: columns, parameter: 1))
            binds.append(PGSQL.containsPattern(filter))
        }
        let orderBy = terms.isEmpty ? "" : " ORDER BY " + terms.map(\.sql).joined(separator: ", ")
        // Aliased: ORDER BY "name" would otherwise sort by an output column of that name (its text).
        let cells = columns.enumerated().map { "\(PGSQL.quote($1.name))::text AS c\($0)" }
        let keyList = terms.enumerated().map { "(\($1.expression))::text AS k\($0)" }
        if isView {
            let all = columns.map { c in PGOrderTerm(expression: c.sortExpression, castFormat: "", descending: false, notNull: c.notNull) }
            let viewOrder = " ORDER BY " + (terms + all).map(\.sql).joined(separator: ", ")
            let sql = "SELECT \(cells.joined(separator: ", ")) FROM \(source)" + whereClause(conditions) + viewOrder
                + " LIMIT \(limit) OFFSET \(offset)"
            return try connection.query(sql, binds, cancel: cancel).enumerated().map { i, r in
                Row(id: "#\(offset + i)", cells: zip(columns, r).map { Self.cell($0.type, $1) })
            }
        }
        let order = PGAnchors.Order(sort: sort, filter: filter)
        var from = anchors.nearest(order, atOrBefore: offset)
        let gap = offset - (from?.position ?? 0)
        // Backward: from a remembered key after the page (or the table's end, when its exact
        // row count is known), in the reversed order; chosen when it skips fewer rows. This
        // makes Page Up after a jump, and the last page, keyset reads too.
        if gap > 0, let back = backwardStart(order, offset: offset, limit: limit, total: exactTotal), back.gap < gap {
            return try backwardPage(order, terms: terms, conditions: conditions, binds: binds, offset: offset,
                                    count: back.stop - offset, start: back, cancel: cancel)
        }
        if gap > 0 {
            // Skip to the row before the page reading keys only (an index-only scan where one fits).
            var c = conditions, b = binds
            if let key = from?.key { let a = PGSQL.after(terms, key, first: b.count + 1); c.append(a.sql); b += a.binds }
            let sql = "SELECT \(keyList.joined(separator: ", ")) FROM \(source)" + whereClause(c) + orderBy
                + " LIMIT 1 OFFSET \(gap - 1)"
            guard let key = try connection.query(sql, b, cancel: cancel).first else { return [] }
            anchors.remember(order, position: offset, key: key)
            from = (offset, key)
        }
        if let key = from?.key { let a = PGSQL.after(terms, key, first: binds.count + 1); conditions.append(a.sql); binds += a.binds }
        let sql = "SELECT \((keyList + cells).joined(separator: ", ")) FROM \(source)" + whereClause(conditions) + orderBy + " LIMIT \(limit)"
        let fetched = try connection.query(sql, binds, cancel: cancel)
        return rows(fetched, order: order, offset: offset, keyCount: terms.count)
    }

    /// Where a backward read of the page at `offset` would start: the nearest remembered key
    /// after the page (an anchor at position `a` holds the key of row `a - 1`), or the end of
    /// the table; `gap` is how many rows it skips, `stop` the end of the page (exclusive).
    private func backwardStart(_ order: PGAnchors.Order, offset: Int, limit: Int, total: Int?)
        -> (stop: Int, key: [String?]?, gap: Int)? {
        let stop = min(offset + limit, total ?? Int.max)
        guard stop > offset else { return nil }
        var best: (stop: Int, key: [String?]?, gap: Int)?
        if let after = anchors.nearest(order, atOrAfter: stop + 1) {
            best = (stop, after.key, after.position - 1 - stop)
        }
        if let total, best == nil || total - stop < best!.gap { best = (stop, nil, total - stop) }
        return best
    }

    /// The rows `offset ..< start.stop` read in the reversed order from `start.key` (exclusive)
    /// or from the end, skipping `start.gap` rows first (keys only), then put back in order.
    private func backwardPage(_ order: PGAnchors.Order, terms: [PGOrderTerm], conditions: [String], binds: [String?],
                              offset: Int, count: Int, start: (stop: Int, key: [String?]?, gap: Int),
                              cancel: CancellationFlag?) throws -> [Row] {
        let reversed = terms.map { t in var r = t; r.descending.toggle(); return r }
        let orderBy = " ORDER BY " + reversed.map(\.sql).joined(separator: ", ")
        let cells = columns.enumerated().map { "\(PGSQL.quote($1.name))::text AS c\($0)" }
        let keyList = terms.enumerated().map { "(\($1.expression))::text AS k\($0)" }
        var key = start.key
        if start.gap > 0 {
            var c = conditions, b = binds
            if let key { let a = PGSQL.after(reversed, key, first: b.count + 1); c.append(a.sql); b += a.binds }
            let sql = "SELECT \(keyList.joined(separator: ", ")) FROM \(source)" + whereClause(c) + orderBy
                + " LIMIT 1 OFFSET \(start.gap - 1)"
            guard let found = try connection.query(sql, b, cancel: cancel).first else { return [] }
            anchors.remember(order, position: start.stop + 1, key: found)
            key = found
        }
        var c = conditions, b = binds
        if let key { let a = PGSQL.after(reversed, key, first: b.count + 1); c.append(a.sql); b += a.binds }
        let sql = "SELECT \((keyList + cells).joined(separator: ", ")) FROM \(source)" + whereClause(c) + orderBy + " LIMIT \(count)"
        let fetched = try connection.query(sql, b, cancel: cancel)
        // Fewer rows than asked: the table shrank since it was counted; the page is what is there.
        let first = offset + count - fetched.count
        return rows(Array(fetched.reversed()), order: order, offset: first, keyCount: terms.count)
    }

    /// Rows from fetched `keys + cells`; remembers the keys of the first and the last row as
    /// anchors (a forward read continues after the last, a backward one before the first).
    private func rows(_ fetched: [[String?]], order: PGAnchors.Order, offset: Int, keyCount: Int) -> [Row] {
        if let first = fetched.first { anchors.remember(order, position: offset + 1, key: Array(first.prefix(keyCount))) }
        if let last = fetched.last { anchors.remember(order, position: offset + fetched.count, key: Array(last.prefix(keyCount))) }
        let idCount = identity.count
        return fetched.map { r in
            let key = Array(r.prefix(keyCount).suffix(idCount))
            return Row(id: Self.rowID(key), cells: zip(columns, r.dropFirst(keyCount)).map { Self.cell($0.type, $1) })
        }
    }

    private func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// A row id from the identity values: the value itself for one column, else a JSON array.
    static func rowID(_ key: [String?]) -> String {
        if key.count == 1 { return key[0] ?? "" }
        return JSONWriter.string(.array(key.map { $0.map(JSONValue.string) ?? .null }))
    }

    /// The identity values of a row id (``rowID(_:)`` reversed).
    func keyValues(_ id: String) throws -> [String?] {
        if primaryKey.count == 1 { return [id] }
        guard case .array(let items)? = try? JSONParser.parse(id), items.count == primaryKey.count else {
            throw RPCError.badParams("params.rows: \"\(id)\" is not a row id of \(name)", path: "params.rows")
        }
        return items.map { if case .string(let s) = $0 { s } else { nil } }
    }

    /// A cell from the server's text of a value.
    static func cell(_ type: ColumnType, _ text: String?) -> JSONValue {
        guard let text else { return .null }
        switch type {
        case .integer: return Int64(text).map(JSONValue.int) ?? .string(text)
        case .decimal:
            if let d = Double(text), d.isFinite { return .double(d) }
            return .string(text)
        case .bool: return .bool(text == "true")
        default: return .string(text)
        }
    }

    // MARK: Count and delete

    /// The exact number of rows matching `filter`.
    func count(filter: String?, cancel: CancellationFlag?) throws -> Int {
        var sql = "SELECT count(*)::text FROM \(source)"
        var binds: [String?] = []
        if let filter { sql += " WHERE " + PGSQL.filter(columns: columns, parameter: 1); binds.append(PGSQL.containsPattern(filter)) }
        return Int(try connection.query(sql, binds, cancel: cancel).first?[0] ?? "0") ?? 0
    }

    /// Deletes the rows with these ids (primary-key values) in one transaction-free statement each.
    func delete(ids: [String]) throws -> Int {
        guard !primaryKey.isEmpty else { throw RPCError.unsupported("\(name) has no primary key: its rows cannot be deleted") }
        var deleted = 0
        for id in ids {
            let values = try keyValues(id)
            let condition = primaryKey.enumerated().map { i, c in
                "\(PGSQL.quote(c.name)) = $\(i + 1)::\(c.sqlType)"
            }.joined(separator: " AND ")
            let r = try connection.query("WITH d AS (DELETE FROM \(source) WHERE \(condition) RETURNING 1) SELECT count(*)::text FROM d", values, retry: false)
            deleted += Int(r.first?[0] ?? "0") ?? 0
        }
        anchors.clear()
        return deleted
    }
}

/// Keyset anchors: for one sort and filter, the sort-key values (as text) of the row just
/// before a position, remembered from pages already served.
final class PGAnchors: @unchecked Sendable {
    struct Order: Hashable {
        var sort: [SortKey]
        var filter: String?
    }

    private let lock = NSLock()
    private var anchors: [Order: [Int: [String?]]] = [:]

    func nearest(_ order: Order, atOrBefore position: Int) -> (position: Int, key: [String?])? {
        lock.lock(); defer { lock.unlock() }
        guard let all = anchors[order] else { return nil }
        var best: (position: Int, key: [String?])?
        for (p, key) in all where p <= position && p > (best?.position ?? 0) { best = (p, key) }
        return best
    }

    /// The anchor at the smallest position at or after `position`.
    func nearest(_ order: Order, atOrAfter position: Int) -> (position: Int, key: [String?])? {
        lock.lock(); defer { lock.unlock() }
        guard let all = anchors[order] else { return nil }
        var best: (position: Int, key: [String?])?
        for (p, key) in all where p >= position && p < (best?.position ?? Int.max) { best = (p, key) }
        return best
    }

    func remember(_ order: Order, position: Int, key: [String?]) {
        lock.lock(); defer { lock.unlock() }
        if anchors.count > 16, anchors[order] == nil { anchors.removeAll() }
        var all = anchors[order] ?? [:]
        if all.count >= 4_096 { all.removeAll() }
        all[position] = key
        anchors[order] = all
    }

    func clear() { lock.lock(); anchors.removeAll(); lock.unlock() }
}
