import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import PostgresBrowser

/// The SQL of `where` (PROTOCOL.md 11.11) and `aggregate` (11.12), checked without a server:
/// values only ever as parameters, each type compared the way the column sorts.
@Suite struct PGWhereSQLTests {
    let id = PGColumn(name: "id", sqlType: "integer", notNull: true)
    let name = PGColumn(name: "name", sqlType: "character varying(20)", notNull: false)
    let price = PGColumn(name: "price", sqlType: "numeric(10,2)", notNull: false)
    let ratio = PGColumn(name: "ratio", sqlType: "real", notNull: false)
    let at = PGColumn(name: "at", sqlType: "timestamp with time zone", notNull: false)
    let local = PGColumn(name: "local", sqlType: "timestamp without time zone", notNull: false)
    let day = PGColumn(name: "day", sqlType: "date", notNull: false)
    let state = PGColumn(name: "state", sqlType: "status", notNull: false, enumLabels: ["new", "paid"])
    let ok = PGColumn(name: "ok", sqlType: "boolean", notNull: false)
    let addr = PGColumn(name: "addr", sqlType: "inet", notNull: false)
    let doc = PGColumn(name: "doc", sqlType: "json", notNull: false)
    var columns: [PGColumn] { [id, name, price, ratio, at, local, day, state, ok, addr, doc] }

    func sql(_ c: WhereCondition, first: Int = 1) -> (String, [String?]) {
        PGWhere.conditions([c], columns: columns, first: first).sql.first.map { ($0, PGWhere.conditions([c], columns: columns, first: first).binds) }
            ?? ("", [])
    }

