@testable import PostgresBrowser
import Testing

/// A page selects a sort key's text once: from its cell when the cell is the column's own text.
@Suite struct PageLayoutTests {
    let id = PGColumn(name: "id", sqlType: "bigint", notNull: true)
    let created = PGColumn(name: "created", sqlType: "timestamp with time zone", notNull: true)
    let address = PGColumn(name: "address", sqlType: "inet", notNull: false)

    @Test func keysThatAreCellsAreReadFromTheirCells() {
        let terms = [PGOrderTerm(created), PGOrderTerm(id)]
        let layout = PGPageLayout(terms: terms, columns: [id, created, address])
        #expect(layout.cellStart == 0)
        #expect(layout.select == ["\"id\"::text", "\"created\"::text", address.valueExpression])
        #expect(layout.keyPositions == [1, 0])
        #expect(layout.key(["7", "2025-10-26 02:30:00+02", "10.0.0.1"]) == ["2025-10-26 02:30:00+02", "7"])
    }

    @Test func otherKeysAreSelectedBeforeTheCells() {
        // An inet's cell is psql's text (no /32), not its ::text; ctid is no column at all.
        let ctid = PGOrderTerm(expression: "ctid", castFormat: "$n::tid", descending: false, notNull: true)
        let layout = PGPageLayout(terms: [PGOrderTerm(address), PGOrderTerm(id), ctid], columns: [id, address])
        #expect(layout.cellStart == 2)
        #expect(layout.select == ["(\"address\")::text", "(ctid)::text", "\"id\"::text", address.valueExpression])
        #expect(layout.keyPositions == [0, 2, 1])
        #expect(layout.key(["10.0.0.1/32", "(0,1)", "7", "10.0.0.1"]) == ["10.0.0.1/32", "7", "(0,1)"])
    }
}
