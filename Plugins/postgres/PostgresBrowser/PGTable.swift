import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// A table or view opened for browsing: every page sorted, filtered and limited by the server.
///
/// The order is the server's own (``PGColumn``), made total with the relation's identity
/// (``PGIdentity``) after the user's keys. Pages are read by keyset: from the key of the row
/// before the page, remembered from the page before (``PGAnchors``), as a few index-served
/// branches (``PGSQL/after(_:_:first:)``). A jump reads only the keys of the rows it skips,
/// from the nearest remembered key. A relation without identity (a view without a declared key)
/// pages by OFFSET, its ids positions, declared unstable.
public final class PGTable: @unchecked Sendable {
    public let schema: String
    public let name: String
    public let columns: [PGColumn]
    /// Columns left out because the role may not read them.
    public let hidden: [String]
    public let identity: PGIdentity
    /// True for a view or a foreign table.
    public let isView: Bool
    /// The planner's row estimate (`reltuples`, summed over partitions), nil when never analyzed.
    public let estimate: Int?
    let connection: PGConnection
    let anchors = PGAnchors()
    let readAhead = PGReadAhead()
    /// One page query at a time per table: read-ahead waits for the page on screen instead of
    /// running beside it (a deep page of an unindexed order is a full scan).
    private let pageGate = DispatchSemaphore(value: 1)

    init(connection: PGConnection, schema: String, name: String, read: PGRelation.Read) {
        self.connection = connection; self.schema = schema; self.name = name; self.columns = read.columns
        self.hidden = read.hidden; self.identity = read.identity; self.isView = read.isView; self.estimate = read.estimate
    }

    /// Reads the columns, identity, kind and estimate of `schema.name`.
    static func open(_ connection: PGConnection, schema: String, name: String, declaredKey: [String]? = nil) throws -> PGTable {
        PGTable(connection: connection, schema: schema, name: name,
                read: try PGRelation.read(connection, schema: schema, name: name, declaredKey: declaredKey))
    }

    var source: String { PGSQL.qualified(schema, name) }

    /// The protocol columns (ids are the column names).
    public var columnSpecs: [ColumnSpec] { columns.map(\.spec) }

    /// Whether row ids name the same row under every sort.
    public var rowIDs: RowIDStability { identity == .none ? .unstable : .stable }

