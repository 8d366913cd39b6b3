import Foundation
import SeededRandom
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// The spool answers `find` (PROTOCOL.md 11.15) for the plugins it spools: the first row in the
/// view's look order holding the text, by the filter's rule, at the spool's speed (issue 28).
@Suite struct SpoolFindTests {
    let folder = TempFolder()
    let schema = SpoolSchema(tableName: "t1", columns: testColumns)
    static let states = ["todo", "doing", "done"]

    /// Row i: a name with repeats and case changes, a number with nulls, a state, no day, a flag.
    static func cells(_ i: Int, _ rng: inout SplitMix) -> [JSONValue] {
        let names = ["Ada", "bob", "BOB", "Cy", "dee"]
        return [rng.below(7) == 0 ? .null : .string(names[rng.below(names.count)] + String(rng.below(20))),
                rng.below(5) == 0 ? .null : .int(Int64(rng.below(300))), .string(states[rng.below(3)]), .null, .bool(rng.below(2) == 0)]
    }

    func filled(_ count: Int, seed: UInt64) throws -> SpoolFile {
        var rng = SplitMix(seed: seed)
        let file = try SpoolFile(path: folder.path + "/f\(seed)")
        try file.create(schema)
        let rows = (0..<count).map { Row(id: "r\($0)", cells: Self.cells($0, &rng)) }
        _ = try file.insert(rows, into: schema)
        return file
    }

    /// The answer a naive scan of the view's pages gives.
    func naive(_ file: SpoolFile, _ request: FindRequest, filter: RowKeep?) throws -> (Int, String, Bool)? {
        let view = try file.page(schema, sort: request.sort, offset: 0, limit: 1 << 20, filter: filter)
        let needle = request.text.lowercased()
        for (part, range) in request.positions(count: view.count).enumerated() {
            for p in request.backward ? Array(range.reversed()) : Array(range) {
                let cells = view[p]["cells"]?.arrayValue ?? []
                let hit = cells.contains { cell in
                    switch cell {
                    case .string(let s): s.lowercased().contains(needle)
                    case .int(let n): String(n).contains(needle)
                    case .bool(let b): String(b).contains(needle)
                    default: false
                    }
                }
                if hit { return (p, view[p]["id"]?.stringValue ?? "?", part > 0) }
            }
        }
        return nil
    }

    @Test func findAgreesWithAScanOfThePagesInEveryOrderAndFilter() throws {
        let file = try filled(400, seed: 7)
        var rng = SplitMix(seed: 99)
        let sorts: [[SortKey]] = [[], [SortKey("name")], [SortKey("n", .descending), SortKey("name")], [SortKey("state"), SortKey("flag", .descending)]]
        let texts = ["bob", "ADA1", "7", "true", "zzz", "dee19", "o"]
        for round in 0..<300 {
            let sort = sorts[rng.below(sorts.count)]
            let filter: RowKeep? = switch rng.below(3) {
            case 0: nil
            case 1: RowKeep(text: "b")
            default: RowKeep(where: [WhereCondition("n", .less, [.int(150)])])
            }
            let request = FindRequest(table: "root", text: texts[rng.below(texts.count)], from: rng.below(450),
                                      backward: rng.below(2) == 0, wrap: rng.below(2) == 0, sort: sort,
                                      filter: filter?.text, where: filter?.where ?? [], generation: 3)
            // Every other round reads a sorted, unfiltered view through a materialized order.
            var order: String?
            if filter == nil, !sort.isEmpty, round % 2 == 0 {
                order = "o\(round)"
                try file.materialize(schema, sort, name: order!)
            }
            let found = try file.find(schema, request, orderTable: order, filter: filter) { false }
            let expected = try naive(file, request, filter: filter)
            #expect(found.map { "\($0.offset) \($0.id.stringValue ?? "?") \($0.wrapped)" } == expected.map { "\($0.0) \($0.1) \($0.2)" },
                    "round \(round): \(request.json)")
        }
    }

    @Test func aCancelledSearchStops() throws {
        let file = try filled(SpoolFile.findStride + 10, seed: 3)
        #expect(throws: SpoolError.cancelled(table: "t1")) {
            try file.find(schema, FindRequest(table: "root", text: "no such text", from: 0, wrap: true), orderTable: nil, filter: nil) { true }
        }
        // Not asked to stop, the same search ends not found.
        #expect(try file.find(schema, FindRequest(table: "root", text: "no such text", from: 0, wrap: true), orderTable: nil, filter: nil) { false } == nil)
    }

    @Test func theRouterAnnouncesFindAndAnswersOnceEveryRowIsIn() throws {
        let wire = Wire()
        let r = SpoolRouter(folder: folder.path + "/router", send: { _, m in wire.send(m) }, deliver: { _, m in wire.deliver(m) })
        _ = r.outgoing(.request(id: .int(1), method: "initialize", params: [:]), tab: "s")
        _ = feed(r, .response(id: .int(1), result: ["name": "x", "version": "1", "protocolVersion": 1,
                                                   "capabilities": ["sort": false, "paging": false]]))
        guard case .response(.int(1), let hello)? = wire.delivered.first else { Issue.record("no handshake"); return }
        #expect(try InitializeResult(hello).capabilities.find)
        let columns: JSONValue = .array(testColumns.map(\.json))
        _ = r.outgoing(.request(id: .int(2), method: "open", params: ["args": [:]]), tab: "s")
        _ = feed(r, .response(id: .int(2), result: ["table": "root", "columns": columns]))
        let ask = FindRequest(table: "root", text: "ADA", from: 2, wrap: true, sort: [SortKey("n", .descending)], generation: 4)
        #expect(r.outgoing(.request(id: .int(3), method: "find", params: ask.json), tab: "s"))
        r.drain()
        #expect(wire.answer(3) == nil)  // rows still arriving
        guard let sid = wire.sent.compactMap({ m -> RequestID? in
            if case .request(let id, "rows", _) = m, SpoolIDs.isSpool(id) { id } else { nil }
        }).first else { Issue.record("no stream request"); return }
        let rows: JSONValue = [row("a", ["ada", 1, "todo", nil, true]), row("b", ["bob", 5, "done", nil, false]),
                               row("c", ["Ada", 3, "doing", nil, nil]), row("d", ["cy", nil, "todo", nil, true])]
        _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows]))
        _ = feed(r, .response(id: sid, result: ["generation": 1, "offset": 0, "rows": [], "total": 4]))
        r.drain()
        // n descending, nulls the smallest: b(5) c(3) a(1) d(null); from position 2 (a) on.
        let answer = try FindResult(try #require(wire.answer(3)))
        #expect(answer == FindResult(generation: 4, offset: 2, row: "a"))
        // A bad condition is refused, naming the member.
        let bad = FindRequest(table: "root", text: "x", from: 0, where: [WhereCondition("nope", .equal, [.int(1)])])
        #expect(r.outgoing(.request(id: .int(4), method: "find", params: bad.json), tab: "s"))
        r.drain()
        let refused = wire.delivered.contains { if case .failure(.int(4), let e) = $0 { e.code == RPCError.invalidParams } else { false } }
        #expect(refused)
    }
}
