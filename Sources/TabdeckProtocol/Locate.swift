/// The `locate` request (optional, capability `locate`): where the first of some rows is in a
/// table's current order, so the host's cursor can follow its row across a sort, a filter or an
/// invalidation without paging through the table.
public struct LocateRequest: Hashable, Sendable {
    public var table: String
    /// Row ids in order of preference: the cursor's row, then its neighbours.
    public var rows: [String]
    public var sort: [SortKey]
    public var filter: String?
    /// The structured filter (PROTOCOL.md 11.11); sent only when not empty.
    public var `where`: WhereClause
    public var generation: Int

    public init(table: String, rows: [String], sort: [SortKey] = [], filter: String? = nil,
                where clause: WhereClause = [], generation: Int = 0) {
        self.table = table; self.rows = rows; self.sort = sort; self.filter = filter; self.where = clause
        self.generation = generation
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var sort: [SortKey] = []
        for k in try r.optionalObjects("sort") { sort.append(try SortKey(reader: k)) }
        self.init(table: try r.string("table"), rows: try r.optionalStrings("rows") ?? [], sort: sort,
                  filter: try r.optionalString("filter"), where: try Where.read(r),
                  generation: try r.optionalInt("generation") ?? 0)
    }

    public var json: JSONValue {
        var o: JSONObject = ["table": .string(table), "rows": .array(rows.map { .string($0) }), "sort": .array(sort.map(\.json)),
                             "filter": filter.map { .string($0) } ?? .null, "generation": .int(Int64(generation))]
        if !`where`.isEmpty { o["where"] = Where.json(`where`) }
        return .object(o)
    }
}

/// The result of `locate`: the first of the asked rows that is in the view and its 0-based
/// offset, or `row: null` when none is.
public struct LocateResult: Hashable, Sendable {
    public var row: String?
    public var offset: Int?

    public init(row: String?, offset: Int?) { self.row = row; self.offset = offset }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        let row = try r.optionalString("row")
        let offset = try r.optionalInt("offset")
        if row != nil {
            guard let offset else { throw JSONFieldError(path: path + ".offset", reason: "required when row is set") }
            guard offset >= 0 else { throw JSONFieldError(path: path + ".offset", reason: "must be ≥ 0, got \(offset)") }
        }
        self.init(row: row, offset: row == nil ? nil : offset)
    }

    public var json: JSONValue {
        ["row": row.map { .string($0) } ?? .null, "offset": offset.map { .int(Int64($0)) } ?? .null]
    }
}
