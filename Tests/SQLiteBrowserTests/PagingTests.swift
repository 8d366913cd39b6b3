import SeededRandom
import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

/// 20,000 rows: `k` has 37 values and NULLs, `s` many duplicates, `n` NULLs and negatives.
func deepDatabase() throws -> TempDatabase {
    try TempDatabase { db in
        try db.execute(sql: """
            CREATE TABLE deep (k INTEGER, s TEXT, n REAL NOT NULL DEFAULT 0, m REAL);
            CREATE INDEX deep_k ON deep(k);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
            INSERT INTO deep SELECT CASE WHEN i % 11 = 0 THEN NULL ELSE i % 37 END,
                                    'w' || (i * 7919 % 613), (i * 48271 % 1000) - 500.5,
                                    CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 16807 % 300) / 3.0 END FROM c;
            """)
    }
}

@Suite struct PagingTests {
    static let orders: [[SortKey]] = [[desc("k"), asc("s")], [asc("s")], [desc("n")], [desc("m"), desc("k")], [asc("m")], []]

    @Test(arguments: orders)
    func deepPagesEqualOffsetPages(sort: [SortKey]) throws {
        let db = try deepDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "deep")
        // Walk the whole table: every page after the first comes from a keyset anchor.
        var offset = 0
        while offset < 20_000 {
            let page = try table.page(offset: offset, limit: 100, sort: sort)
            let reference = try table.page(offset: offset, limit: 100, sort: sort, mode: .offsetOnly)
            #expect(reference.plan == .offset(offset))
            #expect(page.rows == reference.rows, "page at \(offset) via \(page.plan)")
            if offset > 0 { #expect(page.plan == .keyset(anchor: offset, skip: 0)) }
            offset += 100
        }
        // The page after the last row is empty, which tells the row count.
        let end = try table.page(offset: 20_000, limit: 100, sort: sort)
        #expect(end.rows.isEmpty && end.plan == .keyset(anchor: 20_000, skip: 0))
        #expect(end.total == 20_000)
        #expect(table.cachedCount(filter: nil) == 20_000)

        // Jumps to unaligned offsets: from the nearest anchor, or from the end in reverse.
        var rng = SplitMix(seed: 7)
        var plans: [PagePlan] = []
        for _ in 0..<40 {
            let offset = Int.random(in: 0..<20_050, using: &rng), limit = Int.random(in: 1..<150, using: &rng)
            let page = try table.page(offset: offset, limit: limit, sort: sort)
            let reference = try table.page(offset: offset, limit: limit, sort: sort, mode: .offsetOnly)
            #expect(page.rows == reference.rows, "page at \(offset)+\(limit) via \(page.plan)")
            plans.append(page.plan)
        }
        #expect(plans.contains { $0.isKeyset })
    }

