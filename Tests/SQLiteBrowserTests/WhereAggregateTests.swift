import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

/// `where` (PROTOCOL.md 11.11) and `aggregate` (11.12) against independent answers: the
/// reference rule `Where.matches` over every row, and counts made with a dictionary.
@Suite struct WhereAggregateTests {
    static let names = ["Ada", "ada", "Zoë", "Åre", "B", "a", "é", "x'); DROP TABLE items;--", "50%_off"]

    /// 300 rows with NULLs in every column but the key, ties, non-ASCII text, decimals in
    /// cents, negative integers, dates over 400 days, timestamps and booleans.
    func items() throws -> TempDatabase {
        try TempDatabase { db in
            try db.execute(sql: """
                CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL, day DATE, at TIMESTAMP,
                                    flag BOOLEAN, note TEXT COLLATE NOCASE)
                """)
            for i in 1...300 {
                let day = Calendar(identifier: .gregorian).date(byAdding: .day, value: (i * 5) % 400,
                                                                    to: Date(timeIntervalSince1970: 1_704_067_200))!
                let dayText = ISO8601DateFormatter.string(from: day, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
                let args: [DatabaseValueConvertible?] = [
                    i, i % 13 == 0 ? nil : Self.names[i % Self.names.count],
                    i % 7 == 0 ? nil : (i * 37) % 50 - 10,
                    i % 11 == 0 ? nil : Double((i * 13) % 1000) / 100,
                    i % 9 == 0 ? nil : dayText,
                    i % 8 == 0 ? nil : "2024-03-0\(1 + i % 3) \(10 + i % 12):\(i % 6)0:00",
                    i % 5 == 0 ? nil : i % 2,
                    ["alpha", "Beta", "beta", "Gamma"][i % 4],
                ]
                try db.execute(sql: "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?)", arguments: StatementArguments(args.map { $0?.databaseValue ?? .null }))
            }
        }
    }

    /// Every row's id and cells, in the natural order.
    func everything(_ table: BrowsedTable) throws -> [TabdeckProtocol.Row] {
        try table.page(offset: 0, limit: 1000, sort: []).rows
    }

    /// Conditions of every operator on every column, with values taken from the data and a
    /// few that are not in it (another scale, another zone, a value between rows).
    func conditions(_ rows: [TabdeckProtocol.Row], _ columns: [ColumnSpec]) -> [WhereCondition] {
        var out: [WhereCondition] = []
        for (k, spec) in columns.enumerated() where spec.id != "id" {
            var values = Array(Set(rows.map { $0.cells[k] }.filter { $0 != .null }).sorted { JSONWriter.string($0) < JSONWriter.string($1) }
                .enumerated().filter { $0.offset % 7 == 0 }.map(\.element).prefix(4))
            switch spec.type {
            case .integer: values += [.string("3"), .int(-10), .string("123456789012345678901234567890")]
            case .decimal: values += [.string("1.30"), .double(4.5), .int(7), .string("Infinity")]
            case .date: values += [.string("2024-06-01T12:00:00+02:00"), .string("2024-03-01T10:00:00Z"), .string("2024-03-02 11:10")]
            case .text: values += [.string("ada"), .string("ADA"), .string("Zoe"), .string("beta")]
            case .bool: values = [.bool(true), .bool(false)]
            default: break
            }
            for v in values {
                // A NOCASE column compares in its own order (its sort's), not the reference's bytes: below.
                let ordered: [WhereOperator] = spec.order == .casefold ? [] : [.less, .lessOrEqual, .greater, .greaterOrEqual]
                for op in [WhereOperator.equal, .notEqual] + ordered {
                    out.append(WhereCondition(spec.id, op, [v]))
                }
            }
            if values.count >= 2 && spec.order != .casefold {
                out.append(WhereCondition(spec.id, .between, [values[0], values[1]]))
                out.append(WhereCondition(spec.id, .between, [values[1], values[0]]))
                out.append(WhereCondition(spec.id, .in, Array(values.prefix(3))))
            }
            out.append(WhereCondition(spec.id, .null))
            out.append(WhereCondition(spec.id, .notNull))
        }
        return out
    }

    @Test func everyOperatorOnEveryColumnMatchesTheReferenceRule() throws {
        let db = try items()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "items")
        let columns = table.columnSpecs
        #expect(columns.map(\.type) == [.integer, .text, .integer, .decimal, .date, .date, .bool, .text])
        let all = try everything(table)
        #expect(all.count == 300)
        var checked = 0, nonTrivial = 0
        for c in conditions(all, columns) {
            let expected = all.filter { Where.matches($0.cells, columns: columns, [c]) }.map(\.id)
            let got = try table.page(offset: 0, limit: 1000, sort: [], where: [c]).rows.map(\.id)
            #expect(got == expected, "\(c)")
            checked += 1
            if !expected.isEmpty && expected.count < all.count { nonTrivial += 1 }
        }
        #expect(checked > 150 && nonTrivial > 100)
        // Two conditions and the text filter together, sorted, paged.
        let two: WhereClause = [WhereCondition("qty", .between, [.int(0), .int(20)]), WhereCondition("flag", .equal, [.bool(true)])]
        let expected = all.filter { Where.matches($0.cells, columns: columns, two) && $0.cells[7] != .null
            && JSONWriter.string($0.cells[7]).lowercased().contains("eta") }
        let sorted = expected.sorted { a, b in
            let c = GroupTable.compare(a.cells[2], b.cells[2], columns[2])
            return c != 0 ? c > 0 : Int(a.id)! > Int(b.id)!
        }.map(\.id)
        var paged: [String] = []
        while true {
            let page = try table.page(offset: paged.count, limit: 7, sort: [desc("qty")], filter: "ETA", where: two)
            paged += page.rows.map(\.id)
            if page.rows.count < 7 { break }
        }
        #expect(paged == sorted && !sorted.isEmpty)
    }

