import SeededRandom
import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

/// `find` (PROTOCOL.md 11.15): the first row from a position on (or back) holding a text, in
/// one query whose positions agree with the `rows` pages.
@Suite struct FindTests {
    /// Sorted by `n` ascending (NULL first, ties by id): positions 0…6 hold ids 3, 1, 4, 7, 2, 5, 6.
    func fruit() throws -> TempDatabase {
        try TempDatabase { db in
            try db.execute(sql: """
                CREATE TABLE fruit (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, x REAL);
                INSERT INTO fruit VALUES (1, 'apple', 10, NULL), (2, 'banana', 20, 1.5), (3, 'cherry', NULL, 2.5),
                    (4, 'apple pie', 10, NULL), (5, 'date', 30, NULL), (6, NULL, 2048, NULL), (7, 'Apple', 10, 0.5);
                """)
        }
    }

    func find(_ table: BrowsedTable, _ text: String, from: Int, backward: Bool = false, wrap: Bool = false,
              sort: [SortKey] = [asc("n")], filter: String? = nil, where clause: WhereClause = []) throws -> FoundRow? {
        try table.find(FindRequest(table: "t1", text: text, from: from, backward: backward, wrap: wrap, sort: sort,
                                   filter: filter, where: clause))
    }

    @Test func forwardAndBackward() throws {
        let db = try fruit()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let t = try file.table(named: "fruit")
        #expect(try t.page(offset: 0, limit: 10, sort: [asc("n")]).rows.map(\.id) == ["3", "1", "4", "7", "2", "5", "6"])
        #expect(try find(t, "apple", from: 0) == FoundRow(offset: 1, id: "1", wrapped: false))
        #expect(try find(t, "apple", from: 1) == FoundRow(offset: 1, id: "1", wrapped: false))  // `from` itself is looked at
        #expect(try find(t, "apple", from: 2) == FoundRow(offset: 2, id: "4", wrapped: false))
        #expect(try find(t, "APPLE", from: 3) == FoundRow(offset: 3, id: "7", wrapped: false))  // ASCII case ignored
        #expect(try find(t, "apple", from: 4) == nil)
        #expect(try find(t, "apple", from: 6, backward: true) == FoundRow(offset: 3, id: "7", wrapped: false))
        #expect(try find(t, "apple", from: 2, backward: true) == FoundRow(offset: 2, id: "4", wrapped: false))
        #expect(try find(t, "apple", from: 0, backward: true) == nil)
    }

    @Test func wrapBothWaysAndFromPastTheEnd() throws {
        let db = try fruit()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let t = try file.table(named: "fruit")
        #expect(try find(t, "apple", from: 4, wrap: true) == FoundRow(offset: 1, id: "1", wrapped: true))
        #expect(try find(t, "cherry", from: 1, wrap: true) == FoundRow(offset: 0, id: "3", wrapped: true))
        #expect(try find(t, "apple", from: 2, wrap: true) == FoundRow(offset: 2, id: "4", wrapped: false))
        #expect(try find(t, "apple", from: 0, backward: true, wrap: true) == FoundRow(offset: 3, id: "7", wrapped: true))
        #expect(try find(t, "date", from: 4, backward: true, wrap: true) == FoundRow(offset: 5, id: "5", wrapped: true))
        #expect(try find(t, "banana", from: 4, backward: true, wrap: true) == FoundRow(offset: 4, id: "2", wrapped: false))
        // Past the end: backward from the last row; forward only with wrap, from row 0.
        #expect(try find(t, "apple", from: 100, backward: true) == FoundRow(offset: 3, id: "7", wrapped: false))
        #expect(try find(t, "apple", from: 100, backward: true, wrap: true) == FoundRow(offset: 3, id: "7", wrapped: false))
        #expect(try find(t, "apple", from: 100) == nil)
        #expect(try find(t, "apple", from: 7, wrap: true) == FoundRow(offset: 1, id: "1", wrapped: true))
        #expect(try find(t, "zzz", from: 3, wrap: true) == nil)
        #expect(try find(t, "zzz", from: 3, backward: true, wrap: true) == nil)
    }

