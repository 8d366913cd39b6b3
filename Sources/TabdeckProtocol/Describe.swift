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
/// result is a new table.
public struct QueryRequest: Hashable, Sendable {
    public var sql: String

    public init(sql: String) { self.sql = sql }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        self.init(sql: try JSONReader(value, path: path).string("sql"))
    }

    public var json: JSONValue { ["sql": .string(sql)] }
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
