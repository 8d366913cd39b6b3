/// The `describe` request (capability `describe`, PROTOCOL.md 11.13): statistics of every
/// column of a table under its filters, answered as a new table of one row per column.
public struct DescribeRequest: Hashable, Sendable {
    public var table: String
    public var filter: String?
    public var `where`: WhereClause

    public init(table: String, filter: String? = nil, where clause: WhereClause = []) {
        self.table = table; self.filter = filter; self.where = clause
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        self.init(table: try r.string("table"), filter: try r.optionalString("filter"), where: try Where.read(r))
    }

    public var json: JSONValue {
        var o: JSONObject = ["table": .string(table), "filter": filter.map { .string($0) } ?? .null]
        if !`where`.isEmpty { o["where"] = Where.json(`where`) }
        return .object(o)
    }

    /// The columns of a describe table, in their order.
    public static let columns: [ColumnSpec] = [
        ColumnSpec(id: "column", title: "Column"), ColumnSpec(id: "type", title: "Type"),
        ColumnSpec(id: "count", title: "Count", type: .integer), ColumnSpec(id: "nulls", title: "Nulls", type: .integer),
        ColumnSpec(id: "distinct", title: "Distinct", type: .integer),
        ColumnSpec(id: "min", title: "Min"), ColumnSpec(id: "max", title: "Max"),
        ColumnSpec(id: "mean", title: "Mean", type: .decimal), ColumnSpec(id: "stddev", title: "Std dev", type: .decimal),
        ColumnSpec(id: "p25", title: "P25"), ColumnSpec(id: "median", title: "Median"), ColumnSpec(id: "p75", title: "P75"),
        ColumnSpec(id: "top", title: "Most frequent"), ColumnSpec(id: "topCount", title: "Its count", type: .integer),
        ColumnSpec(id: "histogram", title: "Distribution"),
    ]
}

/// The `query` request (capability `query`, PROTOCOL.md 11.14): a read-only SQL query whose
/// result is a new table, with the other files the host offers as views.
public struct QueryRequest: Hashable, Sendable {
    public var sql: String
    /// Other files offered as read-only views, by SQL-safe name (the host's other tabs).
    public var sources: [QuerySource]

    public init(sql: String, sources: [QuerySource] = []) { self.sql = sql; self.sources = sources }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var sources: [QuerySource] = []
        for s in try r.optionalObjects("sources") {
            let source = QuerySource(name: try s.string("name"), path: try s.string("path"))
            guard QuerySource.isSQLName(source.name) else {
                throw JSONFieldError(path: s.pathOf("name"), reason: "not a SQL-safe name ([a-z_][a-z0-9_]*): \"\(source.name)\"")
            }
            guard !sources.contains(where: { $0.name == source.name }) else {
                throw JSONFieldError(path: s.pathOf("name"), reason: "\"\(source.name)\" names two sources")
            }
            guard source.path.hasPrefix("/") else {
                throw JSONFieldError(path: s.pathOf("path"), reason: "not an absolute path: \"\(source.path)\"")
            }
            sources.append(source)
        }
        self.init(sql: try r.string("sql"), sources: sources)
    }

    public var json: JSONValue {
        var o: JSONObject = ["sql": .string(sql)]
        if !sources.isEmpty { o["sources"] = .array(sources.map { ["name": .string($0.name), "path": .string($0.path)] }) }
        return .object(o)
    }
}

/// A file a `query` may read besides the tab's own: a view called `name` over the file at `path`.
public struct QuerySource: Hashable, Sendable {
    /// SQL-safe: lower-case letters, digits and `_`, not starting with a digit.
    public var name: String
    /// Absolute.
    public var path: String

    public init(name: String, path: String) { self.name = name; self.path = path }

    /// Whether `name` is SQL-safe: `[a-z_][a-z0-9_]*`.
    public static func isSQLName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}

/// The answer to `describe`: the statistics table's description and which statistics are
/// estimates.
public struct DescribeResult: Hashable, Sendable {
    public var description: TableDescription
    /// Column ids (of ``DescribeRequest/columns``) whose values are estimates.
    public var estimates: [String]

    public init(description: TableDescription, estimates: [String] = []) {
        self.description = description; self.estimates = estimates
    }

    public var json: JSONValue {
        guard case .object(var o) = description.json else { return description.json }
        if !estimates.isEmpty { o["estimates"] = .array(estimates.map { .string($0) }) }
        return .object(o)
    }
}
