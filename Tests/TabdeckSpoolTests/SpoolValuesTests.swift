import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// The spool's sort with the column rules of PROTOCOL.md 10.2 and 10.3: exact numbers sent as
/// text, `nulls: largest`, `order: casefold`, and `order: source` never sorted.
@Suite struct SpoolValuesTests {
    let folder = TempFolder()

    func filled(_ columns: [ColumnSpec], _ cells: [JSONValue]) throws -> (SpoolFile, SpoolSchema) {
        let schema = SpoolSchema(tableName: "t1", columns: columns)
        let file = try SpoolFile(path: folder.path + "/v-\(UUID().uuidString)")
        try file.create(schema)
        _ = try file.insert(typed(cells.enumerated().map { row("r\($0.offset)", [$0.element]) }), into: schema)
        return (file, schema)
    }

    /// The cells of column 0 in `sort` order, by the top-N heap (a small page of many rows),
    /// by sorting every row, and through a materialized order: all three must agree.
    func sorted(_ file: SpoolFile, _ schema: SpoolSchema, _ direction: SortDirection = .ascending) throws -> [JSONValue] {
        let sort = [SortKey(schema.columns[0].id, direction)]
        let n = file.count(schema)
        func cells(_ page: [JSONValue]) -> [JSONValue] { page.map { $0["cells"]?.arrayValue?.first ?? "?" } }
        let all = cells(try file.page(schema, sort: sort, offset: 0, limit: n))
        var heap: [JSONValue] = []
        for offset in 0..<n { heap += cells(try file.page(schema, sort: sort, offset: offset, limit: 1)) }
        #expect(heap == all, "the heap's order")
        let name = "t1_o\(direction.rawValue)"
        try file.materialize(schema, sort, name: name)
        #expect(cells(try file.page(schema, sort: sort, offset: 0, limit: n, orderTable: name)) == all, "the materialized order")
        return all
    }

    @Test func numberTextsSortAsNumbersAmongJSONNumbersExactly() throws {
        let column = ColumnSpec(id: "x", type: .decimal)
        // In the expected ascending order, shuffled below; equal values keep arrival order.
        let ascending: [JSONValue] = [
            nil, "-Infinity", -1e300, "-123456789012345678901234567890", -2, "-1.5", "-0", 0, "0.00", 0.1,
            "0.10000000000000001", "2.5", 3, "3.00", 3.0, "959.50", "123456789012.12345678", "123456789012.12345679",
            "1234444433332222.44434321", "1234444433332222.44434322", 9_007_199_254_740_992, "9007199254740993",
            "123456789012345678901234567890", 1e300, "Infinity", "NaN", "", "12 apples", "nan",
        ]
        let order = [17, 3, 25, 0, 9, 21, 12, 5, 28, 14, 1, 19, 7, 23, 10, 26, 2, 15, 22, 6, 18, 11, 27, 4, 13, 20, 8, 24, 16]
        #expect(Set(order) == Set(ascending.indices))
        // Equal values ("-0", 0, "0.00"; 3, "3.00", 3.0) arrive in this order in the shuffle too.
        let arrivals = order.map { ascending[$0] }
        let (file, schema) = try filled([column], arrivals)
        defer { file.remove() }
        let tied: Set<Int> = [6, 7, 8, 12, 13, 14]
        let expected = ascending.indices.sorted { i, j in
            if tied.contains(i) && tied.contains(j) && (i < 9) == (j < 9) {
                return order.firstIndex(of: i)! < order.firstIndex(of: j)!
            }
            return i < j
        }.map { ascending[$0] }
        #expect(try sorted(file, schema) == expected)
        // Descending reverses the order, ties still by arrival.
        let down = try sorted(file, schema, .descending)
        #expect(down.first == "nan" && down[3] == "NaN" && down[4] == "Infinity" && down.last == .null)
    }

