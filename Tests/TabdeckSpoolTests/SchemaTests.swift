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

    @Test func sortColumnsNameTheCellAndHowItIsKeyed() throws {
        #expect(try schema.sortColumns([]) == [])
        let columns = try schema.sortColumns([SortKey("state", .descending), SortKey("name"), SortKey("day")])
        #expect(columns.map(\.index) == [2, 0, 3])
        #expect(columns.map(\.descending) == [true, false, false])
        #expect(columns[0].keying == .ranks(["todo": 0, "doing": 1, "done": 2]))
        #expect(columns[1].keying == .plain && columns[2].keying == .date)
    }

    @Test func unknownColumnIsAnErrorNamingIt() {
        #expect(throws: SpoolError.unknownColumn("salary", table: "t1")) { try schema.sortColumns([SortKey("salary")]) }
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
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .filling, arrived: 199) == .answerSoFar)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .filling, arrived: 100) == .wait)   // its first row is not in
        let naturalScan = RowsRequest(table: "root", offset: 0, limit: 1000)
        #expect(PageRoute.decide(naturalScan, pluginPages: false, fill: .filling, arrived: 999) == .wait)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .filling, arrived: 200) == .answer)
        // A stream's first screens, sorted or filtered, show the rows so far; deeper pages and
        // scans (1,000 rows a page) wait for the end.
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .filling, arrived: 1_000_000) == .answerSoFar)
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .filling, arrived: 0) == .wait)
        // Line mode and scripts want whole tables: sorted pages wait, natural ones do not.
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .filling, arrived: 5000, soFar: false) == .wait)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .filling, arrived: 150, soFar: false) == .answerSoFar)
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .idle, arrived: 0) == .wait)
        let deep = RowsRequest(table: "root", offset: 900, limit: 100, sort: [SortKey("n")])
        #expect(PageRoute.decide(deep, pluginPages: false, fill: .filling, arrived: 5000) == .wait)
        let scan = RowsRequest(table: "root", offset: 0, limit: 1000, filter: "x")
        #expect(PageRoute.decide(scan, pluginPages: false, fill: .filling, arrived: 5000) == .wait)
        #expect(PageRoute.decide(sorted, pluginPages: true, fill: .filling, arrived: 5000) == .wait)
        #expect(PageRoute.decide(sorted, pluginPages: false, fill: .complete, arrived: 3) == .answer)
        #expect(PageRoute.decide(natural, pluginPages: false, fill: .failed("gone"), arrived: 300) == .fail("gone"))
        #expect(OrderPolicy.materialize(offset: 1000, rows: 100_000))
        #expect(!OrderPolicy.materialize(offset: 100, rows: 100_000))
        #expect(!OrderPolicy.materialize(offset: 5000, rows: 10_000))
    }
}
