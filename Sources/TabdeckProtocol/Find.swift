/// The params of `find` (PROTOCOL.md 11.15): the first row from position `from` on (or back),
/// in the order and filters of a `rows` request, with a cell that contains `text` by the
/// filter's rule (11.3).
public struct FindRequest: Hashable, Sendable {
    public var table: String
    /// The text looked for (never empty).
    public var text: String
    /// The first position looked at (0-based, in this order and filter).
    public var from: Int
    /// Looks at `from`, then at the positions before it.
    public var backward: Bool
    /// Past the end (or the start) the search goes on from the other end, up to `from`.
    public var wrap: Bool
    public var sort: [SortKey]
    public var filter: String?
    /// The structured filter (PROTOCOL.md 11.11); sent only when not empty.
    public var `where`: WhereClause
    public var generation: Int

    public init(table: String, text: String, from: Int, backward: Bool = false, wrap: Bool = false,
                sort: [SortKey] = [], filter: String? = nil, where clause: WhereClause = [], generation: Int = 0) {
        self.table = table; self.text = text; self.from = from; self.backward = backward; self.wrap = wrap
        self.sort = sort; self.filter = filter; self.where = clause; self.generation = generation
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var sort: [SortKey] = []
        for k in try r.optionalObjects("sort") { sort.append(try SortKey(reader: k)) }
        let text = try r.string("text")
        guard !text.isEmpty else { throw JSONFieldError(path: path + ".text", reason: "must not be empty") }
        let from = try r.int("from")
        guard from >= 0 else { throw JSONFieldError(path: path + ".from", reason: "must be ≥ 0, got \(from)") }
        self.init(table: try r.string("table"), text: text, from: from, backward: try r.bool("backward", default: false),
                  wrap: try r.bool("wrap", default: false), sort: sort, filter: try r.optionalString("filter"),
                  where: try Where.read(r), generation: try r.optionalInt("generation") ?? 0)
    }

    public var json: JSONValue {
        var o: JSONObject = ["table": .string(table), "text": .string(text), "from": .int(Int64(from)),
                             "backward": .bool(backward), "wrap": .bool(wrap), "sort": .array(sort.map(\.json)),
                             "filter": filter.map { .string($0) } ?? .null, "generation": .int(Int64(generation))]
        if !`where`.isEmpty { o["where"] = Where.json(`where`) }
        return .object(o)
    }

    /// The positions to look at for a view of `count` rows: ranges in the order they are looked
    /// at, each walked downwards when `backward`.
    public func positions(count: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let start = min(from, count - 1)
        if backward {
            // `from` past the end starts at the last row and wraps nowhere further.
            var ranges = [0..<(start + 1)]
            if wrap && start + 1 < count && from < count { ranges.append((start + 1)..<count) }
            return ranges
        }
        // Past the end: with `wrap`, every row, found past the end (an empty first range).
        guard from < count else { return wrap ? [count..<count, 0..<count] : [] }
        var ranges = [from..<count]
        if wrap && from > 0 { ranges.append(0..<from) }
        return ranges
    }
}

/// The result of `find`: the first matching row's position and id, or `offset: null` when no row
/// matches.
public struct FindResult: Hashable, Sendable {
    public var generation: Int
    /// The row's 0-based position in the request's order and filter; nil: no row matches.
    public var offset: Int?
    /// The row's id, when found.
    public var row: String?
    /// The row was found past the end (or the start): the search wrapped.
    public var wrapped: Bool

    public init(generation: Int, offset: Int?, row: String? = nil, wrapped: Bool = false) {
        self.generation = generation; self.offset = offset; self.row = offset == nil ? nil : row
        self.wrapped = offset == nil ? false : wrapped
    }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        let offset = try r.optionalInt("offset")
        if let offset, offset < 0 { throw JSONFieldError(path: path + ".offset", reason: "must be ≥ 0, got \(offset)") }
        let row: String?
        switch value["row"] {
        case .int(let n)?: row = String(n)
        default: row = try r.optionalString("row")
        }
        self.init(generation: try r.int("generation"), offset: offset, row: row, wrapped: try r.bool("wrapped", default: false))
    }

    public var json: JSONValue {
        var o: JSONObject = ["generation": .int(Int64(generation)), "offset": offset.map { .int(Int64($0)) } ?? .null]
        if let row { o["row"] = .string(row) }
        if wrapped { o["wrapped"] = true }
        return .object(o)
    }
}
