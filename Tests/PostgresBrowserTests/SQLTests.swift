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

    @Test func typesAndSortExpressionsFollowTheProtocolOrder() {
        #expect(id.type == .integer && price.type == .decimal && name.type == .text && tags.type == .text)
        #expect(id.sortExpression == "\"id\"")
        #expect(name.sortExpression == "\"name\" COLLATE \"C\"")  // text by bytes
        #expect(tags.sortExpression == "(\"tags\"::text) COLLATE \"C\"")
        #expect(price.parameter(3) == "$3::numeric(10,2)")
        #expect(name.parameter(2) == "$2::text COLLATE \"C\"")
    }

    @Test func orderByPutsNullsFirstAscendingAndLastDescendingThenTheKey() throws {
        let asc = try PGSQL.orderTerms([SortKey("name", .ascending)], columns: columns, identity: identity)
        #expect(asc.map(\.sql) == ["\"name\" COLLATE \"C\" ASC NULLS FIRST", "\"id\" ASC"])
        let desc = try PGSQL.orderTerms([SortKey("name", .descending)], columns: columns, identity: identity)
        #expect(desc.map(\.sql) == ["\"name\" COLLATE \"C\" DESC NULLS LAST", "\"id\" DESC"])
        let byID = try PGSQL.orderTerms([SortKey("id", .descending)], columns: columns, identity: identity)
        #expect(byID.map(\.sql) == ["\"id\" DESC"])  // the key is not repeated
        #expect(throws: RPCError.self) { try PGSQL.orderTerms([SortKey("nope", .ascending)], columns: columns, identity: identity) }
    }

    @Test func keysetOfNotNullKeysIsARowComparison() throws {
        let terms = try PGSQL.orderTerms([SortKey("price", .ascending)], columns: columns, identity: identity)
        let a = PGSQL.after(terms, ["9.50", "7"], first: 2)
        #expect(a.sql == "(\"price\", \"id\") > ($2::numeric(10,2), $3::integer)")
        #expect(a.binds == ["9.50", "7"])
    }

    @Test func keysetOfANullableKeySpellsOutTheNullOrder() throws {
        let asc = try PGSQL.orderTerms([SortKey("name", .ascending)], columns: columns, identity: identity)
        let n = "\"name\" COLLATE \"C\""
        // After a NULL name ascending: the other NULL names with a greater id, then every name.
        let fromNull = PGSQL.after(asc, [nil, "4"])
        #expect(fromNull.sql == "((\(n) IS NOT NULL) OR (\(n) IS NULL AND \"id\" > $1::integer))")
        #expect(fromNull.binds == ["4"])
        let desc = try PGSQL.orderTerms([SortKey("name", .descending)], columns: columns, identity: identity)
        // After "bob" descending: smaller names and the NULLs (last), then "bob" with smaller ids.
        let fromBob = PGSQL.after(desc, ["bob", "4"])
        #expect(fromBob.sql == "(((\(n) < $1::text COLLATE \"C\" OR \(n) IS NULL)) OR (\(n) = $2::text COLLATE \"C\" AND \"id\" < $3::integer))")
        #expect(fromBob.binds == ["bob", "bob", "4"])
        // After a NULL descending: only NULLs with a smaller id.
        #expect(PGSQL.after(desc, [nil, "4"]).sql == "((\(n) IS NULL AND \"id\" < $1::integer))")
    }

    @Test func keysetAfterANullDescendingKeyBehindAnotherKeyNumbersOnlyTheParametersItBinds() throws {
        // [price asc, name desc, id desc] from (9.50, NULL, 4): a NULL name descending has no
        // "after" of its own; the parameters of that dropped alternative must not be numbered.
        let terms = try PGSQL.orderTerms([SortKey("price", .ascending), SortKey("name", .descending)], columns: columns, identity: identity)
        let a = PGSQL.after(terms, ["9.50", nil, "4"])
        let n = "\"name\" COLLATE \"C\""
        #expect(a.sql == "((\"price\" > $1::numeric(10,2)) OR (\"price\" = $2::numeric(10,2) AND \(n) IS NULL AND \"id\" < $3::integer))")
        #expect(a.binds == ["9.50", "9.50", "4"])
    }

    @Test func filterMatchesEveryCellsTextLiterally() {
        #expect(PGSQL.filter(columns: [id, name], parameter: 1) == "(\"id\"::text ILIKE $1 OR \"name\"::text ILIKE $1)")
        #expect(PGSQL.containsPattern("50%_a\\b") == "%50\\%\\_a\\\\b%")
        #expect(PGSQL.quote("my \"t\"") == "\"my \"\"t\"\"\"")
    }

    @Test func cellsAndRowIDs() {
        #expect(PGTable.cell(.integer, "42") == .int(42))
        #expect(PGTable.cell(.decimal, "2.5") == .double(2.5))
        #expect(PGTable.cell(.decimal, "NaN") == .string("NaN"))
        #expect(PGTable.cell(.bool, "true") == .bool(true))
        #expect(PGTable.cell(.text, nil) == .null)
        #expect(PGTable.rowID(["7"]) == "7")
        #expect(PGTable.rowID(["a", "1"]) == "[\"a\",\"1\"]")
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