    @Test func numbersCompareExactlyAndNeverThroughTheColumnsTypmod() {
        #expect(sql(WhereCondition("id", .greaterOrEqual, [.int(3)])) == ("\"id\" >= $1::int8", ["3"]))
        // Past 64 bits: numeric, never an int8 overflow.
        #expect(sql(WhereCondition("id", .less, [.string("123456789012345678901234567890")]))
                == ("\"id\" < $1::numeric", ["123456789012345678901234567890"]))
        // numeric(10,2) would round 3.005 to 3.01: the parameter is a plain numeric, its text exact.
        #expect(sql(WhereCondition("price", .equal, [.string("3.005")])) == ("\"price\" = $1::numeric", ["3.005"]))
        #expect(sql(WhereCondition("price", .between, [.string("1.50"), .int(2)]), first: 4)
                == ("\"price\" BETWEEN $4::numeric AND $5::numeric", ["1.50", "2"]))
        // A JSON double travels as its exact decimal value (the reference rule's, ExactNumber).
        #expect(sql(WhereCondition("price", .less, [.double(0.5)])) == ("\"price\" < $1::numeric", ["0.5"]))
        // A float column compares with its own float type (a real 0.1 = 0.1).
        #expect(sql(WhereCondition("ratio", .equal, [.double(0.25)])).0 == "\"ratio\" = $1::real")
    }

    @Test func datesByInstantTextByBytesEnumsInDeclaredOrder() {
        // A date alone is its midnight UTC; a timestamp without zone is UTC.
        #expect(sql(WhereCondition("at", .less, [.string("2024-05-01")])) == ("\"at\" < $1::timestamptz", ["2024-05-01T00:00:00Z"]))
        #expect(sql(WhereCondition("at", .equal, [.string("2024-05-01 09:30:00")])).1 == ["2024-05-01 09:30:00Z"])
        #expect(sql(WhereCondition("at", .equal, [.string("2024-05-01T09:30:00.123456+02:00")])).1 == ["2024-05-01T09:30:00.123456+02:00"])
        // timestamp and date columns: the instant as UTC wall clock (an index on the column serves it).
        #expect(sql(WhereCondition("local", .greater, [.string("2024-05-01T10:00:00+02:00")])).0
                == "\"local\" > ($1::timestamptz AT TIME ZONE 'UTC')")
        #expect(sql(WhereCondition("day", .in, [.string("2024-05-01"), .string("2024-05-02")])).0
                == "\"day\" IN (($1::timestamptz AT TIME ZONE 'UTC'), ($2::timestamptz AT TIME ZONE 'UTC'))")
        // Text: =, != and in by bytes; ordered in the column's collation, the one its sort uses;
        // never cast to varchar(20), which would cut the value.
        #expect(sql(WhereCondition("name", .equal, [.string("Zoë")])) == ("\"name\" = $1::text COLLATE \"C\"", ["Zoë"]))
        #expect(sql(WhereCondition("name", .notEqual, [.string("a")])).0 == "\"name\" <> $1::text COLLATE \"C\"")
        #expect(sql(WhereCondition("name", .less, [.string("m")])).0 == "\"name\" < $1::text")
        #expect(sql(WhereCondition("state", .greater, [.string("new")])) == ("\"state\" > $1::status", ["new"]))
        #expect(sql(WhereCondition("ok", .equal, [.bool(true)])) == ("\"ok\" = $1::boolean", ["true"]))
        // Text-typed server types: exact as shown, ordered by their own order; json by its text.
        #expect(sql(WhereCondition("addr", .equal, [.string("10.0.0.1")])).0
                == "(CASE WHEN \"addr\" IS NULL THEN NULL ELSE format('%s', \"addr\") END) = $1::text COLLATE \"C\"")
        #expect(sql(WhereCondition("addr", .less, [.string("10.0.0.1")])).0 == "\"addr\" < $1::inet")
        #expect(sql(WhereCondition("doc", .less, [.string("{}")])).0 == "(\"doc\"::text) < $1::text COLLATE \"C\"")
        #expect(sql(WhereCondition("name", .null)) == ("\"name\" IS NULL", []))
        #expect(sql(WhereCondition("name", .notNull)) == ("\"name\" IS NOT NULL", []))
    }

    @Test func valuesNeverEnterTheSQLText() {
        let evil = "x'); DROP TABLE people; --"
        for op in [WhereOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual] {
            for column in ["name", "addr", "doc"] {
                let (text, binds) = sql(WhereCondition(column, op, [.string(evil)]))
                #expect(!text.contains("DROP") && binds == [evil])
            }
        }
        let (text, binds) = sql(WhereCondition("name", .in, [.string(evil), .string("'"), .string("$1")]))
        #expect(!text.contains("DROP") && !text.contains("'") && binds == [evil, "'", "$1"])
        // Numbering follows the filter's parameter.
        let both = PGWhere.conditions([WhereCondition("id", .equal, [.int(1)]), WhereCondition("name", .in, [.string("a"), .string("b")])],
                                      columns: columns, first: 2)
        #expect(both.sql == ["\"id\" = $2::int8", "\"name\" IN ($3::text COLLATE \"C\", $4::text COLLATE \"C\")"] && both.binds == ["1", "a", "b"])
        // An unknown column id is refused before any SQL (-32602 naming the member).
        #expect(throws: JSONFieldError.self) { try Where.check([WhereCondition("name\" OR 1=1 --", .null)], columns: columns.map(\.spec)) }
    }

    @Test func aggregateSQL() {
        let stats = PGWhere.binStatistics(price, source: "\"public\".\"t\"", conditions: ["\"id\" > $1::int8"], bins: 10)
        #expect(stats == "SELECT min(\"price\")::text, max(\"price\")::text, (SELECT count(*) FROM (SELECT DISTINCT \"price\" FROM \"public\".\"t\""
                + " WHERE (\"id\" > $1::int8) AND \"price\" IS NOT NULL AND \"price\"::text NOT IN ('NaN', 'Infinity', '-Infinity') LIMIT 11) d)::text"
                + " FROM \"public\".\"t\" WHERE (\"id\" > $1::int8) AND \"price\" IS NOT NULL AND \"price\"::text NOT IN ('NaN', 'Infinity', '-Infinity')")
        #expect(PGWhere.binStatistics(at, source: "t", conditions: [], bins: 3).hasPrefix(
            "SELECT floor(extract(epoch FROM min((\"at\" AT TIME ZONE 'UTC'))) * 1000)::int8::text"))
        #expect(PGWhere.binExpression(price, size: .width("2.5"), parameter: 3) == "(floor(\"price\"::numeric / $3::numeric) * $3::numeric)::text")
        #expect(PGWhere.binExpression(at, size: .unit(.month), parameter: 1)
                == "floor(extract(epoch FROM date_trunc('month', (\"at\" AT TIME ZONE 'UTC'))) * 1000)::int8::text")
        #expect(PGWhere.binExpression(day, size: .unit(.year), parameter: 1)
                == "floor(extract(epoch FROM date_trunc('year', \"day\"::timestamp)) * 1000)::int8::text")
        #expect(PGWhere.groupQuery(["a", "b"], source: "t", conditions: ["x", "y"])
                == "SELECT a, b, count(*)::text FROM t WHERE (x) AND (y) GROUP BY 1, 2")
        #expect(PGWhere.trimmed("20.00") == "20" && PGWhere.trimmed("-0.50") == "-0.5" && PGWhere.trimmed("-0.0") == "0"
                && PGWhere.trimmed("150") == "150")
    }

    @Test func countTableOrderPercentAndCumulative() throws {
        let spec = ColumnSpec(id: "state", title: "State", type: .enumeration(["todo", "doing", "done"]))
        let t = try CountTable(groupColumns: [spec], groups: [Group(cells: [.string("todo")], count: 300),
                                                              Group(cells: [.string("done")], count: 500),
                                                              Group(cells: [.null], count: 100), Group(cells: [.string("doing")], count: 100)])
        #expect(t.counted == 1000 && t.largest == 500)
        #expect(t.rows.map(\.cells) == [[.string("done"), .int(500), .double(50), .double(50)],
                                        [.string("todo"), .int(300), .double(30), .double(80)],
                                        [.null, .int(100), .double(10), .double(90)],
                                        [.string("doing"), .int(100), .double(10), .double(100)]])
        let page = try t.page(RowsRequest(table: "t1", offset: 0, limit: 10, sort: [SortKey("state", .descending)],
                                          where: [WhereCondition("count", .lessOrEqual, [.int(300)])]))
        // Descending by the declared order (doing after todo), the null group last.
        #expect(page.rows.map(\.id) == ["g3", "g1", "g2"] && page.total == 3)
        #expect(throws: JSONFieldError.self) { try t.page(RowsRequest(table: "t1", offset: 0, limit: 1, where: [WhereCondition("state", .equal, [.string("x")])])) }
    }
}