    /// The delete action, for relations with a primary key or unique index.
    public var actions: [ActionSpec] {
        var list: [ActionSpec] = []
        if case .key(_, let source) = identity, source != .declared, !isView {
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
    public func page(offset: Int, limit: Int, sort: [SortKey], filter: String?, where clause: WhereClause = [], exactTotal: Int? = nil,
                     cancel: CancellationFlag?) throws -> [Row] {
        switch try answer(offset: offset, limit: limit, sort: sort, filter: filter, where: clause, exactTotal: exactTotal,
                          generation: 0, written: false, cancel: cancel) {
        case .rows(let rows): return rows
        case .written: preconditionFailure("a page not asked written came written")
        }
    }

    /// A page: its rows written as JSON straight from the server's bytes (``PGRowWriter``) or
    /// made into ``Row``s.
    public enum Page {
        case rows([Row])
        case written([UInt8])
    }

    /// The page ``page(offset:limit:sort:filter:where:exactTotal:cancel:)`` reads, written as
    /// JSON where ``PGRowWriter`` can (`written`): a forward keyset read of a relation with a
    /// one-column key and no cell longer than the cut; else its rows. A written page that
    /// continues a scan reads the next pages with it (``PGReadAhead``; `generation` is the
    /// request's, so a refresh never gets pages read before it).
    public func answer(offset: Int, limit: Int, sort: [SortKey], filter: String?, where clause: WhereClause = [], exactTotal: Int? = nil,
                       generation: Int, written: Bool, cancel: CancellationFlag?) throws -> Page {
        try Where.check(clause, columns: columnSpecs)
        let terms = try PGSQL.orderTerms(sort, columns: columns, identity: identity.terms)
        let layout = PGPageLayout(terms: terms, columns: columns)
        let order = PGAnchors.Order(sort: sort, filter: filter, clause: clause)
        let scan = PGReadAhead.Scan(order: order, limit: limit, generation: generation)
        let writes = written && identity.terms.count == 1
        // The gate is held while the server works and the page's anchors are remembered; the
        // rows are made after it, while the next page's query runs.
        let fetched: (rows: [[String?]], offset: Int, written: [UInt8]?) = try gated(cancel) {
            if writes, let kept = readAhead.take(scan, offset: offset) { return ([], offset, kept.json) }
            let writer = writes
                ? PGRowWriter(kinds: columns.map(\.cellKind), layout: layout, idPosition: layout.keyPositions[layout.keyPositions.count - 1],
                              pageRows: limit)
                : nil
            let ahead = writer != nil && readAhead.continues(scan, offset: offset) ? PGReadAhead.pages : 1
            let f = try fetch(offset: offset, limit: limit, ahead: ahead, terms: terms, layout: layout, order: order,
                              selected: selection(filter: filter, where: clause), exactTotal: exactTotal, writer: writer, cancel: cancel)
            guard f.written, let writer else { return (f.rows, f.offset, nil) }
            let pages = writer.pages
            readAhead.served(scan, offset: offset, pages: pages)
            return ([], offset, pages.first?.json ?? [])
        }
        if let json = fetched.written { return .written(json) }
        return .rows(rows(fetched.rows, offset: fetched.offset, layout: layout, positional: identity == .none))
    }

    /// `body` while holding ``pageGate``, waiting for it in slices that notice `cancel`.
    private func gated<T>(_ cancel: CancellationFlag?, _ body: () throws -> T) throws -> T {
        while pageGate.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if cancel?.isCancelled == true { throw CancellationError() }
        }
        defer { pageGate.signal() }
        return try body()
    }

    /// The fetched rows (``PGPageLayout``) of the page at `offset`, and the position of the first.
    private func fetch(offset: Int, limit: Int, ahead: Int, terms: [PGOrderTerm], layout: PGPageLayout, order: PGAnchors.Order,
                       selected: (conditions: [String], binds: [String?]), exactTotal: Int?, writer: PGRowWriter?,
                       cancel: CancellationFlag?) throws -> (rows: [[String?]], offset: Int, written: Bool) {
        let conditions = selected.conditions
        var binds = selected.binds
        if identity == .none {
            // Positions: made as steady as can be by every sortable column after the user's keys.
            let all = columns.filter(\.sortable).map(PGOrderTerm.init).filter { t in !terms.contains { $0.expression == t.expression } }
            let sql = PGSQL.page(select: layout.select, source: source, conditions: conditions, branches: nil, terms: terms + all,
                                 limit: limit, offset: offset)
            return (try connection.query(sql, binds, cancel: cancel), offset, false)
        }
        let keyList = terms.map { "(\($0.expression))::text" }
        var from = anchors.nearest(order, atOrBefore: offset)
        let gap = offset - (from?.position ?? 0)
        // Backward: from a remembered key after the page (or the table's end, when its exact
        // row count is known), in the reversed order; chosen when it skips fewer rows. This
        // makes Page Up after a jump, and the last page, keyset reads too.
        if gap > 0, let back = backwardStart(order, offset: offset, limit: limit, total: exactTotal), back.gap < gap {
            let page = try backwardPage(order, terms: terms, layout: layout, conditions: conditions, binds: binds, offset: offset,
                                        count: back.stop - offset, start: back, cancel: cancel)
            return (page.rows, page.offset, false)
        }
        if gap > 0 {
            // Skip to the row before the page reading keys only (an index-only scan where one fits).
            var b = binds
            var branches: [String]?
            if let key = from?.key { let a = PGSQL.after(terms, key, first: b.count + 1); branches = a.branches; b += a.binds }
            let sql = PGSQL.page(select: keyList, source: source, conditions: conditions, branches: branches, terms: terms,
                                 limit: 1, offset: gap - 1)
            guard let key = try connection.query(sql, b, cancel: cancel).first else { return ([], offset, false) }
            anchors.remember(order, position: offset, key: key)
            from = (offset, key)
        }
        var branches: [String]?
        if let key = from?.key { let a = PGSQL.after(terms, key, first: binds.count + 1); branches = a.branches; binds += a.binds }
        let sql = PGSQL.page(select: layout.select, source: source, conditions: conditions, branches: branches, terms: terms, limit: limit)
        if let writer {
            let read = ahead > 1
                ? PGSQL.page(select: layout.select, source: source, conditions: conditions, branches: branches, terms: terms, limit: limit * ahead)
                : sql
            try connection.read(read, binds, cancel: cancel, into: writer)
            if !writer.gaveUp {
                var start = offset
                for page in writer.pages {
                    anchors.remember(order, position: start + 1, key: page.firstKey)
                    anchors.remember(order, position: start + page.count, key: page.lastKey)
                    start += page.count
                }
                return ([], offset, true)
            }
        }
        let fetched = try connection.query(sql, binds, cancel: cancel)
        remember(fetched, order: order, offset: offset, layout: layout)
        return (fetched, offset, false)
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
    private func backwardPage(_ order: PGAnchors.Order, terms: [PGOrderTerm], layout: PGPageLayout, conditions: [String],
                              binds: [String?], offset: Int, count: Int, start: (stop: Int, key: [String?]?, gap: Int),
                              cancel: CancellationFlag?) throws -> (rows: [[String?]], offset: Int) {
        let reversed = terms.map(\.reversed)
        let keyList = terms.map { "(\($0.expression))::text" }
        var key = start.key
        if start.gap > 0 {
            var b = binds
            var branches: [String]?
            if let key { let a = PGSQL.after(reversed, key, first: b.count + 1); branches = a.branches; b += a.binds }
            let sql = PGSQL.page(select: keyList, source: source, conditions: conditions, branches: branches, terms: reversed,
                                 limit: 1, offset: start.gap - 1)
            guard let found = try connection.query(sql, b, cancel: cancel).first else { return ([], offset) }
            anchors.remember(order, position: start.stop + 1, key: found)
            key = found
        }
        var b = binds
        var branches: [String]?
        if let key { let a = PGSQL.after(reversed, key, first: b.count + 1); branches = a.branches; b += a.binds }
        let sql = PGSQL.page(select: layout.select, source: source, conditions: conditions, branches: branches, terms: reversed, limit: count)
        let fetched = Array(try connection.query(sql, b, cancel: cancel).reversed())
        // Fewer rows than asked: the table shrank since it was counted; the page is what is there.
        let first = offset + count - fetched.count
        remember(fetched, order: order, offset: first, layout: layout)
        return (fetched, first)
    }

    /// Remembers the keys of a page's first and last rows as anchors (a forward read continues
    /// after the last, a backward one before the first).
    private func remember(_ fetched: [[String?]], order: PGAnchors.Order, offset: Int, layout: PGPageLayout) {
        if let first = fetched.first { anchors.remember(order, position: offset + 1, key: layout.key(first)) }
        if let last = fetched.last { anchors.remember(order, position: offset + fetched.count, key: layout.key(last)) }
    }

    /// Rows from fetched rows (``PGPageLayout``): ids from the identity's keys (the last sort
    /// terms), or positions from `offset` when the relation has none; long cells cut.
    private func rows(_ fetched: [[String?]], offset: Int, layout: PGPageLayout, positional: Bool) -> [Row] {
        let idPositions = layout.keyPositions.suffix(identity.terms.count)
        let ids = columnIDs
        let kinds = columns.map(\.cellKind)
        let width = kinds.count
        var out: [Row] = []
        out.reserveCapacity(fetched.count)
        for (i, r) in fetched.enumerated() {
            var cells: [JSONValue] = []
            cells.reserveCapacity(width)
            for j in 0..<width { cells.append(PGColumn.cell(r[layout.cellStart + j], kinds[j])) }
            let id = positional ? "#\(offset + i)" : Self.rowID(idPositions.map { r[$0] })
            var row = Row(id: id, cells: cells)
            row.cutLongCells(columns: ids)
            out.append(row)
        }
        return out
    }

    /// The column ids in cell order.
    var columnIDs: [String] { columns.map(\.name) }

    /// The whole text of one cell (`cell`, for a cell sent cut): the row found by its id.
    func wholeText(row id: String, column: String, cancel: CancellationFlag?) throws -> String {
        guard let c = columns.first(where: { $0.name == column }) else {
            throw RPCError.badParams("params.column: \(name) has no column \"\(column)\"", path: "params.column")
        }
        let terms = identity.terms
        guard !terms.isEmpty else {
            throw RPCError.unsupported("\(name) has no key: its rows cannot be found again by id")
        }
        let values = try keyValues(id, count: terms.count)
        let condition = terms.enumerated().map { i, t in "\(t.expression) = \(t.parameter(i + 1))" }.joined(separator: " AND ")
        let found = try connection.query("SELECT \(c.valueExpression) FROM \(source) WHERE \(condition) LIMIT 1", values, cancel: cancel)
        guard let first = found.first else {
            throw RPCError.badParams("params.row: \(name) has no row \(id) (any more)", path: "params.row")
        }
        return first[0] ?? ""
    }

    /// A row id from the identity values: the value itself for one column, else a JSON array.
    static func rowID(_ key: [String?]) -> String {
        if key.count == 1 { return key[0] ?? "" }
        return JSONWriter.string(.array(key.map { $0.map(JSONValue.string) ?? .null }))
    }

    /// The identity values of a row id (``rowID(_:)`` reversed).
    func keyValues(_ id: String, count: Int) throws -> [String?] {
        if count == 1 { return [id] }
        guard case .array(let items)? = try? JSONParser.parse(id), items.count == count else {
            throw RPCError.badParams("params.rows: \"\(id)\" is not a row id of \(name)", path: "params.rows")
        }
        return items.map { if case .string(let s) = $0 { s } else { nil } }
    }

    // MARK: Count and delete

    /// The groups of `aggregate` (PROTOCOL.md 11.12) under a filter and a `where`: for each
    /// binned column its statistics first (min, max, more than `bins` distinct values?), then
    /// one `GROUP BY` on the server, bins as exact numeric `floor(v / width) × width` or
    /// `date_trunc` in UTC. Long queries send progress and stop on `$/cancel` (``PGConnection``).
    func groups(_ group: [AggregateGroup], filter: String?, where clause: WhereClause,
                cancel: CancellationFlag?) throws -> (groups: [Group], sizes: [String: BinSize]) {
        try Where.check(clause, columns: columnSpecs)
        let (conditions, binds) = selection(filter: filter, where: clause)
        let picked = group.map { g in columns.first { $0.name == g.column }! }
        var expressions: [String] = [], extra: [String?] = [], sizes: [String: BinSize] = [:]
        for (g, column) in zip(group, picked) {
            guard let bins = g.bins else {
                expressions.append(column.type == .text ? "(\(column.valueExpression)) COLLATE \"C\"" : column.valueExpression)
                continue
            }
            let stats = try connection.query(PGWhere.binStatistics(column, source: source, conditions: conditions, bins: bins), binds,
                                             cancel: cancel).first ?? []
            guard stats.count == 3, let distinct = Int(stats[2] ?? "0"), distinct > bins,
                  let lo = stats[0].flatMap(Double.init), let hi = stats[1].flatMap(Double.init) else {
                expressions.append(column.valueExpression)
                continue
            }
            let size: BinSize = column.type == .date
                ? .unit(Bins.unit(minMillis: Int64(lo), maxMillis: Int64(hi), count: bins))
                : .width(Bins.text(Bins.width(min: lo, max: hi, count: bins, integer: column.type == .integer)))
            sizes[column.name] = size
            if case .width(let w) = size { extra.append(w) }
            expressions.append(PGWhere.binExpression(column, size: size, parameter: binds.count + extra.count))
        }
        let sql = PGWhere.groupQuery(expressions, source: source, conditions: conditions)
        let fetched = try connection.query(sql, binds + extra, cancel: cancel)
        let groups = fetched.map { r in
            Group(cells: zip(picked, r).map { column, text in
                guard let text, let size = sizes[column.name] else { return column.cell(text) }
                switch size {
                case .width:
                    let t = PGWhere.trimmed(text)
                    return column.type == .integer ? Int64(t).map(JSONValue.int) ?? .string(t) : .string(t)
                case .unit(let unit):
                    return Int64(text).map { .string(Bins.text($0, unit, dateOnly: column.typeName == "date")) } ?? .string(text)
                }
            }, count: Int(r.last.flatMap { $0 } ?? "0") ?? 0)
        }
        return (GroupBins.merge(groups), sizes)
    }

    /// The conditions (to be AND-ed) and parameters of a filter and a `where` (checked).
    func selection(filter: String?, where clause: WhereClause) -> (conditions: [String], binds: [String?]) {
        var conditions: [String] = []
        var binds: [String?] = []
        if let filter {
            conditions.append(PGSQL.filter(columns: columns, parameter: 1))
            binds.append(PGSQL.containsPattern(filter))
        }
        let w = PGWhere.conditions(clause, columns: columns, first: binds.count + 1)
        return (conditions + w.sql, binds + w.binds)
    }

    /// The exact number of rows matching `filter` and `where`.
    func count(filter: String?, where clause: WhereClause = [], cancel: CancellationFlag?) throws -> Int {
        try Where.check(clause, columns: columnSpecs)
        var sql = "SELECT count(*)::text FROM \(source)"
        let (conditions, binds) = selection(filter: filter, where: clause)
        if !conditions.isEmpty { sql += " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ") }
        return Int(try connection.query(sql, binds, cancel: cancel, heartbeat: false).first?[0] ?? "0") ?? 0
    }

    /// Deletes the rows with these ids (key values) in one transaction-free statement each.
    func delete(ids: [String]) throws -> Int {
        let key = identity.keyColumns
        guard !key.isEmpty, !actions.filter({ $0.id == "delete" }).isEmpty else {
            throw RPCError.unsupported("\(name) has no primary key or unique index: its rows cannot be deleted")
        }
        var deleted = 0
        for id in ids {
            let values = try keyValues(id, count: key.count)
            let condition = key.enumerated().map { i, c in "\(PGSQL.quote(c.name)) = $\(i + 1)::\(c.sqlType)" }.joined(separator: " AND ")
            let r = try connection.query("WITH d AS (DELETE FROM \(source) WHERE \(condition) RETURNING 1) SELECT count(*)::text FROM d", values, retry: false)
            deleted += Int(r.first?[0] ?? "0") ?? 0
        }
        anchors.clear()
        readAhead.clear()
        return deleted
    }
}

/// Keyset anchors: for one sort and filter, the sort-key values (as text) of the row just
/// before a position, remembered from pages already served.
final class PGAnchors: @unchecked Sendable {
    struct Order: Hashable {
        var sort: [SortKey]
        var filter: String?
        var clause: WhereClause = []
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
