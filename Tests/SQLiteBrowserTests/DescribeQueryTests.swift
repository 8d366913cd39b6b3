import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

/// `describe` (PROTOCOL.md 11.13) and `query` (11.14) against answers computed here, in Swift,
/// from the generated values (not from SQLite, not from ``ColumnSummary``).
@Suite struct DescribeQueryTests {
    static let names = ["Ada", "ada", "Zoë", "Åre", "B", "é", "Ada"]

    struct Item { var id: Int; var name: String?; var qty: Int?; var price: Double?; var day: Int? }

    /// 120 rows: NULLs, ties, non-ASCII text, decimals in cents, negative integers, dates.
    static let items: [Item] = (1...120).map { i in
        Item(id: i, name: i % 10 == 0 ? nil : names[i % names.count], qty: i % 7 == 0 ? nil : (i * 37) % 50 - 10,
             price: i % 11 == 0 ? nil : Double((i * 13) % 1000) / 100, day: i % 9 == 0 ? nil : (i * 5) % 400)
    }

    static func dayText(_ d: Int) -> String {
        let date = Date(timeIntervalSince1970: 1_704_067_200 + Double(d) * 86_400)
        return ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
    }

    func database() throws -> TempDatabase {
        try TempDatabase { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL, day DATE)")
            for it in Self.items {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                               arguments: [it.id, it.name, it.qty, it.price, it.day.map(Self.dayText)])
            }
        }
    }

    func open(_ db: TempDatabase, table: String? = "t") throws -> SQLiteSource {
        let source = SQLiteSource()
        var args: JSONObject = ["path": .string(db.path)]
        if let table { args["table"] = .string(table) }
        _ = try source.open(args: .object(args))
        return source
    }

    func allRows(_ source: SQLiteSource, _ table: String, sort: [SortKey] = [], where clause: WhereClause = []) throws -> [TabdeckProtocol.Row] {
        try source.rows(RowsRequest(table: table, offset: 0, limit: 10_000, sort: sort, where: clause, generation: 1),
                        cancel: CancellationFlag()).rows
    }

    // MARK: Independent statistics

    func percentile(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        let rank = p * Double(s.count - 1)
        let below = Int(rank), frac = rank - Double(below)
        return below + 1 < s.count ? s[below] * (1 - frac) + s[below + 1] * frac : s[below]
    }

    func sampleStddev(_ xs: [Double]) -> Double {
        let m = xs.reduce(0, +) / Double(xs.count)
        return (xs.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(xs.count - 1)).squareRoot()
    }

    /// The most frequent value and its count, the smallest by `less` among ties.
    func mode<T: Hashable>(_ xs: [T], _ less: (T, T) -> Bool) -> (T, Int) {
        var counts: [T: Int] = [:]
        for x in xs { counts[x, default: 0] += 1 }
        let best = counts.values.max()!
        return (counts.filter { $0.value == best }.keys.sorted(by: less)[0], best)
    }

    func histogram(_ xs: [Double]) -> String {
        let lo = xs.min()!, hi = xs.max()!
        var bins = [0, 0, 0, 0, 0, 0, 0, 0]
        for x in xs { bins[min(7, Int((x - lo) * 8 / (hi - lo)))] += 1 }
        return bins.map(String.init).joined(separator: " ")
    }

    func number(_ cell: JSONValue) -> Double? {
        switch cell {
        case .int(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s)
        default: nil
        }
    }

    func close(_ a: JSONValue, _ b: Double) -> Bool { number(a).map { abs($0 - b) <= 1e-9 * max(1, abs(b)) } ?? false }

    func checkNumbers(_ row: TabdeckProtocol.Row, _ xs: [Double], nulls: Int, text: ((Double) -> String)?) {
        let c = row.cells
        #expect(c[2] == .int(Int64(xs.count)))
        #expect(c[3] == .int(Int64(nulls)))
        #expect(c[4] == .int(Int64(Set(xs).count)))
        #expect(close(c[5], xs.min()!) && close(c[6], xs.max()!))
        if let text { #expect(c[5] == .string(text(xs.min()!)) && c[6] == .string(text(xs.max()!))) }
        #expect(close(c[7], xs.reduce(0, +) / Double(xs.count)))
        #expect(close(c[8], sampleStddev(xs)))
        #expect(close(c[9], percentile(xs, 0.25)))
        #expect(close(c[10], percentile(xs, 0.5)))
        #expect(close(c[11], percentile(xs, 0.75)))
        let (top, count) = mode(xs, <)
        #expect(close(c[12], top))
        #expect(c[13] == .int(Int64(count)))
        #expect(c[14] == .string(histogram(xs)))
    }

    func checkDescribe(_ source: SQLiteSource, where clause: WhereClause, keep: (Item) -> Bool) throws {
        let described = try source.describe(DescribeRequest(table: "root", where: clause), cancel: CancellationFlag()).json
        let d = try TableDescription(described, path: "result")
        #expect(d.columns.map(\.id) == DescribeRequest.columns.map(\.id))
        #expect(d.total == 5)
        let rows = try allRows(source, d.table)
        #expect(rows.map(\.id) == ["id", "name", "qty", "price", "day"])
        let kept = Self.items.filter(keep)
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })

        // Integers and decimals.
        let qty = kept.compactMap(\.qty).map(Double.init)
        #expect(byID["qty"]!.cells[0] == .string("qty") && byID["qty"]!.cells[1] == .string("integer"))
        checkNumbers(byID["qty"]!, qty, nulls: kept.count - qty.count) { String(Int($0)) }
        let price = kept.compactMap(\.price)
        #expect(byID["price"]!.cells[1] == .string("decimal"))
        checkNumbers(byID["price"]!, price, nulls: kept.count - price.count, text: nil)

        // Text: by Unicode scalars, no numbers.
        let names = kept.compactMap(\.name)
        let byScalars: (String, String) -> Bool = { $0.unicodeScalars.map(\.value).lexicographicallyPrecedes($1.unicodeScalars.map(\.value)) }
        let n = byID["name"]!.cells
        #expect(n[1] == .string("text"))
        #expect(n[2] == .int(Int64(names.count)) && n[3] == .int(Int64(kept.count - names.count)))
        #expect(n[4] == .int(Int64(Set(names).count)))
        #expect(n[5] == .string(names.sorted(by: byScalars).first!) && n[6] == .string(names.sorted(by: byScalars).last!))
        #expect(Array(n[7...11]) == [.null, .null, .null, .null, .null] && n[14] == .null)
        let (topName, topCount) = mode(names, byScalars)
        #expect(n[12] == .string(topName) && n[13] == .int(Int64(topCount)))

        // Dates: percentiles by instant, histogram.
        let days = kept.compactMap(\.day).map(Double.init)
        let dc = byID["day"]!.cells
        #expect(dc[1] == .string("date"))
        #expect(dc[2] == .int(Int64(days.count)) && dc[4] == .int(Int64(Set(days).count)))
        #expect(dc[5] == .string(Self.dayText(Int(days.min()!))) && dc[6] == .string(Self.dayText(Int(days.max()!))))
        #expect(dc[7] == .null && dc[8] == .null)
        for (k, p) in [(9, 0.25), (10, 0.5), (11, 0.75)] {
            let expected = (1_704_067_200 + percentile(days, p) * 86_400) * 1000
            guard case .string(let s) = dc[k], let t = ISODateTime(s) else { Issue.record("p\(p): \(dc[k])"); continue }
            #expect(abs(Double(t.millis) - expected) <= 1, "p\(p): \(s)")
        }
        let (topDay, topDayCount) = mode(days, <)
        #expect(dc[12] == .string(Self.dayText(Int(topDay))) && dc[13] == .int(Int64(topDayCount)))
        #expect(dc[14] == .string(histogram(days)))
        source.close(table: d.table)
        #expect(throws: RPCError.self) { try allRows(source, d.table) }
    }

    @Test func describeAllRows() throws {
        let db = try database()
        try checkDescribe(try open(db), where: []) { _ in true }
    }

    @Test func describeUnderWhere() throws {
        let db = try database()
        let clause = [WhereCondition("qty", .greaterOrEqual, [.int(0)]), WhereCondition("name", .notNull)]
        try checkDescribe(try open(db), where: clause) { ($0.qty ?? -1) >= 0 && $0.name != nil }
    }

    // MARK: query

    @Test func queryGroupsLikeSwift() throws {
        let db = try database()
        let source = try open(db, table: nil)
        let d = try source.query(QueryRequest(sql: "SELECT name, count(*) AS n, sum(qty) AS s, avg(price) AS p FROM t GROUP BY name"),
                                 cancel: CancellationFlag())
        #expect(d.columns.map(\.id) == ["name", "n", "s", "p"])
        #expect(d.columns.map(\.type) == [.text, .integer, .integer, .decimal])
        var groups: [String?: [Item]] = [:]
        for it in Self.items { groups[it.name, default: []].append(it) }
        #expect(d.total == groups.count)
        let rows = try allRows(source, d.table, sort: [desc("n"), asc("name")])
        #expect(rows.count == groups.count)
        for row in rows {
            let key: String? = if case .string(let s) = row.cells[0] { s } else { nil }
            let g = groups[key]!
            #expect(row.cells[1] == .int(Int64(g.count)))
            let qs = g.compactMap(\.qty)
            #expect(row.cells[2] == (qs.isEmpty ? .null : .int(Int64(qs.reduce(0, +)))))
            let ps = g.compactMap(\.price)
            #expect(close(row.cells[3], ps.reduce(0, +) / Double(ps.count)))
        }
        let counts = rows.map { row -> Int64 in if case .int(let n) = row.cells[1] { n } else { -1 } }
        #expect(counts == counts.sorted(by: >))
        // `where` on the result.
        let big = try allRows(source, d.table, where: [WhereCondition("n", .greater, [.int(15)])])
        #expect(big.count == groups.values.filter { $0.count > 15 }.count)
        // describe on the result.
        let desc = try source.describe(DescribeRequest(table: d.table), cancel: CancellationFlag()).description
        #expect(desc.total == 4)
    }

    @Test func queryWithCTE() throws {
        let db = try database()
        let source = try open(db, table: nil)
        let d = try source.query(QueryRequest(sql: "  -- the ids\nWITH x AS (SELECT id FROM t WHERE id % 3 = 0) SELECT id FROM x"),
                                 cancel: CancellationFlag())
        let rows = try allRows(source, d.table)
        #expect(rows.map(\.cells) == Self.items.filter { $0.id % 3 == 0 }.map { [.int(Int64($0.id))] })
    }

    @Test func writesAreRefused() throws {
        let db = try database()
        let source = try open(db, table: nil)
        let before = try Data(contentsOf: URL(fileURLWithPath: db.path))
        let attempts = [
            "INSERT INTO t (id) VALUES (1000)",
            "ATTACH DATABASE '\(db.folder)/other.sqlite' AS other",
            "CREATE TABLE u (x)",
            "DELETE FROM t",
            "SELECT 1; DELETE FROM t",
            "WITH x AS (SELECT 1) DELETE FROM t",
            "PRAGMA query_only = OFF",
            "select 1; drop table t",
        ]
        for sql in attempts {
            do {
                _ = try source.query(QueryRequest(sql: sql), cancel: CancellationFlag())
                Issue.record("\(sql) was run")
            } catch let error as RPCError {
                #expect(error.code == RPCError.invalidParams, "\(sql): \(error)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db.path)) == before)
        #expect(!FileManager.default.fileExists(atPath: db.folder + "/other.sqlite"))
        let count = try DatabaseQueue(path: db.path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }
        #expect(count == Self.items.count)
    }

    @Test func errorsCarrySQLitesMessageAndPosition() throws {
        let db = try database()
        let source = try open(db, table: nil)
        do {
            _ = try source.query(QueryRequest(sql: "SELECT nme FROM t"), cancel: CancellationFlag())
            Issue.record("ran")
        } catch let error as RPCError {
            #expect(error.code == RPCError.invalidParams)
            #expect(error.message.contains("no such column: nme"), "\(error.message)")
            #expect(error.data?["position"] == .int(8), "\(String(describing: error.data))")
        }
        do {
            // FRM is the 15th character (the 16th byte: é takes two).
            _ = try source.query(QueryRequest(sql: "SELECT 'é', * FRM t"), cancel: CancellationFlag())
            Issue.record("ran")
        } catch let error as RPCError {
            #expect(error.code == RPCError.invalidParams)
            #expect(error.message.contains("syntax error"), "\(error.message)")
            #expect(error.data?["position"] == .int(15), "\(String(describing: error.data))")
        }
    }
}
