/// A section of rows (header and footer titles). Sections are contiguous runs of rows, in
/// the order listed; `count` (optional) is how many rows the section holds, so the host knows
/// where each section starts without fetching rows.
public struct SectionSpec: Hashable, Sendable {
    public var id: String
    public var title: String
    public var footer: String?
    /// Rows in the section, when the plugin says (never negative).
    public var count: Int?

    public init(id: String, title: String, footer: String? = nil, count: Int? = nil) {
        self.id = id; self.title = title; self.footer = footer; self.count = count
    }

    public init(reader r: JSONReader) throws(JSONFieldError) {
        id = try r.string("id"); title = try r.optionalString("title") ?? id; footer = try r.optionalString("footer")
        count = try r.optionalInt("count")
        if let count, count < 0 { throw JSONFieldError(path: r.pathOf("count"), reason: "must not be negative, got \(count)") }
    }

    /// The sections in `key` of `r`, nil when the member is absent (or null).
    public static func optionalList(_ r: JSONReader, _ key: String) throws(JSONFieldError) -> [SectionSpec]? {
        guard let v = r.value(key), v != .null else { return nil }
        var out: [SectionSpec] = []
        for s in try r.optionalObjects(key) { out.append(try SectionSpec(reader: s)) }
        return out
    }

    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "title": .string(title)]
        if let footer { o["footer"] = .string(footer) }
        if let count { o["count"] = .int(Int64(count)) }
        return .object(o)
    }
}

/// Whether a table's row ids name the same row across sorts, filters and pages (PROTOCOL.md
/// 10.1, `rowIds`).
public enum RowIDStability: String, Hashable, Sendable {
    /// The protocol's rule (10.5): an id always names the same row.
    case stable
    /// Ids that may name another row after a sort, a filter or a change of the data (positions
    /// in a view without a key): the host offers no selection, actions or `copy selection`.
    case unstable
}

/// A table as described by `open` and `children`.
public struct TableDescription: Hashable, Sendable {
    /// The plugin's handle for this table.
    public var table: String
    public var title: String?
    public var columns: [ColumnSpec]
    /// Row count, or nil when unknown.
    public var total: Int?
    public var sections: [SectionSpec]
    public var actions: [ActionSpec]
    /// Whether the user may move this table's rows up and down (`move`; needs the `move` capability).
    public var movable: Bool
    /// True when `total` is an estimate (a planner's guess), shown as `≈` until an exact one comes.
    public var totalIsEstimate: Bool
    /// Whether the row ids are stable.
    public var rowIDs: RowIDStability
    /// Names the plugin's `query` (11.14) reads tables by, this table's own first (a catalog:
    /// the tables it lists); the prompt completes them after `sql`.
    public var sqlNames: [String]

    public init(table: String, title: String? = nil, columns: [ColumnSpec], total: Int?,
                sections: [SectionSpec] = [], actions: [ActionSpec] = [], movable: Bool = false,
                totalIsEstimate: Bool = false, rowIDs: RowIDStability = .stable, sqlNames: [String] = []) {
        self.table = table; self.title = title; self.columns = columns; self.total = total
        self.sections = sections; self.actions = actions; self.movable = movable
        self.totalIsEstimate = totalIsEstimate; self.rowIDs = rowIDs; self.sqlNames = sqlNames
    }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var columns: [ColumnSpec] = []
        var seen = Set<String>()
        for c in try r.objects("columns") {
            let column = try ColumnSpec(reader: c)
            guard seen.insert(column.id).inserted else {
                throw JSONFieldError(path: c.pathOf("id"), reason: "duplicate column id \"\(column.id)\"")
            }
            columns.append(column)
        }
        guard !columns.isEmpty else { throw JSONFieldError(path: r.pathOf("columns"), reason: "a table needs at least one column") }
        var sections: [SectionSpec] = []
        for s in try r.optionalObjects("sections") { sections.append(try SectionSpec(reader: s)) }
        var actions: [ActionSpec] = []
        var actionIDs = Set<String>()
        for a in try r.optionalObjects("actions") {
            let action = try ActionSpec(reader: a)
            guard actionIDs.insert(action.id).inserted else {
                throw JSONFieldError(path: a.pathOf("id"), reason: "duplicate action id \"\(action.id)\"")
            }
            actions.append(action)
        }
        var rowIDs = RowIDStability.stable
        if let raw = try r.optionalString("rowIds") {
            guard let parsed = RowIDStability(rawValue: raw) else {
                throw JSONFieldError(path: r.pathOf("rowIds"), reason: "expected \"stable\" or \"unstable\", got \"\(raw)\"")
            }
            rowIDs = parsed
        }
        self.init(table: try r.string("table"), title: try r.optionalString("title"), columns: columns,
                  total: try r.optionalInt("total"), sections: sections, actions: actions,
                  movable: try r.bool("movable", default: false),
                  totalIsEstimate: try r.bool("totalIsEstimate", default: false), rowIDs: rowIDs,
                  sqlNames: try r.optionalStrings("sqlNames") ?? [])
    }

    public var json: JSONValue {
        var o: JSONObject = ["table": .string(table)]
        if let title { o["title"] = .string(title) }
        o["columns"] = .array(columns.map(\.json))
        o["total"] = total.map { .int(Int64($0)) } ?? .null
        if !sections.isEmpty { o["sections"] = .array(sections.map(\.json)) }
        if !actions.isEmpty { o["actions"] = .array(actions.map(\.json)) }
        if movable { o["movable"] = .bool(true) }
        if totalIsEstimate { o["totalIsEstimate"] = .bool(true) }
        if rowIDs != .stable { o["rowIds"] = .string(rowIDs.rawValue) }
        if !sqlNames.isEmpty { o["sqlNames"] = .array(sqlNames.map { .string($0) }) }
        return .object(o)
    }
}

