import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import PostgresBrowser

/// The SQL the PostgreSQL plugin sends, checked without a server (the server-backed checks are
/// Scripts/test-postgres).
@Suite struct PGSQLTests {
    let id = PGColumn(name: "id", sqlType: "integer", notNull: true)
    let name = PGColumn(name: "name", sqlType: "text", notNull: false)
    let price = PGColumn(name: "price", sqlType: "numeric(10,2)", notNull: true)
    let tags = PGColumn(name: "tags", sqlType: "jsonb", notNull: false)
    var columns: [PGColumn] { [id, name, price, tags] }
    var identity: [PGOrderTerm] { [PGOrderTerm(expression: "\"id\"", castFormat: "$n::integer", descending: false, notNull: true)] }

    @Test func columnsSortByTheServersOwnOperatorsNeverACast() {
        #expect(id.type == .integer && price.type == .decimal && name.type == .text && tags.type == .text)
        #expect(id.sortExpression == "\"id\"" && name.sortExpression == "\"name\"" && tags.sortExpression == "\"tags\"")
        #expect(price.parameter(3) == "$3::numeric(10,2)")
        #expect(name.parameter(2) == "$2::text")
        // Every column's nulls are the largest value, as the server sorts them.
        #expect(columns.allSatisfy { $0.spec.nulls == .largest })
        // Text in byte order is the protocol's; a locale collation, jsonb, inet are the source's own.
        #expect(name.spec.order == .protocol && tags.spec.order == .source)
        #expect(PGColumn(name: "n", sqlType: "text", notNull: false, collation: "en_US.utf8").spec.order == .source)
        #expect(PGColumn(name: "a", sqlType: "inet", notNull: false).spec.order == .source)
        #expect(PGColumn(name: "s", sqlType: "status", notNull: false, enumLabels: ["pending", "paid", "cancelled"]).type
                == .enumeration(["pending", "paid", "cancelled"]))
        #expect(PGColumn(name: "t", sqlType: "timestamp with time zone", notNull: false).type == .date)
        #expect(!PGColumn(name: "j", sqlType: "json", notNull: false).sortable)
        #expect(!PGColumn(name: "p", sqlType: "point", notNull: false, typeName: "point").spec.sortable)
    }

    @Test func orderByIsTheColumnThenTheKeyInTheLastKeysDirection() throws {
        let asc = try PGSQL.orderTerms([SortKey("name", .ascending)], columns: columns, identity: identity)
        #expect(asc.map(\.sql) == ["\"name\" ASC", "\"id\" ASC"])
        let desc = try PGSQL.orderTerms([SortKey("name", .descending)], columns: columns, identity: identity)
        #expect(desc.map(\.sql) == ["\"name\" DESC", "\"id\" DESC"])
        let byID = try PGSQL.orderTerms([SortKey("id", .descending)], columns: columns, identity: identity)
        #expect(byID.map(\.sql) == ["\"id\" DESC"])  // the key is not repeated
        #expect(throws: RPCError.self) { try PGSQL.orderTerms([SortKey("nope", .ascending)], columns: columns, identity: identity) }
        let json = PGColumn(name: "j", sqlType: "json", notNull: false)
        #expect(throws: RPCError.self) { try PGSQL.orderTerms([SortKey("j", .ascending)], columns: [json], identity: identity) }
    }

    @Test func keysetOfNotNullKeysIsOneRowComparison() throws {
        let terms = try PGSQL.orderTerms([SortKey("price", .ascending)], columns: columns, identity: identity)
        let a = PGSQL.after(terms, ["9.50", "7"], first: 2)
        #expect(a.branches == ["(\"price\", \"id\") > ($2::numeric(10,2), $3::integer)"])
        #expect(a.binds == ["9.50", "7"])
    }

    @Test func keysetOfANullableKeyAddsTheNullsWhereTheServerPutsThem() throws {
        let asc = try PGSQL.orderTerms([SortKey("name", .ascending)], columns: columns, identity: identity)
        let n = "\"name\""
        // After "bob" ascending: greater names (a row comparison with the id), then the NULLs (last).
        let fromBob = PGSQL.after(asc, ["bob", "4"])
        #expect(fromBob.branches == ["(\(n), \"id\") > ($1::text, $2::integer)", "\(n) IS NULL"])
        #expect(fromBob.binds == ["bob", "4"])
        // After a NULL name ascending: only the NULL names with a greater id.
        let fromNull = PGSQL.after(asc, [nil, "4"])
        #expect(fromNull.branches == ["\(n) IS NULL AND \"id\" > $1::integer"])
        let desc = try PGSQL.orderTerms([SortKey("name", .descending)], columns: columns, identity: identity)
        // Descending the NULLs come first: after "bob" only smaller names and "bob" with smaller ids.
        #expect(PGSQL.after(desc, ["bob", "4"]).branches == ["(\(n), \"id\") < ($1::text, $2::integer)"])
        // After a NULL descending: every name, and the NULLs with a smaller id.
        #expect(PGSQL.after(desc, [nil, "4"]).branches == ["\(n) IS NOT NULL", "\(n) IS NULL AND \"id\" < $1::integer"])
    }

    @Test func keysetOfMixedDirectionsSpellsOutEachKey() throws {
        // [price asc, name desc, id desc] from (9.50, NULL, 4): a NULL name descending is
        // followed by every name, then the NULLs with a smaller id.
        let terms = try PGSQL.orderTerms([SortKey("price", .ascending), SortKey("name", .descending)], columns: columns, identity: identity)
        let a = PGSQL.after(terms, ["9.50", nil, "4"])
        #expect(a.branches == ["\"price\" > $1::numeric(10,2)", "\"price\" = $2::numeric(10,2) AND \"name\" IS NOT NULL",
                               "\"price\" = $3::numeric(10,2) AND \"name\" IS NULL AND \"id\" < $4::integer"])
        #expect(a.binds == ["9.50", "9.50", "9.50", "4"])
        // From (9.50, "bob", 4): the trailing name and id share a direction: one row comparison.
        let b = PGSQL.after(terms, ["9.50", "bob", "4"])
        #expect(b.branches == ["\"price\" > $1::numeric(10,2)", "\"price\" = $2::numeric(10,2) AND (\"name\", \"id\") < ($3::text, $4::integer)"])
    }

    @Test func aPageOfSeveralBranchesIsAUnionOfIndexServedQueriesPutInOrderAgain() {
        let terms = [PGOrderTerm(name), PGOrderTerm(expression: "\"id\"", castFormat: "$n::integer", descending: false, notNull: true)]
        let one = PGSQL.page(select: ["x"], source: "t", conditions: [], branches: ["a > 1"], terms: terms, limit: 100)
        #expect(one == "SELECT x AS o0 FROM t WHERE (a > 1) ORDER BY \"name\" ASC, \"id\" ASC LIMIT 100")
        let two = PGSQL.page(select: ["x"], source: "t", conditions: ["f"], branches: ["a", "b"], terms: terms, limit: 10, offset: 5)
        #expect(two == "SELECT o0 FROM ((SELECT \"name\" AS s0, \"id\" AS s1, x AS o0 FROM t WHERE (f) AND (a) ORDER BY \"name\" ASC, \"id\" ASC LIMIT 15)"
                + " UNION ALL (SELECT \"name\" AS s0, \"id\" AS s1, x AS o0 FROM t WHERE (f) AND (b) ORDER BY \"name\" ASC, \"id\" ASC LIMIT 15))"
                + " u ORDER BY s0 ASC, s1 ASC LIMIT 10 OFFSET 5")
        #expect(PGSQL.page(select: ["x"], source: "t", conditions: [], branches: [], terms: terms, limit: 1) == "SELECT x AS o0 FROM t WHERE FALSE")
    }

    @Test func filterMatchesEveryCellsTextLiterally() {
        #expect(PGSQL.filter(columns: [id, name], parameter: 1) == "(\"id\"::text ILIKE $1 OR \"name\"::text ILIKE $1)")
        #expect(PGSQL.containsPattern("50%_a\\b") == "%50\\%\\_a\\\\b%")
        #expect(PGSQL.quote("my \"t\"") == "\"my \"\"t\"\"\"")
    }

    @Test func cellsKeepExactDecimalsAndRowIDs() {
        #expect(id.cell("42") == .int(42))
        #expect(price.cell("1234444433332222.44434322") == .string("1234444433332222.44434322"))
        #expect(price.cell("3.00") == .string("3.00"))
        #expect(price.cell("NaN") == .string("NaN"))
        let float = PGColumn(name: "f", sqlType: "double precision", notNull: false)
        #expect(float.cell("2.5") == .double(2.5))
        #expect(float.cell("-Infinity") == .string("-Infinity"))
        #expect(PGColumn(name: "b", sqlType: "boolean", notNull: false).cell("true") == .bool(true))
        #expect(name.cell(nil) == .null)
        #expect(PGTable.rowID(["7"]) == "7")
        #expect(PGTable.rowID(["16390", "(0,1)"]) == "[\"16390\",\"(0,1)\"]")
        #expect(PGColumn(name: "a", sqlType: "inet", notNull: false).valueExpression == "CASE WHEN \"a\" IS NULL THEN NULL ELSE format('%s', \"a\") END")
    }

    @Test func aHugeCellIsCutAtACharacterBoundaryWithTheProtocolsMarker() {
        let note = PGColumn(name: "note", sqlType: "text", notNull: false)
        let huge = String(repeating: "é", count: 2_621_440)  // 5 MiB
        #expect(note.cell(huge) == .string(huge), "the column gives the value whole")
        var row = Row(id: "42", cells: [.int(42), note.cell(huge), .string("short")])
        row.cutLongCells(columns: ["id", "note", "other"])
        #expect(row.cut == ["note": 5_242_880])
        guard case .string(let cut) = row.cells[1] else { Issue.record("not a string"); return }
        #expect(cut.utf8.count == 65_536 && huge.hasPrefix(cut))
        #expect(row.cells[2] == .string("short"))
        // The page's line says so, exactly.
        let line = String(decoding: LineEncoder.rowsReply(id: .int(1), RowsResult(generation: 1, offset: 0, rows: [row], total: 1)), as: UTF8.self)
        #expect(line.hasSuffix(#","cut":{"note":5242880}}],"total":1}}"# + "\n"))
    }

    @Test func aPageTooLongForItsLineComesShortWithMore() {
        let rows = (0..<100).map { i in Row(id: String(i), cells: [.string(String(repeating: "x", count: 60_000))]) }
        let line = LineEncoder.rowsReply(id: .int(7), RowsResult(generation: 3, offset: 200, rows: rows, total: 1000))
        #expect(line.count <= LineSplitter.defaultMaxLineLength + 1)
        guard case .response(_, let result)? = try? MessageCodec.decode(Array(line.dropLast())), let page = try? RowsResult(result) else {
            Issue.record("not a rows response"); return
        }
        #expect(page.more && (60..<100).contains(page.rows.count) && page.offset == 200 && page.rows == Array(rows.prefix(page.rows.count)), "\(page.rows.count) rows")
    }

    @Test func aPartitionedTableIsIdentifiedByPartitionAndPlace() {
        #expect(PGIdentity.place(partitioned: true).terms.map(\.expression) == ["tableoid", "ctid"])
        #expect(PGIdentity.place(partitioned: false).terms.map(\.expression) == ["ctid"])
        #expect(PGIdentity.none.terms.isEmpty)
    }
}

