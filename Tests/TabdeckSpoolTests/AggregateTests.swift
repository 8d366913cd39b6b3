import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// The spool answers `aggregate` (PROTOCOL.md 11.12) for the plugins it spools: group counts
/// of the rows under the view's filters, as a table of its own that it pages, sorts, filters
/// and closes like any other.
@Suite struct AggregateTests {
    let folder = TempFolder()
    let wire = Wire()
    static let states = ["todo", "doing", "done"]

    /// The cells of row i of the test table (n, name, amount, day, state, flag).
    static func cells(_ i: Int) -> [JSONValue] {
        [.int(Int64(i)), .string("w\(i % 4)"), i % 5 == 0 ? .null : .double(Double(i % 7) + 0.5),
         .string(String(format: "2024-%02d-%02d", 1 + i % 3, 1 + i % 9)), .string(states[i * 7 % 3]), .bool(i % 2 == 0)]
    }
    static let columns: JSONValue = [
        ["id": "n", "type": "integer"], ["id": "name", "title": "Name"], ["id": "amount", "type": "decimal"],
        ["id": "day", "type": "date"], ["id": "state", "title": "State", "type": "enum", "values": ["todo", "doing", "done"]],
        ["id": "flag", "type": "bool"],
    ]
    static let count = 30

    /// A router whose tab `s` (a streaming plugin) did the handshake and opened `root`.
    func opened() -> SpoolRouter {
        let wire = self.wire
        let r = SpoolRouter(folder: folder.path, send: { _, m in wire.send(m) }, deliver: { _, m in wire.deliver(m) })
        _ = r.outgoing(.request(id: .int(1), method: "initialize", params: [:]), tab: "s")
        let caps: JSONValue = ["sort": false, "paging": false]
        _ = feed(r, .response(id: .int(1), result: ["name": "x", "version": "1", "protocolVersion": 1, "capabilities": caps]))
        _ = r.outgoing(.request(id: .int(2), method: "open", params: ["args": [:]]), tab: "s")
        _ = feed(r, .response(id: .int(2), result: ["table": "root", "title": "T", "columns": Self.columns, "total": .int(Int64(Self.count))]))
        return r
    }