/// One row of a table.
public struct Row: Hashable, Sendable {
    /// Stable id, unchanged by sorting and paging.
    public var id: String
    /// One cell per column, in column order.
    public var cells: [JSONValue]
    public var section: String?
    public var detail: String?
    public var hasChildren: Bool
    /// The text cells the plugin sent cut (PROTOCOL.md 10.5, `cut`): column id → the whole
    /// value's size in UTF-8 bytes; the cell holds only its first part. Empty: every cell whole.
    public var cut: [String: Int] = [:]

    public init(id: String, cells: [JSONValue], section: String? = nil, detail: String? = nil, hasChildren: Bool = false) {
        self.id = id; self.cells = cells; self.section = section; self.detail = detail; self.hasChildren = hasChildren
    }

    public init(reader r: JSONReader) throws(JSONFieldError) {
        let id: String
        switch r.value("id") {
        case .string(let s)?: id = s
        case .int(let i)?: id = String(i)
        case let other?: throw JSONFieldError(path: r.pathOf("id"), reason: "expected a string or an integer, got \(other.typeDescription)")
        case nil: throw JSONFieldError(path: r.pathOf("id"), reason: "missing (expected a string)")
        }
        self.init(id: id, cells: try r.array("cells"), section: try r.optionalString("section"),
                  detail: try r.optionalString("detail"), hasChildren: try r.bool("hasChildren", default: false))
        cut = try Row.cutSizes(r)
    }

    /// The `cut` member: an object of column ids to whole sizes in bytes (integers ≥ 0).
    static func cutSizes(_ r: JSONReader) throws(JSONFieldError) -> [String: Int] {
        guard let o = try r.optionalObject("cut") else { return [:] }
        var sizes: [String: Int] = [:]
        for key in o.object.keys {
            guard let size = try o.optionalInt(key), size >= 0 else {
                throw JSONFieldError(path: o.pathOf(key), reason: "expected the whole value's size in bytes (an integer ≥ 0)")
            }
            sizes[key] = size
        }
        return sizes
    }

    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "cells": .array(cells)]
        if let section { o["section"] = .string(section) }
        if let detail { o["detail"] = .string(detail) }
        if hasChildren { o["hasChildren"] = .bool(true) }
        if !cut.isEmpty { o["cut"] = .object(JSONObject(uniqueKeys: cut.keys.sorted(), values: cut.keys.sorted().map { .int(Int64(cut[$0]!)) })) }
        return .object(o)
    }
}

/// Parameters of a `rows` request.
public struct RowsRequest: Hashable, Sendable {
    public var table: String
    public var offset: Int
    public var limit: Int
    public var sort: [SortKey]
    public var filter: String?
    /// The structured filter (PROTOCOL.md 11.11); sent only when not empty.
    public var `where`: WhereClause
    public var generation: Int