/// Where the plugin connects, and where its password comes from (never the config).
@Suite struct PGTargetTests {
    @Test func urlIsParsedAndAPasswordInItIsRefused() throws {
        let t = try PGTarget(url: "postgresql://ann@127.0.0.1:5544/shop")
        #expect(t == PGTarget(user: "ann", host: "127.0.0.1", port: 5544, database: "shop"))
        #expect(throws: RPCError.self) { try PGTarget(url: "postgresql://ann:secret@127.0.0.1/shop") }
        #expect(throws: RPCError.self) { try PGTarget(url: "mysql://ann@h/db") }
    }

    @Test func passwordFromTheEnvironmentThenPgpass() throws {
        let t = PGTarget(user: "ann", host: "db", port: 5432, database: "shop")
        #expect(t.password(environment: ["PGPASSWORD": "env", "PGPASSFILE": "/nonexistent"]) == "env")
        #expect(t.password(environment: ["PGPASSFILE": "/nonexistent"]) == nil)
        let file = "# comment\nother:5432:shop:ann:no\ndb:*:shop:ann:pa\\:ss\n*:*:*:*:fallback\n"
        #expect(PGTarget.passFileLookup(file, target: t) == "pa:ss")
        #expect(PGTarget.passFileLookup(file, target: PGTarget(user: "bo", host: "x", port: 1, database: "y")) == "fallback")
        #expect(t.display == "ann@db:5432/shop")
    }
}

@Suite struct PGSQLNameTests {
    @Test func publicTablesAreUnqualifiedOthersQualifiedAndQuotedWhenNeeded() {
        #expect(PostgresSource.sqlName(schema: "public", name: "orders") == "orders")
        #expect(PostgresSource.sqlName(schema: "sales", name: "Order Lines") == "sales.\"Order Lines\"")
        #expect(SQLNames.identifier("2024") == "\"2024\"")
        #expect(SQLNames.identifier("a\"b") == "\"a\"\"b\"")
    }
}