    @Test func sortedWithTiesAndNulls() throws {
        let db = try fruit()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let t = try file.table(named: "fruit")
        // Descending: NULL last, the ties on 10 by id descending: 6, 5, 2, 7, 4, 1, 3.
        let sort = [desc("n")]
        #expect(try t.page(offset: 0, limit: 10, sort: sort).rows.map(\.id) == ["6", "5", "2", "7", "4", "1", "3"])
        #expect(try find(t, "apple", from: 0, sort: sort) == FoundRow(offset: 3, id: "7", wrapped: false))
        #expect(try find(t, "apple", from: 4, sort: sort) == FoundRow(offset: 4, id: "4", wrapped: false))
        #expect(try find(t, "cherry", from: 0, sort: sort) == FoundRow(offset: 6, id: "3", wrapped: false))
        #expect(try find(t, "apple", from: 6, backward: true, sort: sort) == FoundRow(offset: 5, id: "1", wrapped: false))
        // Two keys: name descending (NULL last), then n.
        let two = [desc("name"), asc("n")]
        let ids = try t.page(offset: 0, limit: 10, sort: two).rows.map(\.id)
        #expect(ids == ["5", "3", "2", "4", "1", "7", "6"])
        #expect(try find(t, "a", from: 3, sort: two) == FoundRow(offset: 3, id: "4", wrapped: false))
        #expect(try find(t, "2048", from: 0, backward: true, wrap: true, sort: two) == FoundRow(offset: 6, id: "6", wrapped: true))
    }

    @Test func underFilterAndWhere() throws {
        let db = try fruit()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let t = try file.table(named: "fruit")
        // Filter "a": apple, apple pie, Apple, banana, date (1, 4, 7, 2, 5), positions among those kept.
        #expect(try find(t, "pie", from: 0, filter: "a") == FoundRow(offset: 1, id: "4", wrapped: false))
        #expect(try find(t, "date", from: 0, backward: true, wrap: true, filter: "a") == FoundRow(offset: 4, id: "5", wrapped: true))
        #expect(try find(t, "cherry", from: 0, wrap: true, filter: "a") == nil)
        let atLeast20 = [WhereCondition("n", .greaterOrEqual, [.int(20)])]
        #expect(try find(t, "date", from: 0, where: atLeast20) == FoundRow(offset: 1, id: "5", wrapped: false))
        #expect(try find(t, "apple", from: 0, wrap: true, where: atLeast20) == nil)
        #expect(try find(t, "an", from: 1, wrap: true, filter: "a", where: atLeast20) == FoundRow(offset: 0, id: "2", wrapped: true))
        let bad = [WhereCondition("nope", .equal, [.int(1)])]
        #expect(throws: JSONFieldError.self) { try find(t, "a", from: 0, where: bad) }  // -32602, as for rows
        #expect(throws: RPCError.self) { try find(t, "a", from: 0, sort: [asc("nope")]) }
    }

    @Test func aMatchOnlyInANumberColumn() throws {
        let db = try fruit()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let t = try file.table(named: "fruit")
        #expect(try find(t, "204", from: 0) == FoundRow(offset: 6, id: "6", wrapped: false))  // n = 2048, name NULL
        #expect(try find(t, "0.5", from: 0) == FoundRow(offset: 3, id: "7", wrapped: false))  // x = 0.5, a real
        #expect(try find(t, "30", from: 0, sort: []) == FoundRow(offset: 4, id: "5", wrapped: false))
    }