    @Test func betweenIsInclusiveAndTextIsExact() throws {
        let db = try items()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "items")
        func ids(_ c: WhereCondition) throws -> Set<Int> {
            Set(try table.page(offset: 0, limit: 1000, where: [c]).rows.map { Int($0.id)! })
        }
        #expect(try ids(WhereCondition("id", .between, [.int(10), .int(12)])) == [10, 11, 12])
        #expect(try ids(WhereCondition("id", .between, [.int(12), .int(10)])) == [])
        #expect(try ids(WhereCondition("id", .in, [.int(3), .string("5"), .int(999)])) == [3, 5])
        // Case and accents count; NOCASE or not, `=` is by bytes.
        let ada = try ids(WhereCondition("name", .equal, [.string("ada")]))
        #expect(!ada.isEmpty && ada.allSatisfy { $0 % 13 != 0 && $0 % 9 == 1 })
        #expect(try ids(WhereCondition("note", .equal, [.string("beta")])) == Set((1...300).filter { $0 % 4 == 2 }))
        #expect(try ids(WhereCondition("note", .in, [.string("BETA")])) == [])
        // Decimals exactly: 1.30 = 1.3 (i * 13 % 1000 = 130: i = 10, 610…, 410…).
        #expect(try ids(WhereCondition("price", .equal, [.string("1.30")])) == Set((1...300).filter { $0 % 11 != 0 && ($0 * 13) % 1000 == 130 }))
        // A date alone is its midnight UTC; a zone moves the instant.
        let day = try ids(WhereCondition("day", .equal, [.string("2024-01-06")]))
        #expect(day == Set((1...300).filter { $0 % 9 != 0 && ($0 * 5) % 400 == 5 }))
        #expect(try ids(WhereCondition("day", .equal, [.string("2024-01-06T02:00:00+02:00")])) == day)
        // Ordered comparisons on a NOCASE column follow its sort: "Beta" is not < "b" there.
        #expect(try ids(WhereCondition("note", .less, [.string("b")])) == Set((1...300).filter { $0 % 4 == 0 }))
        #expect(try ids(WhereCondition("note", .between, [.string("B"), .string("beta")])) == Set((1...300).filter { $0 % 4 == 1 || $0 % 4 == 2 }))
        // NULL meets only `null`: not `!=`, not `in`.
        let notAda = try ids(WhereCondition("name", .notEqual, [.string("Ada")]))
        #expect(notAda.allSatisfy { $0 % 13 != 0 })
        #expect(try ids(WhereCondition("name", .null)) == Set((1...300).filter { $0 % 13 == 0 }))
    }

    @Test func valuesAndColumnIdsCannotInjectSQL() throws {
        let db = try items()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "items")
        let evil = "x'); DROP TABLE items;--"
        let hit = try table.page(offset: 0, limit: 1000, where: [WhereCondition("name", .equal, [.string(evil)])]).rows
        #expect(!hit.isEmpty && hit.allSatisfy { $0.cells[1] == .string(evil) })
        #expect(try table.page(offset: 0, limit: 1000, where: [WhereCondition("name", .in, [.string("' OR '1'='1")])]).rows.isEmpty)
        #expect(try table.page(offset: 0, limit: 1000, where: [WhereCondition("name", .equal, [.string("50%_off")])]).rows.count
                == (1...300).filter { $0 % 13 != 0 && $0 % 9 == 8 }.count)
        for column in [#"name" = name OR 1=1 --"#, "name; DROP TABLE items", "qty) OR (1=1"] {
            #expect(throws: JSONFieldError.self) { _ = try table.page(offset: 0, limit: 10, where: [WhereCondition(column, .notNull)]) }
        }
        #expect(try everything(table).count == 300)
    }

    @Test func wrongValuesAreErrorsNamingTheMember() throws {
        let db = try items()
        let source = SQLiteSource()
        _ = try source.open(args: ["path": .string(db.path), "table": "items"])
        func path(_ clause: WhereClause) -> String? {
            do { _ = try source.rows(RowsRequest(table: "root", offset: 0, limit: 5, where: clause), cancel: CancellationFlag()) }
            catch let e as JSONFieldError { return e.path } catch { return "other: \(error)" }
            return nil
        }
        #expect(path([WhereCondition("qty", .notNull), WhereCondition("qty", .equal, [.string("abc")])]) == "params.where[1].value")
        #expect(path([WhereCondition("qty", .equal, [.string("1.5")])]) == "params.where[0].value")
        #expect(path([WhereCondition("day", .in, [.string("2024-01-01"), .string("May 1st")])]) == "params.where[0].values[1]")
        #expect(path([WhereCondition("flag", .equal, [.string("yes")])]) == "params.where[0].value")
        #expect(path([WhereCondition("nope", .null)]) == "params.where[0].column")
        #expect(path([WhereCondition("qty", .equal, [.null])]) == "params.where[0].value")
        #expect(path([WhereCondition("qty", .equal, [.int(3)])]) == nil)
        #expect(source.capabilities.where && source.capabilities.aggregate)
    }

    /// The rows of an aggregate table, all of them, in the order asked.
    func groups(_ source: SQLiteSource, _ handle: String, sort: [SortKey] = [], filter: String? = nil,
                where clause: WhereClause = []) throws -> [[JSONValue]] {
        var out: [[JSONValue]] = []
        while true {
            let r = try source.rows(RowsRequest(table: handle, offset: out.count, limit: 5, sort: sort, filter: filter, where: clause),
                                    cancel: CancellationFlag())
            out += r.rows.map(\.cells)
            if r.rows.count < 5 { return out }
        }
    }

    @Test func aggregateCountsPercentAndCumulative() throws {
        let db = try items()
        let file = try DatabaseFile(path: db.path)
        let all = try everything(try file.table(named: "items"))
        let columns = try file.table(named: "items").columnSpecs
        file.close()
        let source = SQLiteSource()
        _ = try source.open(args: ["path": .string(db.path), "table": "items"])
        let clause: WhereClause = [WhereCondition("qty", .greaterOrEqual, [.int(-5)])]
        let kept = all.filter { Where.matches($0.cells, columns: columns, clause) }
        let result = try source.aggregate(AggregateRequest(table: "root", where: clause, group: [AggregateGroup("name")]),
                                          cancel: CancellationFlag())
        var expected: [JSONValue: Int] = [:]
        for r in kept { expected[r.cells[1], default: 0] += 1 }
        #expect(result.rows == kept.count && result.largest == expected.values.max())
        #expect(result.description.columns.map(\.id) == ["name", "count", "percent", "cumulative"])
        #expect(result.description.total == expected.count)
        let rows = try groups(source, result.description.table)
        #expect(rows.count == expected.count)
        var running = 0
        for (i, r) in rows.enumerated() {
            guard case .int(let n) = r[1], case .double(let p) = r[2], case .double(let cum) = r[3] else { Issue.record("\(r)"); continue }
            #expect(expected[r[0]] == Int(n))
            running += Int(n)
            #expect(abs(p - Double(n) * 100 / Double(kept.count)) < 1e-9)
            #expect(abs(cum - Double(running) * 100 / Double(kept.count)) < 1e-9)
            if i > 0 {  // count descending, then the name by bytes, null first
                guard case .int(let before) = rows[i - 1][1] else { continue }
                #expect(before > n || (before == n && GroupTable.compare(rows[i - 1][0], r[0], ColumnSpec(id: "name")) < 0))
            }
        }
        #expect(abs((rows.last.flatMap { if case .double(let d) = $0[3] { d } else { nil } } ?? 0) - 100) < 1e-9)

        // The groups table pages, sorts, filters and takes `where` itself; then `close` ends it.
        let handle = result.description.table
        let byName = try groups(source, handle, sort: [desc("name")]).map { $0[0] }
        #expect(byName == rows.map { $0[0] }.sorted { GroupTable.compare($0, $1, ColumnSpec(id: "name")) > 0 })
        let filtered = try groups(source, handle, filter: "AD").map { $0[0] }
        #expect(Set(filtered) == [.string("Ada"), .string("ada")])
        let big = try groups(source, handle, sort: [asc("count")], where: [WhereCondition("count", .greater, [.int(25)])])
        func count(_ r: [JSONValue]) -> Int64 { if case .int(let n) = r[1] { n } else { -1 } }
        let bigExpected = rows.enumerated().filter { count($0.element) > 25 }
            .sorted { count($0.element) != count($1.element) ? count($0.element) < count($1.element) : $0.offset < $1.offset }.map(\.element)
        #expect(big == bigExpected && !big.isEmpty)
        source.close(table: handle)
        #expect(throws: RPCError.unknown(table: handle)) { _ = try groups(source, handle) }
    }

    @Test func aggregateBinsIntegersDecimalsAndDates() throws {
        let db = try items()
        let file = try DatabaseFile(path: db.path)
        let all = try everything(try file.table(named: "items"))
        file.close()
        let source = SQLiteSource()
        _ = try source.open(args: ["path": .string(db.path), "table": "items"])
        func aggregate(_ group: [AggregateGroup], filter: String? = nil) throws -> (AggregateResult, [[JSONValue]]) {
            let r = try source.aggregate(AggregateRequest(table: "root", filter: filter, group: group), cancel: CancellationFlag())
            return (r, try groups(source, r.description.table))
        }
        func counts(_ rows: [[JSONValue]], columns: Int = 1) -> [[JSONValue]: Int] {
            var out: [[JSONValue]: Int] = [:]
            for r in rows { if case .int(let n) = r[columns] { out[Array(r.prefix(columns))] = Int(n) } }
            return out
        }
        // Integers: -10 … 39 in 5 bins: width 10 (whole), floor division by hand.
        let (qr, qrows) = try aggregate([AggregateGroup("qty", bins: 5)])
        #expect(qr.bins["qty"] == .width("10"))
        var q: [[JSONValue]: Int] = [:]
        for r in all {
            guard case .int(let v) = r.cells[2] else { q[[.null], default: 0] += 1; continue }
            let start = (v >= 0 ? v / 10 : -((-v + 9) / 10)) * 10
            q[[.int(start)], default: 0] += 1
        }
        #expect(counts(qrows) == q)
        // Few distinct values: no bins.
        let (fr, _) = try aggregate([AggregateGroup("qty", bins: 100)])
        #expect(fr.bins.isEmpty && fr.description.total == Set(all.map { $0.cells[2] }).count)
        // Decimals in cents, 0.00 … 9.99 in 4 bins: width 2.5, in whole cents.
        let (pr, prows) = try aggregate([AggregateGroup("price", bins: 4)])
        #expect(pr.bins["price"] == .width("2.5"))
        var p: [String: Int] = [:]
        for r in all {
            guard case .double(let v) = r.cells[3] else { p["null", default: 0] += 1; continue }
            let cents = Int((v * 100).rounded())
            p[String(format: "%.2f", Double(cents / 250 * 250) / 100), default: 0] += 1
        }
        var pGot: [String: Int] = [:]
        for r in prows {
            guard case .int(let n) = r[1] else { continue }
            let key = ExactNumber(cell: r[0], type: .decimal).flatMap { Double($0.text) }.map { String(format: "%.2f", $0) } ?? "null"
            pGot[key] = Int(n)
        }
        #expect(pGot == p)
        // Dates over 400 days: 6 bins are years, 20 bins months (date-only starts).
        for (bins, unit, prefix, suffix) in [(6, DateBinUnit.year, 4, "-01-01"), (20, .month, 7, "-01")] {
            let (dr, drows) = try aggregate([AggregateGroup("day", bins: bins)])
            #expect(dr.bins["day"] == .unit(unit))
            var d: [[JSONValue]: Int] = [:]
            for r in all {
                guard case .string(let s) = r.cells[4] else { d[[.null], default: 0] += 1; continue }
                d[[.string(String(s.prefix(prefix)) + suffix)], default: 0] += 1
            }
            #expect(counts(drows) == d)
        }
        // Timestamps over three days in 10 bins: days, as UTC timestamps.
        let (tr, trows) = try aggregate([AggregateGroup("at", bins: 10)])
        #expect(tr.bins["at"] == .unit(.day))
        var t: [[JSONValue]: Int] = [:]
        for r in all {
            guard case .string(let s) = r.cells[5] else { t[[.null], default: 0] += 1; continue }
            t[[.string(String(s.prefix(10)) + "T00:00:00Z")], default: 0] += 1
        }
        #expect(counts(trows) == t)
        // Two columns, under a filter: every combination, nulls a group of their own.
        let (mr, mrows) = try aggregate([AggregateGroup("flag"), AggregateGroup("note")], filter: "ET")
        var m: [[JSONValue]: Int] = [:]
        for r in all where JSONWriter.string(r.cells[7]).lowercased().contains("et") { m[[r.cells[6], r.cells[7]], default: 0] += 1 }
        #expect(counts(mrows, columns: 2) == m && mr.rows == m.values.reduce(0, +))
        // Errors: bins on text, an unknown column.
        #expect(throws: JSONFieldError(path: "params.group[0].bins", reason: "name is a text column; bins are for integer, decimal and date columns")) { _ = try aggregate([AggregateGroup("name", bins: 3)]) }
        #expect(throws: JSONFieldError(path: "params.group[0].column", reason: "no column \"nope\"")) { _ = try aggregate([AggregateGroup("nope")]) }
        // An aggregate of an aggregate table, and of the catalog.
        let inner = try source.aggregate(AggregateRequest(table: qr.description.table, group: [AggregateGroup("count")]),
                                         cancel: CancellationFlag())
        #expect(inner.rows == qrows.count)
    }
}
