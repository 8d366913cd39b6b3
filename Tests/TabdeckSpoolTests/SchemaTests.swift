import Testing
import TabdeckProtocol
@testable import TabdeckSpool

let testColumns: [ColumnSpec] = [
    ColumnSpec(id: "name", type: .text), ColumnSpec(id: "n", type: .integer),
    ColumnSpec(id: "state", type: .enumeration(["todo", "doing", "done"])), ColumnSpec(id: "day", type: .date),
    ColumnSpec(id: "flag", type: .bool),
]

@Suite struct SchemaTests {
    let schema = SpoolSchema(tableName: "t1", columns: testColumns)

    @Test func dateAndEnumColumnsGetAKeyColumn() {
        #expect(schema.createSQL == "CREATE TABLE t1(seq INTEGER PRIMARY KEY, id TEXT NOT NULL, section TEXT, detail TEXT, children INTEGER, c0, c1, c2, k2, c3, k3, c4)")
        #expect(schema.insertColumns == ["seq", "id", "section", "detail", "children", "c0", "c1", "c2", "k2", "c3", "k3", "c4"])
    }

    @Test func orderTermsUseKeysAndEndWithArrivalOrder() throws {
        #expect(try schema.orderTerms([]) == ["seq ASC"])
        #expect(try schema.orderTerms([SortKey("state", .descending), SortKey("name")]) == ["k2 DESC", "c0 ASC", "seq ASC"])
        #expect(try schema.orderTerms([SortKey("day"), SortKey("flag", .descending), SortKey("n")]) == ["k3 ASC", "c4 DESC", "c1 ASC", "seq ASC"])
    }

    @Test func unknownColumnIsAnErrorNamingIt() {
        #expect(throws: SpoolError.unknownColumn("salary", table: "t1")) { try schema.orderTerms([SortKey("salary")]) }
    }

    @Test func naturalOrderPagesBySeqAndSortedPagesByOffset() throws {
        #expect(try schema.pageSQL([]) == "SELECT id, section, detail, children, c0, c1, c2, c3, c4 FROM t1 WHERE seq > ?2 ORDER BY seq LIMIT ?1")
        #expect(try schema.pageSQL([SortKey("n", .descending)]) == "SELECT id, section, detail, children, c0, c1, c2, c3, c4 FROM t1 ORDER BY c1 DESC, seq ASC LIMIT ?1 OFFSET ?2")
        let order = try schema.orderTableSQL([SortKey("state")], name: "t1_o1")
        #expect(order.last == "INSERT INTO t1_o1(seq) SELECT seq FROM t1 ORDER BY k2 ASC, seq ASC")
    }

    @Test func idsNeverCollideWithTheCoresOrTheSupervisors() {
        var ids = SpoolIDs()
        let a = ids.allocate(), b = ids.allocate()
        #expect(a == .string("spool-1") && b == .string("spool-2"))
        #expect(SpoolIDs.isSpool(a))
        #expect(!SpoolIDs.isSpool(.int(1)))
        #expect(!SpoolIDs.isSpool(.string("shutdown")))
    }

    @Test func dateKeysAreChronologicalAcrossZones() {
        #expect(ISODateTime("1970-01-02")?.millis == 86_400_000)
        #expect(ISODateTime("2024-05-01T09:30:00Z")?.millis == ISODateTime("2024-05-01T11:30:00+02:00")?.millis)
        #expect(ISODateTime("2024-05-01T09:30:00.250Z")!.millis - ISODateTime("2024-05-01T09:30:00Z")!.millis == 250)
        #expect(ISODateTime("2024-02-30")?.millis == nil)
        #expect(ISODateTime("soon")?.millis == nil)
    }

    @Test func pageRoutingRules() {
        let natural = RowsRequest(table: "root", offset: 100, limit: 100)
        let sorted = RowsRequest(table: "root", offset: 0, limit: 100, sort: [SortKey("n")])
        #expect(PageRoute.decide(natural, pluginPages: true, fill: .idle, arrived: 0) == .forward)
        #expect(PageRoute.decide(sorted, pluginPages: true, fill: .idle, arrived: 0) == .wait)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .filling, arrived: 199) == .wait)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .filling, arrived: 200) == .answer)
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .filling, arrived: 1_000_000) == .wait)
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .complete, arrived: 3) == .answer)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .failed("gone"), arrived: 300) == .fail("gone"))
        #expect(OrderPolicy.materialize(offset: 1000, rows: 100_000))
        #expect(!OrderPolicy.materialize(offset: 100, rows: 100_000))
        #expect(!OrderPolicy.materialize(offset: 5000, rows: 10_000))
    }
}