    @Test func keyedTablesAndViewsGiveTheIdsOfThePages() throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        for name in ["keyed", "pairs"] {
            let t = try file.table(named: name)
            let sort = name == "keyed" ? [asc("v")] : [asc("a")]
            let rows = try everyRow(t, sort: sort)
            let found = try #require(try find(t, "apple", from: rows.count / 2, sort: sort))
            #expect(rows[found.offset].id == found.id, "\(name)")
            #expect(rows[rows.count / 2..<found.offset].allSatisfy { !cellsHold($0.cells, "apple") }, "\(name)")
        }
    }

    /// The source: the protocol's capability, the result's generation, the tables in memory.
    @Test func theSourceAnswersFind() throws {
        let db = try fruit()
        let source = SQLiteSource()
        let opened = try source.open(args: ["path": .string(db.path), "table": "fruit"])
        #expect(source.capabilities.find)
        let cancel = CancellationFlag()
        let r = try source.find(FindRequest(table: opened.table, text: "apple", from: 4, wrap: true, sort: [asc("n")], generation: 7),
                                cancel: cancel)
        #expect(r == FindResult(generation: 7, offset: 1, row: "1", wrapped: true))
        let q = try source.query(QueryRequest(sql: "SELECT name FROM fruit ORDER BY id"), cancel: cancel)
        let m = try source.find(FindRequest(table: q.table, text: "PIE", from: 0, generation: 2), cancel: cancel)
        #expect(m == FindResult(generation: 2, offset: 3, row: "r3", wrapped: false))
        #expect(throws: RPCError.self) { try source.find(FindRequest(table: "nope", text: "a", from: 0), cancel: cancel) }
        cancel.cancel()
        #expect(throws: CancellationError.self) {
            try source.find(FindRequest(table: opened.table, text: "apple", from: 0), cancel: cancel)
        }
    }

    /// Random sorts, filters, `where`s, texts and starts on a rowid table, a WITHOUT ROWID table
    /// and a view with identical rows, against a scan of the `rows` pages (a row holds the text
    /// when the text as a filter keeps it).
    @Test func matchesAScanOfThePages() throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        var rng = SplitMix(seed: 23)
        let columns = ["mixed": ["a", "b", "c", "d"], "keyed": ["k1", "k2", "v", "w"], "pairs": ["a", "b"]]
        let texts = ["app", "APP", "9", "ZE", ".5", "b", "é", "1", "a b", "%", "nope"]
        let filters: [String?] = [nil, nil, "a", "1", "pp"]
        var compared = 0, found = 0, wrapped = 0
        for round in 0..<120 {
            let name = ["mixed", "keyed", "pairs"][round % 3]
            let t = try file.table(named: name)
            let cols = columns[name]!
            var sort: [SortKey] = []
            for _ in 0..<rng.below(3) {
                sort.append(Bool.random(using: &rng) ? asc(cols[rng.below(cols.count)]) : desc(cols[rng.below(cols.count)]))
            }
            let filter = filters[rng.below(filters.count)]
            let clause: WhereClause = switch rng.below(3) {
            case 0 where name != "keyed": [WhereCondition("a", .greater, [.int(Int64(rng.below(15)))])]
            case 1: [WhereCondition(cols[1], .notNull)]
            default: []
            }
            let rows = try everyRow(t, sort: sort, filter: filter, where: clause)
            let text = texts[rng.below(texts.count)]
            let holding = Set(try everyRow(t, sort: [], filter: text, where: clause).map(\.id))
            for _ in 0..<4 {
                let request = FindRequest(table: "t1", text: text, from: rng.below(rows.count + 3), backward: Bool.random(using: &rng),
                                          wrap: Bool.random(using: &rng), sort: sort, filter: filter, where: clause)
                let want = Self.scan(request, rows, holding)
                let got = try t.find(request)
                #expect(got == want, "\(name) \(request.json)")
                compared += 1
                if let want { found += 1; if want.wrapped { wrapped += 1 } }
            }
        }
        #expect(compared == 480)
        #expect(found > 200 && wrapped >= 10, "\(found) found, \(wrapped) of them wrapped")
    }

    /// The reference: the positions of ``FindRequest/positions(count:)`` in turn.
    static func scan(_ request: FindRequest, _ rows: [TabdeckProtocol.Row], _ holding: Set<String>) -> FoundRow? {
        for range in request.positions(count: rows.count) {
            for i in request.backward ? Array(range.reversed()) : Array(range) where holding.contains(rows[i].id) {
                return FoundRow(offset: i, id: rows[i].id, wrapped: request.backward ? i > request.from : i < request.from)
            }
        }
        return nil
    }

    func everyRow(_ t: BrowsedTable, sort: [SortKey], filter: String? = nil, where clause: WhereClause = []) throws -> [TabdeckProtocol.Row] {
        var rows: [TabdeckProtocol.Row] = []
        while true {
            let page = try t.page(offset: rows.count, limit: 500, sort: sort, filter: filter, where: clause)
            rows += page.rows
            if page.rows.isEmpty || (page.rows.count < 500 && !page.more) { return rows }
        }
    }

    func cellsHold(_ cells: [JSONValue], _ text: String) -> Bool { MemoryTable.contains(cells, text.lowercased()) }
}