    @Test func integersPast64BitsSortAsNumbers() throws {
        let column = ColumnSpec(id: "n", type: .integer)
        let cells: [JSONValue] = ["123456789012345678901234567890", .int(Int64.max), "-123456789012345678901234567890",
                                  "9223372036854775808", -5, "123456789012345678901234567889", "1.5", .int(Int64.min), "-9223372036854775809"]
        let (file, schema) = try filled([column], cells)
        defer { file.remove() }
        #expect(try sorted(file, schema) == [
            "-123456789012345678901234567890", "-9223372036854775809", .int(Int64.min), -5, .int(Int64.max),
            "9223372036854775808", "123456789012345678901234567889", "123456789012345678901234567890",
            "1.5",  // no integer's text: a text, after every number
        ])
    }

    @Test func aNumberTextComesBackAndIsFilteredAsSent() throws {
        let (file, schema) = try filled([ColumnSpec(id: "x", type: .decimal, decimals: 2)], ["3.00", 3, "959.50", "-0"])
        defer { file.remove() }
        #expect(try file.page(schema, sort: [], offset: 0, limit: 10).map { $0["cells"]?.arrayValue?.first ?? .null } == ["3.00", 3, "959.50", "-0"])
        func kept(_ text: String) throws -> [String] {
            try file.page(schema, sort: [], offset: 0, limit: 10, filter: RowKeep(text: text)).compactMap { $0["id"]?.stringValue }
        }
        #expect(try kept("3.00") == ["r0"])
        #expect(try kept("50") == ["r2"])
        #expect(try kept("-0") == ["r3"])
    }

    @Test func nullsLargestSortLastAscendingAndFirstDescending() throws {
        for type in [ColumnType.decimal, .text, .date] {
            let column = ColumnSpec(id: "x", type: type, nulls: .largest)
            let values: [JSONValue] = type == .decimal ? [2, "1.5", 3] : ["2024-05-02", "2024-05-01", "2024-05-03"]
            let (file, schema) = try filled([column], [values[0], nil, values[1], nil, values[2]])
            defer { file.remove() }
            #expect(try sorted(file, schema) == [values[1], values[0], values[2], nil, nil], "\(type)")
            #expect(try sorted(file, schema, .descending) == [nil, nil, values[2], values[0], values[1]], "\(type)")
        }
        // Undeclared: smallest, as before.
        let (file, schema) = try filled([ColumnSpec(id: "x", type: .integer)], [2, nil, 1])
        defer { file.remove() }
        #expect(try sorted(file, schema) == [nil, 1, 2])
        #expect(try sorted(file, schema, .descending) == [2, 1, nil])
    }

    @Test func aCasefoldColumnSortsWithASCIICaseFolded() throws {
        let column = ColumnSpec(id: "x", type: .text, order: .casefold)
        let long = "prefix-shared-"
        let cells: [JSONValue] = ["b", "A", "a", "B", "_", .string(long + "B"), .string(long + "a"), "É", "é", .string(long + "A")]
        let (file, schema) = try filled([column], cells)
        defer { file.remove() }
        // `_` (0x5F) is between `Z` and `a` by bytes, before both letters once they are folded;
        // only ASCII folds (`É` stays before `é`); equal texts folded keep arrival order.
        #expect(try sorted(file, schema) == ["_", "A", "a", "b", "B", .string(long + "a"), .string(long + "A"), .string(long + "B"), "É", "é"])
        let (plain, plainSchema) = try filled([ColumnSpec(id: "x", type: .text)], cells)
        defer { plain.remove() }
        #expect(try sorted(plain, plainSchema).prefix(3) == ["A", "B", "_"])
    }

    @Test func aSourceOrderColumnIsNeverSortedBytheSpool() throws {
        let schema = SpoolSchema(tableName: "t1", columns: [ColumnSpec(id: "ip", order: .source), ColumnSpec(id: "n", type: .integer)])
        #expect(throws: SpoolError.sourceOrder("ip", table: "t1")) { try schema.sortColumns([SortKey("n"), SortKey("ip")]) }
        #expect("\(SpoolError.sourceOrder("ip", table: "t1"))".contains("column \"ip\""))
        #expect(try schema.sortColumns([SortKey("n")]).count == 1)
    }
}

/// The router offers no sort by a column in its source's own order for a plugin it sorts for.
@Suite struct SpoolSourceOrderRouterTests {
    let folder = TempFolder()
    let wire = Wire()

    @Test func aSourceOrderColumnIsMarkedNotSortableAndASortByItIsRefused() throws {
        let r = SpoolRouter(folder: folder.path, send: { [wire] _, m in wire.send(m) }, deliver: { [wire] _, m in wire.deliver(m) })
        _ = r.outgoing(.request(id: .int(1), method: "initialize", params: [:]), tab: "s")
        let caps: JSONValue = ["sort": false, "paging": false]
        #expect(feed(r, .response(id: .int(1), result: ["name": "x", "version": "1", "protocolVersion": 1, "capabilities": caps])))
        #expect(!r.outgoing(.request(id: .int(2), method: "open", params: ["args": [:]]), tab: "s"))
        let description: JSONValue = ["table": "root", "columns": [["id": "ip", "order": "source"], ["id": "n", "type": "integer"]], "total": 2]
        #expect(feed(r, .response(id: .int(2), result: description)))
        guard case .response(.int(2), let seen)? = wire.delivered.last else { Issue.record("no description"); return }
        let columns = try TableDescription(seen).columns
        #expect(columns.map(\.sortable) == [false, true] && columns[0].order == .source)
        // A request sorted by it all the same (a sort kept from before) is refused, naming it.
        let request = RowsRequest(table: "root", offset: 0, limit: 10, sort: [SortKey("ip")], generation: 1)
        #expect(r.outgoing(.request(id: .int(3), method: "rows", params: request.json), tab: "s"))
        guard case .request(let sid, "rows", _)? = wire.sent.last else { Issue.record("no stream request"); return }
        #expect(feed(r, .response(id: sid, result: ["generation": 1, "offset": 0, "rows": [row("a", ["10.0.0.1", 1])], "total": 1])))
        r.drain()
        let failure = wire.delivered.compactMap { if case .failure(.int(3), let e) = $0 { e } else { nil } }.first
        #expect(failure?.code == RPCError.invalidParams && failure?.message.contains("\"ip\"") == true, "\(String(describing: failure))")
        // A plugin that sorts itself gets its description unchanged.
        #expect(SpoolRouter.withoutSourceSorts(["table": "t", "columns": [["id": "ip", "sortable": false, "order": "source"]]]) == nil)
    }
}
