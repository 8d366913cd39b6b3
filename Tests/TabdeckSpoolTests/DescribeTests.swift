import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// The spool answers `describe` (PROTOCOL.md 11.13) for the plugins it spools: statistics of
/// every column under the view's filters, as a table of its own. Checked against statistics
/// worked out here from the generated cells (``AggregateTests/cells(_:)``).
@Suite struct DescribeTests {
    let base = AggregateTests()
    var wire: Wire { base.wire }

    func describe(_ id: Int64, filter: String? = nil, where clause: WhereClause = [], table: String = "root") -> Message {
        .request(id: .int(id), method: "describe", params: DescribeRequest(table: table, filter: filter, where: clause).json)
    }

    func percentile(_ s: [Double], _ p: Double) -> Double {
        let pos = p * Double(s.count - 1)
        let lo = Int(pos), hi = min(lo + 1, s.count - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - Double(lo))
    }

    @Test func theSpoolAnnouncesDescribe() throws {
        _ = base.opened()
        guard case .response(.int(1), let result)? = wire.delivered.first else { Issue.record("no handshake"); return }
        #expect(try InitializeResult(result).capabilities.describe)
    }

    /// Waits for every row, then describes the rows `where n < 25` with "w1" in a cell.
    @Test func aDescribeWaitsForEveryRowThenDescribesTheKeptRows() throws {
        let r = base.opened()
        #expect(r.outgoing(describe(3, filter: "w1", where: [WhereCondition("n", .less, [.int(25)])]), tab: "s"))
        r.drain()
        #expect(wire.answer(3) == nil)  // waits for every row
        base.stream(r)
        guard case .object(let o)? = wire.answer(3) else { Issue.record("no answer: \(wire.delivered)"); return }
        let description = try TableDescription(.object(o))
        #expect(description.table.hasPrefix("spool-desc-") && description.total == 6 && description.title == "T › describe")
        #expect(description.columns.map(\.id) == DescribeRequest.columns.map(\.id))
        #expect(o["estimates"] == nil)
        #expect(r.outgoing(base.page(4, description.table), tab: "s"))
        r.drain()
        let rows = base.cellsOf(4)
        #expect(rows.count == 6)
        // The independent statistics of the kept rows: i < 25 and i % 4 == 1.
        let kept = (0..<25).filter { $0 % 4 == 1 }
        let ns = kept.map(Double.init)
        let n = rows[0]
        #expect(Array(n[0..<7]) == ["n", "integer", .int(Int64(kept.count)), 0, .int(Int64(kept.count)),
                                     .string(String(kept.first!)), .string(String(kept.last!))])
        let mean = ns.reduce(0, +) / Double(ns.count)
        #expect(n[7] == .double(mean))
        #expect(n[10] == .string(String(Int(percentile(ns, 0.5)))))
        // amount: null when i % 5 == 0, else i % 7 + 0.5.
        let amounts = kept.filter { $0 % 5 != 0 }.map { Double($0 % 7) + 0.5 }
        let amount = rows[2]
        #expect(amount[2] == .int(Int64(amounts.count)) && amount[3] == .int(Int64(kept.count - amounts.count)))
        #expect(amount[4] == .int(Int64(Set(amounts).count)))
        #expect(amount[5] == .string("\(amounts.min()!)") && amount[6] == .string("\(amounts.max()!)"))
        // state: the most frequent value, the smallest (in the enum's order) of those tied.
        var states: [Int: Int] = [:]
        for i in kept { states[i * 7 % 3, default: 0] += 1 }
        let top = states.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }!
        #expect(rows[4][12] == .string(AggregateTests.states[top.key]) && rows[4][13] == .int(Int64(top.value)))
        #expect(rows[4][1] == "enum" && rows[4][0] == "State")
        // day: dates, percentiles by instant, shown as dates.
        let days = kept.map { String(format: "2024-%02d-%02d", 1 + $0 % 3, 1 + $0 % 9) }.sorted()
        #expect(rows[3][5] == .string(days.first!) && rows[3][6] == .string(days.last!))
        // The describe table is the spool's: close is not the plugin's business.
        let sentBefore = wire.sent.count
        #expect(r.outgoing(.notification(method: "close", params: ["table": .string(description.table)]), tab: "s"))
        #expect(wire.sent.count == sentBefore)
        r.removeAll()
    }

    @Test func pastTheLimitsTheEstimatesAreNamed() throws {
        let r = base.opened()
        r.describeLimits = .init(distinct: 4, numbers: 8)
        base.stream(r)
        #expect(r.outgoing(describe(3), tab: "s"))
        r.drain()
        let result = try #require(wire.answer(3))
        guard case .object(let o) = result, case .array(let estimates)? = o["estimates"] else { Issue.record("\(result)"); return }
        #expect(estimates == ["distinct", "p25", "median", "p75", "top", "topCount", "histogram"])
        r.removeAll()
    }

    @Test func badRequestsAreErrors() throws {
        let r = base.opened()
        base.stream(r)
        #expect(r.outgoing(describe(3, where: [WhereCondition("n", .equal, ["abc"])]), tab: "s"))
        #expect(r.outgoing(describe(4, table: "gone"), tab: "s"))
        r.drain()
        #expect(base.failure(3)?.code == RPCError.invalidParams && base.failure(3)?.message.contains("params.where[0].value") == true)
        #expect(base.failure(4)?.code == RPCError.unknownTable)
        r.removeAll()
    }
}
