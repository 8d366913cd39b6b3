import TabdeckPluginKit
import TabdeckProtocol

/// SQL text and cell conversions of `query` (PROTOCOL.md 11.14) and `describe` (11.13). Pure:
/// the tests check it without a server.
public enum PGQuery {
    /// A query result with more rows than this is refused (it is kept in memory).
    public static let maxRows = 1_000_000

    /// What runs before the query, on its connection: a read-only transaction with the
    /// plugin's statement timeout, dates in ISO form and UTC. `ROLLBACK` ends it.
    public static func setup(statementSeconds: Int) -> [String] {
        ["BEGIN TRANSACTION READ ONLY",
         "SET LOCAL statement_timeout = '\(max(1, statementSeconds))s'",
         "SET LOCAL TimeZone = 'UTC'",
         "SET LOCAL DateStyle = 'ISO, YMD'"]
    }

    /// Before the query text in ``wrap(_:)``: an outer row always comes (all NULL, the first
    /// cell too, when the query has none), so that the columns are known even without rows.
    static let prefix = "SELECT q.* FROM (VALUES (1)) AS tabdeck_one(x) LEFT JOIN (SELECT true AS tabdeck_row, q0.* FROM (\n"

    /// The query as a subquery (which PostgreSQL accepts only for a query: never a statement
    /// that changes data, nor a data-modifying WITH), at most `limit` rows. Its trailing
    /// semicolons go.
    public static func wrap(_ sql: String, limit: Int = maxRows + 1) -> String {
        var body = Substring(sql)
        while let last = body.last, last.isWhitespace || last == ";" { body = body.dropLast() }
        return prefix + body + "\n) AS q0 LIMIT \(limit)) AS q ON true"
    }

    /// The query's rows with every column as text (what psql shows; PostgreSQL sends results in
    /// binary, which only text columns read as they are): the columns renamed by position
    /// (`tabdeck_c1`…: duplicate names work) and cast to `text`; the marker column and the
    /// outer row of ``wrap(_:limit:)``. `columns` from a first run of ``wrap(_:limit:)`` with
    /// limit 0, which plans the query without running it.
    public static func textWrap(_ sql: String, columns: Int, limit: Int = maxRows + 1) -> String {
        var body = Substring(sql)
        while let last = body.last, last.isWhitespace || last == ";" { body = body.dropLast() }
        let names = (1...max(1, columns)).map { "tabdeck_c\($0)" }
        return "SELECT q.* FROM (VALUES (1)) AS tabdeck_one(x) LEFT JOIN (SELECT true AS tabdeck_row, "
            + names.map { "\($0)::text" }.joined(separator: ", ") + " FROM (\n" + body
            + "\n) AS q0(" + names.joined(separator: ", ") + ") LIMIT \(limit)) AS q ON true"
    }

