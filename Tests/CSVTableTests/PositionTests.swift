import Testing
@testable import CSVTable

/// `position(ofRow:)` answers the protocol's `locate`: where a row is in a sorted, filtered view,
/// the same view `page` serves.
@Suite struct PositionTests {
    @Test func aRowsPositionIsWherePageServesIt() throws {
        var text = "id,name,amount\n"
        for i in 0..<500 { text += "\(i),name\((i * 7919) % 500),\((i * 31) % 97)\n" }
        let file = TempFile(text)
        let t = try CSVTable(path: file.path)
        for (sort, filter) in [([CSVSortKey](), nil as String?), ([CSVSortKey(column: 1)], nil),
                               ([CSVSortKey(column: 2, descending: true), CSVSortKey(column: 0)], nil),
                               ([CSVSortKey(column: 1, descending: true)], "9"), ([], "42")] {
            let order = try t.page(offset: 0, limit: 1000, sort: sort, filter: filter).rows
            for row in [0, 17, 250, 499] {
                #expect(try t.position(ofRow: row, sort: sort, filter: filter) == order.firstIndex(of: row),
                        "row \(row), sort \(sort), filter \(filter ?? "none")")
            }
        }
        #expect(try t.position(ofRow: 500) == nil)
        #expect(try t.position(ofRow: -1) == nil)
        #expect(try t.position(ofRow: 1, filter: "no such text") == nil)
        t.close()
    }
}