    public init(table: String, offset: Int, limit: Int, sort: [SortKey] = [], filter: String? = nil,
                where clause: WhereClause = [], generation: Int = 0) {
        self.table = table; self.offset = offset; self.limit = limit; self.sort = sort; self.filter = filter
        self.where = clause; self.generation = generation
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var sort: [SortKey] = []
        for k in try r.optionalObjects("sort") { sort.append(try SortKey(reader: k)) }
        self.init(table: try r.string("table"), offset: try r.int("offset"), limit: try r.int("limit"), sort: sort,
                  filter: try r.optionalString("filter"), where: try Where.read(r),
                  generation: try r.optionalInt("generation") ?? 0)
    }

    public var json: JSONValue {
        var o: JSONObject = ["table": .string(table), "offset": .int(Int64(offset)), "limit": .int(Int64(limit)),
                             "sort": .array(sort.map(\.json)), "filter": filter.map { .string($0) } ?? .null,
                             "generation": .int(Int64(generation))]
        if !`where`.isEmpty { o["where"] = Where.json(`where`) }
        return .object(o)
    }
}

/// The result of a `rows` request.
public struct RowsResult: Hashable, Sendable {
    public var generation: Int
    public var offset: Int
    public var rows: [Row]
    /// The row count as now known; `nil` when unknown (or not sent).
    public var total: Int?
    /// True when `total` was present on the wire (even as null).
    public var totalSent: Bool
    /// The table's sections for this generation (counts and footers after a filter), when the
    /// plugin sends them; nil: unchanged.
    public var sections: [SectionSpec]?
    /// True when `total` is an estimate (shown as `≈` until an exact one comes).
    public var totalIsEstimate: Bool
    /// A short page that is not the end (PROTOCOL.md 11.3, `more`): the page would not fit the
    /// line limit, so the plugin sent fewer rows; the rest starts at `offset + rows.count`.
    public var more = false

    public init(generation: Int, offset: Int, rows: [Row], total: Int?, totalSent: Bool = true, sections: [SectionSpec]? = nil,
                totalIsEstimate: Bool = false) {
        self.generation = generation; self.offset = offset; self.rows = rows; self.total = total; self.totalSent = totalSent
        self.sections = sections; self.totalIsEstimate = totalIsEstimate
    }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        if case .object(let object) = value, case .rows(let payload) = object.storage {
            // Decoded straight to rows by `MessageCodec.decode`; the other members are read as usual.
            let r = try JSONReader(.object(payload.othersObject), path: path)
            self.init(generation: try r.optionalInt("generation") ?? 0, offset: try r.optionalInt("offset") ?? 0,
                      rows: payload.rows, total: try r.optionalInt("total"), totalSent: r.value("total") != nil,
                      sections: try SectionSpec.optionalList(r, "sections"),
                      totalIsEstimate: try r.bool("totalIsEstimate", default: false))
            more = try r.bool("more", default: false)
            return
        }
        let r = try JSONReader(value, path: path)
        let items = try r.array("rows")
        var rows: [Row] = []
        rows.reserveCapacity(items.count)
        var layout = RowLayout(keys: [])
        for (i, item) in items.enumerated() {
            // The usual row takes the fast path (its keys are those of the row before, often
            // the very same array); anything it does not accept goes through the reader, which
            // gives the error with its path (`result.rows[3].cells`).
            if case .object(let object) = item {
                if object.keys != layout.keys { layout = RowLayout(keys: object.keys) }
                if let row = layout.row(object.values) { rows.append(row); continue }
            }
            rows.append(try Row(reader: JSONReader(item, path: "\(r.pathOf("rows"))[\(i)]")))
        }
        self.init(generation: try r.optionalInt("generation") ?? 0, offset: try r.optionalInt("offset") ?? 0, rows: rows,
                  total: try r.optionalInt("total"), totalSent: r.value("total") != nil,
                  sections: try SectionSpec.optionalList(r, "sections"),
                  totalIsEstimate: try r.bool("totalIsEstimate", default: false))
        more = try r.bool("more", default: false)
        if more && rows.isEmpty { throw JSONFieldError(path: r.pathOf("more"), reason: "a page with more to come holds at least one row") }
    }

    public var json: JSONValue {
        var o: JSONObject = ["generation": .int(Int64(generation)), "offset": .int(Int64(offset)), "rows": .array(rows.map(\.json))]
        if totalSent { o["total"] = total.map { .int(Int64($0)) } ?? .null }
        if let sections { o["sections"] = .array(sections.map(\.json)) }
        if totalIsEstimate { o["totalIsEstimate"] = .bool(true) }
        if more { o["more"] = .bool(true) }
        return .object(o)
    }
}
