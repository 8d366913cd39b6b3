import SeededRandom
import Foundation
import GRDB
import Testing
import TabdeckProtocol
@testable import SQLiteBrowser

/// 1,500 rows with NULLs, many ties, mixed case and non-ASCII text, and an untyped column
/// holding integers, reals, text and blobs; a WITHOUT ROWID table; a view with duplicate rows.
func mixedDatabase() throws -> TempDatabase {
    try TempDatabase { db in
        try db.execute(sql: """
            CREATE TABLE mixed (a INTEGER, b TEXT, c REAL, d);
            CREATE TABLE keyed (k1 TEXT, k2 INTEGER, v INTEGER, w TEXT, PRIMARY KEY (k1, k2)) WITHOUT ROWID;
            CREATE VIEW pairs AS SELECT a, b FROM mixed WHERE a < 5;
            """)
        var rng = SplitMix(seed: 42)
        let words = ["apple", "Apple", "banana", "Zürich", "zeta", "éclair", "", "a b", "100", "9"]
        for _ in 0..<1_500 {
            let a: DatabaseValue = Int.random(in: 0..<8, using: &rng) == 0 ? .null : Int.random(in: 0..<20, using: &rng).databaseValue
            let b: DatabaseValue = Int.random(in: 0..<10, using: &rng) == 0 ? .null : words.randomElement(using: &rng)!.databaseValue
            let c: DatabaseValue = Int.random(in: 0..<6, using: &rng) == 0 ? .null : (Double(Int.random(in: -50..<50, using: &rng)) / 4).databaseValue
            let d: DatabaseValue = switch Int.random(in: 0..<5, using: &rng) {
            case 0: .null
            case 1: Int.random(in: -3..<3, using: &rng).databaseValue
            case 2: (Double(Int.random(in: -6..<6, using: &rng)) / 2).databaseValue
            case 3: words.randomElement(using: &rng)!.databaseValue
            default: Data([UInt8.random(in: 0..<4, using: &rng)]).databaseValue
            }
            try db.execute(sql: "INSERT INTO mixed VALUES (?, ?, ?, ?)", arguments: [a, b, c, d])
        }
        for i in 0..<700 {
            try db.execute(sql: "INSERT INTO keyed VALUES (?, ?, ?, ?)",
                           arguments: [words.randomElement(using: &rng)! + "\(i % 7)", i, Int.random(in: 0..<5, using: &rng),
                                       Bool.random(using: &rng) ? nil : words.randomElement(using: &rng)])
        }
    }
}

@Suite struct SortingTests {
    static let orders: [[SortKey]] = [
        [], [asc("a")], [desc("a")], [asc("b"), desc("a")], [desc("b"), desc("c")], [asc("c"), asc("b")],
        [asc("d")], [desc("d"), asc("a"), desc("c")], [desc("c"), asc("d"), desc("b"), asc("a")],
    ]

    @Test(arguments: orders)
    func rowidTableMatchesTheReference(sort: [SortKey]) throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "mixed")
        let expected = try referenceOrder(db.path, table: "mixed", sort: sort, idColumns: ["rowid"]) { Cells.id(rowid: $0[0]) }
        #expect(expected.count == 1_500)
        let (rows, plans) = try table.allPages(pageSize: 97, sort: sort)
        #expect(rows.map(\.id) == expected)
        // After the first page, every page starts exactly at an anchor: no OFFSET at all.
        #expect(plans.dropFirst().allSatisfy { $0.isExactKeyset })
        let (offsetRows, _) = try table.allPages(pageSize: 97, sort: sort, mode: .offsetOnly)
        #expect(offsetRows == rows)
    }

    @Test(arguments: [[asc("v")], [desc("w"), asc("v")], [desc("k1")], [desc("k2")], [asc("w"), desc("v")]])
    func withoutRowidTableMatchesTheReference(sort: [SortKey]) throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "keyed")
        let expected = try referenceOrder(db.path, table: "keyed", sort: sort, idColumns: ["k1", "k2"]) { Cells.id(primaryKey: $0) }
        let (rows, plans) = try table.allPages(pageSize: 50, sort: sort)
        #expect(rows.map(\.id) == expected)
        #expect(Set(rows.map(\.id)).count == 700)
        #expect(plans.dropFirst().allSatisfy { $0.isExactKeyset })
    }

    @Test(arguments: [[SortKey](), [desc("b")], [asc("a"), desc("b")]])
    func viewRowsAreOrderedByEveryColumnAndDuplicatesGetTheirOwnIds(sort: [SortKey]) throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let view = try file.table(named: "pairs")
        var previous: [DatabaseValue] = []
        var duplicate = 0
        let expected = try referenceOrder(db.path, table: "pairs", sort: sort, idColumns: ["a", "b"]) { values in
            duplicate = BrowsedTable.same(values, previous) ? duplicate + 1 : 0
            previous = values
            return Cells.id(values: values, duplicate: duplicate)
        }
        // Pages of 7 rows: runs of identical rows cross page boundaries often.
        let (rows, plans) = try view.allPages(pageSize: 7, sort: sort)
        #expect(rows.map(\.id) == expected)
        #expect(Set(rows.map(\.id)).count == rows.count)
        #expect(!plans.contains { $0.isKeyset })
    }

    @Test func rowIdsAreStableAcrossSorts() throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        for name in ["mixed", "keyed", "pairs"] {
            let table = try file.table(named: name)
            let column = table.columnIDs[1]
            let a = try table.allPages(pageSize: 400, sort: [asc(column)]).rows
            let b = try table.allPages(pageSize: 400, sort: [desc(column)]).rows
            let cellsByID = Dictionary(uniqueKeysWithValues: a.map { ($0.id, $0.cells) })
            #expect(a.count == b.count)
            #expect(b.allSatisfy { cellsByID[$0.id] == $0.cells }, "\(name): an id names different rows under two sorts")
        }
    }

    @Test func unknownSortColumnIsInvalidParams() throws {
        let db = try mixedDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "mixed")
        #expect { try table.page(offset: 0, limit: 5, sort: [asc("zz")]) } throws: {
            ($0 as? RPCError)?.code == RPCError.invalidParams && ($0 as? RPCError)?.data == ["path": "params.sort[0].column"]
        }
    }
}

extension PagePlan {
    /// Read from an anchor at the page's first row.
    var isExactKeyset: Bool { if case .keyset(_, 0) = self { true } else { false } }
    var isKeyset: Bool { if case .keyset = self { true } else { false } }
    var isReverse: Bool { if case .reverse = self { true } else { false } }
}