    /// Statements that are not a query, refused before they reach the server with a message
    /// that says why (the server would say "syntax error": a statement is no subquery).
    public static func refusal(_ sql: String) -> String? {
        let word = sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }.uppercased()
        guard !word.isEmpty, !["SELECT", "WITH", "VALUES", "TABLE"].contains(word) else { return nil }
        return "read-only: only a query (SELECT, WITH, VALUES, TABLE) runs here; \(word) statements are refused"
    }

    /// The position (1-based, in characters) in the text as typed of a position the server
    /// gave in the wrapped text; nil when it falls outside it.
    public static func position(_ server: Int, in sql: String) -> Int? {
        let p = server - prefix.count
        return p >= 1 && p <= sql.count + 1 ? p : nil
    }

    /// The protocol type of a result column by its type's OID.
    public static func type(oid: UInt32) -> ColumnType {
        switch oid {
        case 20, 21, 23, 26: return .integer            // int8, int2, int4, oid
        case 700, 701, 1700: return .decimal            // float4, float8, numeric
        case 16: return .bool
        case 1082, 1114, 1184: return .date             // date, timestamp, timestamptz
        default: return .text
        }
    }

    /// A server text (DateStyle ISO, UTC) of a date or timestamp in ISO 8601: `T`, and a zone.
    public static func isoDate(_ text: String) -> String {
        guard text.count > 10 else { return text }
        var s = text
        if let space = s.firstIndex(of: " ") { s.replaceSubrange(space...space, with: "T") }
        let time = s[s.index(s.startIndex, offsetBy: 11)...]
        if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = time[sign...]
            if zone.count == 3 { s += ":00" }  // +00 → +00:00
        } else if !time.hasSuffix("Z") {
            s += "Z"
        }
        return s
    }

    /// A cell of a result column from the server's text.
    public static func cell(_ text: String?, type: ColumnType, oid: UInt32) -> JSONValue {
        guard let text else { return .null }
        switch type {
        case .integer: return Int64(text).map(JSONValue.int) ?? .string(text)
        case .decimal:
            if oid == 1700 { return .string(text) }
            if let d = Double(text), d.isFinite { return .double(d) }
            return .string(text)
        case .bool: return .bool(text == "t" || text == "true")
        case .date: return .string(isoDate(text))
        default: return .string(text)
        }
    }

    // MARK: describe

    /// The cells a column's statistics query answers, in order.
    public static let statisticNames = ["count", "nulls", "distinct", "min", "max", "mean", "stddev", "p25", "median", "p75",
                                        "top", "topCount", "histogram"]

    /// One query answering a column's statistics (``statisticNames``, as text) over the rows
    /// of `source` meeting `conditions`.
    public static func statistics(_ column: PGColumn, source: String, conditions: [String]) -> String {
        let q = PGSQL.quote(column.name)
        let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        let ordered = column.sortable
        // Values compared: the column, or its text when the type has no order (json, point).
        let c = ordered ? "c" : "c::text"
        var number: String? = nil
        switch column.type {
        case .integer, .decimal: number = "c::float8"
        case .date: number = "extract(epoch FROM c)::float8"
        default: break
        }
        let minMax: (String, String) = switch column.type {
        case .bool: ("bool_and(c)::text", "bool_or(c)::text")
        case _ where !ordered: ("NULL::text", "NULL::text")
        // By ORDER BY, not min()/max(): every ordered type sorts, not all have the aggregates
        // (jsonb, uuid, bytea: the real server said 42883).
        default: ("(SELECT c::text FROM s WHERE c IS NOT NULL ORDER BY c ASC LIMIT 1)",
                  "(SELECT c::text FROM s WHERE c IS NOT NULL ORDER BY c DESC LIMIT 1)")
        }
        let moments = column.type == .integer || column.type == .decimal
            ? ("avg(c)::text", "stddev_samp(c)::text") : ("NULL::text", "NULL::text")
        func percentile(_ p: String) -> String {
            switch column.type {
            case .integer, .decimal: return "(percentile_cont(\(p)) WITHIN GROUP (ORDER BY c::float8))::text"
            case .date: return "(to_timestamp(percentile_cont(\(p)) WITHIN GROUP (ORDER BY extract(epoch FROM c))) AT TIME ZONE 'UTC')::text"
            default: return "NULL::text"
            }
        }
        // Bins of the finite values only: width_bucket refuses NaN and the infinities (a numeric
        // 'NaN', an 'infinity' date: the real server said 2201G).
        func finite(_ x: String) -> String { "\(x) NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)" }
        let histogram = number.map { x in
            "(SELECT string_agg(coalesce(h.n, 0)::text, ' ' ORDER BY b.k) FROM generate_series(1, 8) AS b(k) LEFT JOIN "
                + "(SELECT least(width_bucket(\(x), m.lo, CASE WHEN m.hi > m.lo THEN m.hi ELSE m.lo + 1 END, 8), 8) AS k, count(*) AS n "
                + "FROM s, (SELECT min(\(x)) AS lo, max(\(x)) AS hi FROM s WHERE \(finite(x))) AS m "
                + "WHERE c IS NOT NULL AND \(finite(x)) GROUP BY 1) AS h ON h.k = b.k)"
        } ?? "NULL::text"
        // A single value (or none): one bin holding them all, as the protocol's "up to 8".
        let histogramCell = number.map { x in
            "CASE WHEN count(c) FILTER (WHERE \(finite(x))) = 0 THEN NULL "
                + "WHEN min(\(x)) FILTER (WHERE \(finite(x))) = max(\(x)) FILTER (WHERE \(finite(x))) "
                + "THEN (count(c) FILTER (WHERE \(finite(x))))::text ELSE \(histogram) END"
        } ?? "NULL::text"
        return "WITH s AS (SELECT \(q) AS c FROM \(source)\(whereSQL)), "
            + "t AS (SELECT \(c) AS v, count(*) AS n FROM s WHERE c IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT 1) "
            + "SELECT count(c)::text, (count(*) - count(c))::text, count(DISTINCT \(c))::text, \(minMax.0), \(minMax.1), "
            + "\(moments.0), \(moments.1), \(percentile("0.25")), \(percentile("0.5")), \(percentile("0.75")), "
            + "(SELECT v::text FROM t), (SELECT n::text FROM t), \(histogramCell) FROM s"
    }

    /// The describe row of a column from its statistics (``statisticNames``, as text).
    public static func describeRow(_ column: PGColumn, _ stats: [String?]) -> Row {
        func int(_ s: String?) -> JSONValue { s.flatMap { Int64($0) }.map(JSONValue.int) ?? .null }
        func dec(_ s: String?) -> JSONValue { s.flatMap { Double($0) }.map(JSONValue.double) ?? .null }
        func text(_ s: String?) -> JSONValue {
            guard let s else { return .null }
            return .string(column.type == .date ? isoDate(s) : s)
        }
        let s = stats + Array(repeating: nil, count: max(0, statisticNames.count - stats.count))
        return Row(id: column.name, cells: [
            .string(column.name), .string(column.type.name), int(s[0]), int(s[1]), int(s[2]), text(s[3]), text(s[4]),
            dec(s[5]), dec(s[6]), text(s[7]), text(s[8]), text(s[9]), text(s[10]), int(s[11]), s[12].map(JSONValue.string) ?? .null,
        ])
    }
}

extension PGQuery {
    /// The result of ``wrap(_:limit:)`` as a table: its first column (the marker that a row
    /// came from the query) dropped, the row of NULLs of an empty result dropped, column ids
    /// the names made unique, row ids `r0`, `r1`, ….
    public static func resultTable(_ columns: [(name: String, oid: UInt32)], _ rows: [[String?]]) throws -> MemoryTable {
        let body = Array(columns.dropFirst())
        let kept = rows.filter { ($0.first ?? nil) != nil }
        guard kept.count <= maxRows else {
            throw RPCError.badParams("the query has more than \(maxRows) rows: add a LIMIT", path: "params.sql")
        }
        var ids: [String] = [], seen = Set<String>()
        for c in body {
            var id = c.name, k = 1
            while !seen.insert(id).inserted { k += 1; id = "\(c.name)_\(k)" }
            ids.append(id)
        }
        let types = body.map { type(oid: $0.oid) }
        let specs = body.indices.map { i in ColumnSpec(id: ids[i], title: body[i].name, type: types[i]) }
        let out = kept.enumerated().map { r, row in
            Row(id: "r\(r)", cells: body.indices.map { i in cell(i + 1 < row.count ? row[i + 1] : nil, type: types[i], oid: body[i].oid) })
        }
        return MemoryTable(columns: specs, rows: out)
    }
}