    @Test func reversePagesNearTheEnd() throws {
        let db = try deepDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "deep")
        file.requestCount(table: "deep", urgent: true)
        #expect(file.waitForCount(table: "deep", timeout: 10) == 20_000)
        for (offset, limit) in [(19_900, 100), (19_950, 100), (19_999, 10), (15_001, 33)] {
            let page = try table.page(offset: offset, limit: limit, sort: [desc("m"), asc("s")])
            let reference = try table.page(offset: offset, limit: limit, sort: [desc("m"), asc("s")], mode: .offsetOnly)
            #expect(page.plan.isReverse)
            #expect(page.rows == reference.rows)
            #expect(page.rows.count == min(limit, 20_000 - offset))
        }
        #expect(try table.page(offset: 20_000, limit: 10).rows.isEmpty)
    }

    @Test func longPagesAreCutOnlyWithTheCount() throws {
        let db = try deepDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "deep")
        let page = try table.page(offset: 5_000, limit: 50_000, sort: [asc("s")])
        #expect(page.rows.count == BrowsedTable.maxPageRows)
        #expect(page.total == 20_000)  // counted first: a short page alone would mean "the end"
        #expect(page.rows == (try table.page(offset: 5_000, limit: BrowsedTable.maxPageRows, sort: [asc("s")], mode: .offsetOnly)).rows)
    }

    @Test func keysetConditionShapes() {
        func t(_ e: String, _ i: Int, desc: Bool = false, notNull: Bool = false) -> OrderTerm {
            OrderTerm(expression: e, valueIndex: i, descending: desc, notNull: notNull)
        }
        let rowid = t("rowid", 0, notNull: true)
        // Same direction, no NULL in the anchor: one row-value comparison (index-friendly).
        var (sql, args) = BrowsedTable.after([t("\"a\"", 1), rowid], [5, 17])
        #expect(sql == "(\"a\", rowid) > (?, ?)")
        #expect(args == [5, 17])
        (sql, _) = BrowsedTable.after([rowid], [3])
        #expect(sql == "rowid > ?")
        // Descending over a nullable column: NULLs come last, so they are "after" any value.
        (sql, args) = BrowsedTable.after([t("\"a\"", 1, desc: true), t("rowid", 0, desc: true, notNull: true)], [5, 17])
        #expect(sql == "((\"a\" < ? OR \"a\" IS NULL) OR (\"a\" = ? AND rowid < ?))")
        #expect(args == [5, 5, 17])
        // A NULL anchor ascending: every non-NULL value is after it.
        (sql, args) = BrowsedTable.after([t("\"a\"", 1), rowid], [.null, 17])
        #expect(sql == "(\"a\" IS NOT NULL OR (\"a\" IS NULL AND rowid > ?))")
        #expect(args == [17])
        // Mixed directions: spelled out, with a range on the first key for the index.
        (sql, args) = BrowsedTable.after([t("\"a\"", 1), t("\"b\"", 2, desc: true, notNull: true), rowid], [1, "x", 9])
        #expect(sql == "\"a\" >= ? AND (\"a\" > ? OR (\"a\" = ? AND (\"b\" < ? OR (\"b\" = ? AND rowid > ?))))")
        #expect(args == [1, 1, 1, "x", "x", 9])
    }

    @Test func descendingOverANullableColumnSeeksPastTheNulls() {
        let terms = [OrderTerm(expression: "\"m\"", valueIndex: 1, descending: true, notNull: false),
                     OrderTerm(expression: "rowid", valueIndex: 0, descending: true, notNull: true)]
        let split = BrowsedTable.splitAfter(terms, [4, 17])
        #expect(split?.values.0 == "(\"m\", rowid) < (?, ?)")
        #expect(split?.values.1 == [4, 17])
        #expect(split?.nulls == "\"m\" IS NULL")
        #expect(BrowsedTable.splitAfter(terms, [.null, 17]) == nil)
        #expect(BrowsedTable.splitAfter(terms.map(\.reversed), [4, 17]) == nil)
    }

    /// A page 900,000 rows deep in a 1,000,000-row table. Prints the times; asserts only
    /// that the pages are right.
    @Test func millionRowTableDeepPage() throws {
        let db = try TempDatabase { db in
            try db.execute(sql: """
                CREATE TABLE big (id INTEGER PRIMARY KEY, grp INTEGER, name TEXT, score REAL);
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)
                INSERT INTO big SELECT i, i % 100, printf('name %07d', i * 7919 % 1000003), (i * 48271 % 2147483647) / 1000.0 FROM c;
                CREATE INDEX big_name ON big(name);
                """)
        }
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let big = try file.table(named: "big")
        func timed(_ label: String, _ body: () throws -> Page) rethrows -> Page {
            let start = Date()
            let page = try body()
            print(String(format: "sqlite 1M rows: %@: %.1f ms (%@)", label, Date().timeIntervalSince(start) * 1000, "\(page.plan)"))
            return page
        }
        let byName = [desc("name")]
        let cold = try timed("offset 900,000 by indexed name desc, total unknown") {
            try big.page(offset: 900_000, limit: 100, sort: byName)
        }
        #expect(cold.plan == .offset(900_000))
        let next = try timed("next page (keyset)") { try big.page(offset: 900_100, limit: 100, sort: byName) }
        #expect(next.plan == .keyset(anchor: 900_100, skip: 0))
        #expect(next.rows == (try big.page(offset: 900_100, limit: 100, sort: byName, mode: .offsetOnly)).rows)

        file.requestCount(table: "big", urgent: true)
        #expect(file.waitForCount(table: "big", timeout: 60) == 1_000_000)
        let byScore = [asc("score")]
        let reverse = try timed("offset 900,000 by unindexed score, total known") {
            try big.page(offset: 900_000, limit: 100, sort: byScore)
        }
        #expect(reverse.plan == .reverse(skip: 99_900))
        let following = try timed("next page (keyset)") { try big.page(offset: 900_100, limit: 100, sort: byScore) }
        #expect(following.plan == .keyset(anchor: 900_100, skip: 0))
        let reference = try timed("reference: plain OFFSET 900,000 by score") {
            try big.page(offset: 900_000, limit: 100, sort: byScore, mode: .offsetOnly)
        }
        #expect(reverse.rows == reference.rows)
        #expect(reverse.rows.count == 100)
        _ = try timed("offset 500,000 by grp, name (no anchor: OFFSET)") {
            try big.page(offset: 500_000, limit: 100, sort: [asc("grp"), asc("name")])
        }
    }
}
