import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import PostgresBrowser

/// The query of `find` (PROTOCOL.md 11.15), checked without a server (its answers against a
/// real one: Scripts/pg.d/find_test.py, run by Scripts/test-postgres).
@Suite struct FindSQLTests {
    let id = PGColumn(name: "id", sqlType: "integer", notNull: true)
    let name = PGColumn(name: "name", sqlType: "text", notNull: false)
    var identity: [PGOrderTerm] { [PGOrderTerm(expression: "\"id\"", castFormat: "$n::integer", descending: false, notNull: true)] }

    func sql(backward: Bool, wrap: Bool) throws -> String {
        let terms = try PGSQL.orderTerms([SortKey("name", .descending)], columns: [id, name], identity: identity)
        return PGSQL.find(source: "\"public\".\"t\"", order: terms.map(\.sql), keys: ["(\"id\")::text"],
                          hit: PGSQL.filter(columns: [id, name], parameter: 2), conditions: ["\"name\" IS NOT NULL"], from: 3,
                          backward: backward, wrap: wrap)
    }

    @Test func oneScanInTheOrderOfRowsWithTheLookOrderOfTheDirection() throws {
        let inner = "SELECT row_number() OVER (ORDER BY \"name\" DESC, \"id\" DESC) - 1 AS tabdeck_pos, (\"id\")::text AS tabdeck_k0,"
            + " (\"id\"::text ILIKE $2 OR \"name\"::text ILIKE $2) AS tabdeck_hit FROM \"public\".\"t\" WHERE (\"name\" IS NOT NULL)"
        let head = "SELECT tabdeck_pos::text AS tabdeck_at, tabdeck_k0 FROM (\(inner)) AS tabdeck_s WHERE tabdeck_hit"
        #expect(try sql(backward: false, wrap: false) == head + " AND tabdeck_pos >= $3::bigint ORDER BY tabdeck_pos LIMIT 1")
        #expect(try sql(backward: false, wrap: true) == head + " ORDER BY (tabdeck_pos < $3::bigint), tabdeck_pos LIMIT 1")
        #expect(try sql(backward: true, wrap: false) == head + " AND tabdeck_pos <= $3::bigint ORDER BY tabdeck_pos DESC LIMIT 1")
        #expect(try sql(backward: true, wrap: true) == head + " ORDER BY (tabdeck_pos > $3::bigint), tabdeck_pos DESC LIMIT 1")
    }

    @Test func theSourceDeclaresFind() {
        #expect(PostgresSource(environment: [:]).capabilities.find)
    }
}