    /// Streams every row of the table to the router (after the requests sent so far).
    func stream(_ r: SpoolRouter) {
        guard let sid = wire.sent.compactMap({ m -> RequestID? in
            if case .request(let id, "rows", _) = m, SpoolIDs.isSpool(id) { id } else { nil }
        }).first else { Issue.record("no stream request"); return }
        let rows: JSONValue = .array((0..<Self.count).map { row("r\($0)", Self.cells($0)) })
        _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows]))
        _ = feed(r, .response(id: sid, result: ["generation": 1, "offset": 0, "rows": [], "total": .int(Int64(Self.count))]))
        r.drain()
    }

    func aggregate(_ id: Int64, _ group: [AggregateGroup], filter: String? = nil, where clause: WhereClause = [],
                   table: String = "root") -> Message {
        .request(id: .int(id), method: "aggregate", params: AggregateRequest(table: table, filter: filter, where: clause, group: group).json)
    }

    func page(_ id: Int64, _ table: String, offset: Int = 0, limit: Int = 100, sort: [SortKey] = [], filter: String? = nil) -> Message {
        .request(id: .int(id), method: "rows", params: RowsRequest(table: table, offset: offset, limit: limit, sort: sort,
                                                                   filter: filter, generation: 1).json)
    }

    func cellsOf(_ id: Int64) -> [[JSONValue]] {
        guard case .object(let o)? = wire.answer(id), case .array(let rows)? = o["rows"] else { return [] }
        return rows.map { if case .object(let r) = $0, case .array(let c)? = r["cells"] { c } else { [] } }
    }

    func failure(_ id: Int64) -> RPCError? {
        for m in wire.delivered { if case .failure(.int(id), let e) = m { return e } }
        return nil
    }

    @Test func theSpoolAnnouncesAggregate() throws {
        _ = opened()
        guard case .response(.int(1), let result)? = wire.delivered.first else { Issue.record("no handshake"); return }
        #expect(try InitializeResult(result).capabilities.aggregate)
    }

    /// Counts by hand: state × flag over the rows with `where`, in the natural order.
    @Test func anAggregateWaitsForEveryRowThenCountsInTheNaturalOrder() throws {
        let r = opened()
        let clause = [WhereCondition("n", .less, [.int(25)])]
        #expect(r.outgoing(aggregate(3, [AggregateGroup("state"), AggregateGroup("flag")], where: clause), tab: "s"))
        r.drain()
        #expect(wire.answer(3) == nil)  // waits for every row
        stream(r)
        guard let answer = wire.answer(3) else { Issue.record("no answer: \(wire.delivered)"); return }
        let result = try AggregateResult(answer)
        let handle = result.description.table
        #expect(handle.hasPrefix("spool-agg-"))
        #expect(result.description.columns.map(\.id) == ["state", "flag", "count", "percent", "cumulative"])
        #expect(result.description.columns[0].type == .enumeration(Self.states) && result.description.columns[0].title == "State")
        #expect(result.description.title == "T › State › flag")
        // The independent count.
        var counts: [[Int]: Int] = [:]
        for i in 0..<25 { counts[[i * 7 % 3, i % 2 == 0 ? 1 : 0], default: 0] += 1 }
        let expected = counts.sorted { a, b in a.value != b.value ? a.value > b.value : a.key.lexicographicallyPrecedes(b.key) }
        #expect(result.rows == 25 && result.largest == expected[0].value && result.description.total == expected.count)
        #expect(result.bins.isEmpty)
        // Its rows, from the spool: natural order, percent and cumulative.
        #expect(r.outgoing(page(4, handle), tab: "s"))
        r.drain()
        var running = 0
        let want: [[JSONValue]] = expected.map { k, v in
            running += v
            return [.string(Self.states[k[0]]), .bool(k[1] == 1), .int(Int64(v)), .double(Double(v) * 100 / 25),
                    .double(Double(running) * 100 / 25)]
        }
        #expect(cellsOf(4) == want)
        if case .object(let o)? = wire.answer(4) { #expect(o["total"] == .int(Int64(expected.count))) }
        // Pages, sorts and filters of the aggregate table are the spool's; never the plugin's.
        let sentBefore = wire.sent.count
        #expect(r.outgoing(page(5, handle, offset: 1, limit: 2), tab: "s"))
        #expect(r.outgoing(page(6, handle, sort: [SortKey("count"), SortKey("state", .descending)]), tab: "s"))
        #expect(r.outgoing(page(7, handle, filter: "doing"), tab: "s"))
        r.drain()
        #expect(cellsOf(5) == Array(want[1..<3]))
        let ascending = want.enumerated().sorted { a, b in
            let (x, y) = (a.element[2].intValue!, b.element[2].intValue!)
            if x != y { return x < y }
            let (s, t) = (Self.states.firstIndex(of: a.element[0].stringValue!)!, Self.states.firstIndex(of: b.element[0].stringValue!)!)
            return s != t ? s > t : a.offset < b.offset
        }.map(\.element)
        #expect(cellsOf(6) == ascending)
        #expect(cellsOf(7) == want.filter { $0[0] == "doing" })
        // `close` drops it, and is not the plugin's business.
        #expect(r.outgoing(.notification(method: "close", params: ["table": .string(handle)]), tab: "s"))
        #expect(wire.sent.count == sentBefore)
        #expect(!r.outgoing(page(8, handle), tab: "s"))  // no longer the spool's
        r.removeAll()
    }

    /// Bins by the protocol's rule, worked out by hand: n 0…29 in at most 4 bins is a width of
    /// 10 (29 / 4 = 7.25; 2.5 is no width of an integer column); days of January to March in at
    /// most 3 bins are months. Nulls are a group of their own, smallest among equal counts.
    @Test func binsNumbersAndDatesAndCountsNulls() throws {
        let r = opened()
        stream(r)
        #expect(r.outgoing(aggregate(3, [AggregateGroup("n", bins: 4)]), tab: "s"))
        #expect(r.outgoing(aggregate(4, [AggregateGroup("day", bins: 3)], filter: "w1"), tab: "s"))
        #expect(r.outgoing(aggregate(5, [AggregateGroup("amount", bins: 100)]), tab: "s"))
        r.drain()
        let byN = try AggregateResult(wire.answer(3) ?? .null)
        #expect(byN.bins == ["n": .width("10")] && byN.rows == 30 && byN.largest == 10)
        #expect(r.outgoing(page(6, byN.description.table), tab: "s"))
        let byDay = try AggregateResult(wire.answer(4) ?? .null)
        #expect(byDay.bins == ["day": .unit(.month)] && byDay.rows == 8)   // name "w1": i % 4 == 1
        #expect(r.outgoing(page(7, byDay.description.table), tab: "s"))
        let byAmount = try AggregateResult(wire.answer(5) ?? .null)
        #expect(byAmount.bins.isEmpty)   // 7 distinct values: no bins
        #expect(r.outgoing(page(8, byAmount.description.table), tab: "s"))
        r.drain()
        #expect(cellsOf(6).map { [$0[0], $0[1]] } == [[0, 10], [10, 10], [20, 10]])
        var months: [Int: Int] = [:]
        for i in 0..<30 where i % 4 == 1 { months[1 + i % 3, default: 0] += 1 }
        let wantMonths = months.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        #expect(cellsOf(7).map { [$0[0], $0[1]] } == wantMonths.map { [.string(String(format: "2024-%02d-01", $0.key)), .int(Int64($0.value))] })
        var amounts: [Double?: Int] = [:]
        for i in 0..<30 { amounts[i % 5 == 0 ? nil : Double(i % 7) + 0.5, default: 0] += 1 }
        let wantAmounts = amounts.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            switch (a.key, b.key) { case (nil, _): return true; case (_, nil): return false; case let (x?, y?): return x < y }
        }
        #expect(cellsOf(8).map { [$0[0], $0[1]] } == wantAmounts.map { [$0.key.map { .double($0) } ?? .null, .int(Int64($0.value))] })
        r.removeAll()
    }

    @Test func badRequestsAreErrorsThatNameTheField() throws {
        let r = opened()
        stream(r)
        #expect(r.outgoing(aggregate(3, [AggregateGroup("nope")]), tab: "s"))
        #expect(r.outgoing(aggregate(4, [AggregateGroup("n"), AggregateGroup("name", bins: 3)]), tab: "s"))
        #expect(r.outgoing(aggregate(5, [AggregateGroup("n")], where: [WhereCondition("n", .equal, ["abc"])]), tab: "s"))
        #expect(r.outgoing(aggregate(6, [AggregateGroup("n")], table: "gone"), tab: "s"))
        #expect(r.outgoing(.request(id: .int(7), method: "aggregate", params: ["table": "root", "group": []]), tab: "s"))
        r.drain()
        #expect(failure(3)?.code == RPCError.invalidParams && failure(3)?.message.contains("params.group[0].column") == true)
        #expect(failure(4)?.code == RPCError.invalidParams && failure(4)?.message.contains("params.group[1].bins") == true)
        #expect(failure(5)?.code == RPCError.invalidParams && failure(5)?.message.contains("params.where[0].value") == true)
        #expect(failure(6)?.code == RPCError.unknownTable)
        #expect(failure(7)?.code == RPCError.invalidParams && failure(7)?.message.contains("params.group") == true)
        r.removeAll()
    }

    @Test func aWaitingAggregateCanBeCancelledAndFailsWithTheStream() throws {
        let r = opened()
        #expect(r.outgoing(aggregate(3, [AggregateGroup("state")]), tab: "s"))
        #expect(r.outgoing(aggregate(4, [AggregateGroup("state")]), tab: "s"))
        #expect(r.outgoing(.notification(method: "$/cancel", params: ["id": 3]), tab: "s"))
        guard let sid = wire.sent.compactMap({ m -> RequestID? in
            if case .request(let id, "rows", _) = m { id } else { nil }
        }).first else { Issue.record("no stream"); return }
        _ = feed(r, .failure(id: sid, error: RPCError(code: -32603, message: "disk on fire")))
        r.drain()
        #expect(wire.answer(3) == nil && failure(3) == nil)
        #expect(failure(4)?.message.contains("disk on fire") == true)
        r.removeAll()
    }

    @Test func countingPastTheLimitOfGroupsIsAnError() throws {
        let file = try SpoolFile(path: folder.path + "/g")
        let schema = SpoolSchema(tableName: "t1", columns: [ColumnSpec(id: "n", type: .integer)])
        try file.create(schema)
        _ = try file.insert((0..<10).map { Row(id: "r\($0)", cells: [.int(Int64($0 % 5))]) }, into: schema)
        #expect(try file.groups(schema, filter: nil, indexes: [0], limit: 5).groups.count == 5)
        #expect(throws: SpoolError.tooManyGroups(4, table: "t1")) { try file.groups(schema, filter: nil, indexes: [0], limit: 4) }
        // A filter and a condition: n ≥ 2 among the rows whose text holds "3" or whatever passes.
        let kept = try file.groups(schema, filter: RowKeep(text: "3", where: [WhereCondition("n", .greaterOrEqual, [.int(2)])]), indexes: [0])
        #expect(kept.rows == 2 && kept.groups == [Group(cells: [.int(3)], count: 2)])
        file.remove()
    }

    /// A number is one group however it is written (`3`, `3.0`, `"3.00"`, `"-0"` = `0`), as
    /// a database's `GROUP BY` counts it; text is grouped exactly.
    @Test func numbersGroupByValueNotByHowTheyAreWritten() throws {
        let file = try SpoolFile(path: folder.path + "/n")
        let schema = SpoolSchema(tableName: "t1", columns: [ColumnSpec(id: "x", type: .decimal), ColumnSpec(id: "s")])
        try file.create(schema)
        let cells: [[JSONValue]] = [[.int(3), "a"], [.double(3.0), "A"], [.string("3.00"), "a"], [.string("-0"), "a "],
                                    [.int(0), "a"], [.string("0.10"), "a"], [.double(0.1), "a"], [.null, "a"]]
        _ = try file.insert(cells.enumerated().map { Row(id: "r\($0.offset)", cells: $0.element) }, into: schema)
        let byX = try file.groups(schema, filter: nil, indexes: [0]).groups
        // A double is its shortest text (0.1), as `where x = 0.1` sees it: the drill-down of a
        // group finds exactly its rows.
        #expect(byX == [Group(cells: [.int(3)], count: 3), Group(cells: [.string("-0")], count: 2),
                        Group(cells: [.string("0.10")], count: 2), Group(cells: [.null], count: 1)])
        #expect(try file.groups(schema, filter: nil, indexes: [1]).groups.map(\.count) == [6, 1, 1])
        file.remove()
    }
}
