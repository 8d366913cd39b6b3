import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import PostgresBrowser

/// The SQL of `query` and `describe` (PROTOCOL.md 11.13, 11.14), and how their answers become
/// cells, checked without a server.
@Suite struct DescribeQuerySQLTests {
    let qty = PGColumn(name: "qty", sqlType: "integer", notNull: false)
    let price = PGColumn(name: "price", sqlType: "numeric(10,2)", notNull: false)
    let day = PGColumn(name: "day", sqlType: "timestamp with time zone", notNull: false)
    let name = PGColumn(name: "na\"me", sqlType: "text", notNull: false)
    let flag = PGColumn(name: "flag", sqlType: "boolean", notNull: false)
    let doc = PGColumn(name: "doc", sqlType: "json", notNull: false)

    @Test func theQueryRunsReadOnlyWithTheTimeoutAsASubquery() {
        #expect(PGQuery.setup(statementSeconds: 30) == [
            "BEGIN TRANSACTION READ ONLY", "SET LOCAL statement_timeout = '30s'", "SET LOCAL TimeZone = 'UTC'",
            "SET LOCAL DateStyle = 'ISO, YMD'",
        ])
        // The rows again, every column as text by position (duplicate names work).
        #expect(PGQuery.textWrap("SELECT a, a FROM t;", columns: 2, limit: 5) == "SELECT q.* FROM (VALUES (1)) AS tabdeck_one(x) LEFT JOIN "
                + "(SELECT true AS tabdeck_row, tabdeck_c1::text, tabdeck_c2::text FROM (\nSELECT a, a FROM t\n) AS q0(tabdeck_c1, tabdeck_c2) "
                + "LIMIT 5) AS q ON true")
        #expect(PGQuery.refusal("  DELETE FROM t") == "read-only: only a query (SELECT, WITH, VALUES, TABLE) runs here; DELETE statements are refused")
        #expect(PGQuery.refusal("(select 1)") == nil && PGQuery.refusal("WITH x AS (SELECT 1) TABLE x") == nil)
        let wrapped = PGQuery.wrap("SELECT state, count(*) AS n FROM root GROUP BY state ; \n", limit: 11)
        #expect(wrapped == PGQuery.prefix + "SELECT state, count(*) AS n FROM root GROUP BY state\n) AS q0 LIMIT 11) AS q ON true")
        #expect(wrapped.hasPrefix("SELECT q.* FROM (VALUES (1)) AS tabdeck_one(x) LEFT JOIN (SELECT true AS tabdeck_row, q0.* FROM (\n"))
    }

    @Test func serverPositionsPointIntoTheTextAsTyped() {
        let sql = "SELECT nme FROM root"
        let wrapped = PGQuery.wrap(sql)
        // The server counts characters from 1 in the text it ran.
        let serverPosition = wrapped.distance(from: wrapped.startIndex, to: wrapped.range(of: "nme")!.lowerBound) + 1
        #expect(PGQuery.position(serverPosition, in: sql) == 8)
        let accented = "SELECT 'é', nme FROM root"
        let w2 = PGQuery.wrap(accented)
        #expect(PGQuery.position(w2.distance(from: w2.startIndex, to: w2.range(of: "nme")!.lowerBound) + 1, in: accented) == 13)
        #expect(PGQuery.position(3, in: sql) == nil)
    }

    @Test func resultColumnsAreTypedByOIDAndTheMarkerGoes() throws {
        let columns: [(name: String, oid: UInt32)] = [("tabdeck_row", 16), ("n", 20), ("p", 1700), ("f", 701), ("d", 1184),
                                                       ("d2", 1082), ("b", 16), ("s", 25), ("n", 23)]
        let rows: [[String?]] = [
            ["t", "42", "1.50", "2.5", "2024-03-01 10:00:00+00", "2024-03-01", "t", "Zoë", nil],
            ["t", nil, nil, "NaN", "2024-03-01 10:00:00.5", nil, "f", nil, "7"],
        ]
        let t = try PGQuery.resultTable(columns, rows)
        #expect(t.columns.map(\.id) == ["n", "p", "f", "d", "d2", "b", "s", "n_2"])
        #expect(t.columns.map(\.type) == [.integer, .decimal, .decimal, .date, .date, .bool, .text, .integer])
        #expect(t.rows.map(\.id) == ["r0", "r1"])
        #expect(t.rows[0].cells == [.int(42), .string("1.50"), .double(2.5), .string("2024-03-01T10:00:00+00:00"), .string("2024-03-01"),
                                    .bool(true), .string("Zoë"), .null])
        #expect(t.rows[1].cells == [.null, .null, .string("NaN"), .string("2024-03-01T10:00:00.5Z"), .null, .bool(false), .null, .int(7)])
        // An empty result: the outer row of NULLs is no row, the columns are still known.
        let empty = try PGQuery.resultTable(columns, [Array(repeating: nil, count: columns.count)])
        #expect(empty.rows.isEmpty && empty.columns.count == 8)
        // Sorted and filtered in memory.
        let page = try t.page(RowsRequest(table: "q", offset: 0, limit: 10, sort: [SortKey("n_2", .descending)],
                                          where: [WhereCondition("b", .equal, [.bool(false)])], generation: 1))
        #expect(page.rows.map(\.id) == ["r1"] && page.total == 1)
    }

    @Test func numberStatistics() {
        let sql = PGQuery.statistics(qty, source: "\"public\".\"t\"", conditions: ["\"qty\" >= $1::integer"])
        #expect(sql.hasPrefix("WITH s AS (SELECT \"qty\" AS c FROM \"public\".\"t\" WHERE (\"qty\" >= $1::integer)), "))
        #expect(sql.contains("t AS (SELECT c AS v, count(*) AS n FROM s WHERE c IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT 1)"))
        #expect(sql.contains("SELECT count(c)::text, (count(*) - count(c))::text, count(DISTINCT c)::text, (SELECT c::text FROM s WHERE c IS NOT NULL ORDER BY c ASC LIMIT 1), (SELECT c::text FROM s WHERE c IS NOT NULL ORDER BY c DESC LIMIT 1), "
                             + "avg(c)::text, stddev_samp(c)::text, (percentile_cont(0.25) WITHIN GROUP (ORDER BY c::float8))::text, "
                             + "(percentile_cont(0.5) WITHIN GROUP (ORDER BY c::float8))::text, "
                             + "(percentile_cont(0.75) WITHIN GROUP (ORDER BY c::float8))::text, (SELECT v::text FROM t), (SELECT n::text FROM t), "))
        #expect(sql.contains("least(width_bucket(c::float8, m.lo, CASE WHEN m.hi > m.lo THEN m.hi ELSE m.lo + 1 END, 8), 8)"))
        // Bins of the finite values only (NaN and the infinities cannot be bucketed).
        let finite = "c::float8 NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)"
        #expect(sql.contains("CASE WHEN count(c) FILTER (WHERE \(finite)) = 0 THEN NULL WHEN min(c::float8) FILTER (WHERE \(finite)) = "))
        #expect(sql.contains("WHERE c IS NOT NULL AND \(finite) GROUP BY 1"))
        #expect(sql.contains("generate_series(1, 8)"))
        #expect(sql.hasSuffix(" FROM s"))
    }

    @Test func dateTextBoolAndUnorderedStatistics() {
        let d = PGQuery.statistics(day, source: "x", conditions: [])
        #expect(d.hasPrefix("WITH s AS (SELECT \"day\" AS c FROM x), "))
        #expect(d.contains("NULL::text, NULL::text, (to_timestamp(percentile_cont(0.25) WITHIN GROUP (ORDER BY extract(epoch FROM c))) AT TIME ZONE 'UTC')::text"))
        #expect(d.contains("width_bucket(extract(epoch FROM c)::float8"))
        let n = PGQuery.statistics(name, source: "x", conditions: [])
        #expect(n.hasPrefix("WITH s AS (SELECT \"na\"\"me\" AS c FROM x), "))
        #expect(n.contains("(SELECT c::text FROM s WHERE c IS NOT NULL ORDER BY c ASC LIMIT 1), (SELECT c::text FROM s WHERE c IS NOT NULL ORDER BY c DESC LIMIT 1), NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, (SELECT v::text FROM t), (SELECT n::text FROM t), NULL::text FROM s"))
        let f = PGQuery.statistics(flag, source: "x", conditions: [])
        #expect(f.contains("bool_and(c)::text, bool_or(c)::text"))
        let j = PGQuery.statistics(doc, source: "x", conditions: [])
        #expect(j.contains("count(DISTINCT c::text)::text, NULL::text, NULL::text"))
        #expect(j.contains("t AS (SELECT c::text AS v"))
    }

    @Test func statisticsBecomeADescribeRow() {
        let row = PGQuery.describeRow(qty, ["98", "2", "70", "18", "87", "52.4", "19.9", "35", "52.5", "70", "44", "21", "1 2 3 4 5 6 7 8"])
        #expect(row.id == "qty")
        #expect(row.cells == [.string("qty"), .string("integer"), .int(98), .int(2), .int(70), .string("18"), .string("87"),
                              .double(52.4), .double(19.9), .string("35"), .string("52.5"), .string("70"), .string("44"), .int(21),
                              .string("1 2 3 4 5 6 7 8")])
        #expect(row.cells.count == DescribeRequest.columns.count)
        let dates = PGQuery.describeRow(day, ["1", "0", "1", "2024-03-01 10:00:00+00", "2024-03-01 10:00:00+00", nil, nil,
                                              "2024-03-01 10:00:00", "2024-03-01 10:00:00", "2024-03-01 10:00:00",
                                              "2024-03-01 10:00:00+00", "1", "1"])
        #expect(dates.cells[5] == .string("2024-03-01T10:00:00+00:00") && dates.cells[9] == .string("2024-03-01T10:00:00Z"))
        #expect(dates.cells[7] == .null && dates.cells[14] == .string("1"))
        let none = PGQuery.describeRow(name, ["0", "5", "0", nil, nil, nil, nil, nil, nil, nil, nil, nil, nil])
        #expect(none.cells[5] == .null && none.cells[12] == .null && none.cells[13] == .null && none.cells[3] == .int(5))
    }
}
