import Foundation
import GRDB
import Testing
import TabdeckProtocol
@testable import SQLiteBrowser

@Suite struct FilterTests {
    func notes() throws -> TempDatabase {
        try TempDatabase { db in
            try db.execute(sql: #"""
                CREATE TABLE notes (t TEXT, n INTEGER, d DATE);
                INSERT INTO notes VALUES ('100% sure', 1, NULL), ('50', 5, NULL), ('a_b', 2, NULL), ('axb', 3, NULL),
                    ('a\b', 4, NULL), ('UPPER case', 6, NULL), ('under_score', 7, '2024-05-01'), (NULL, 8, NULL),
                    ('a%b', 9, NULL), ('Zürich', 10, NULL);
                """#)
        }
    }

    func matches(_ filter: String) throws -> [String] {
        let db = try notes()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let page = try file.table(named: "notes").page(offset: 0, limit: 100, sort: [asc("n")], filter: filter)
        return page.rows.map(\.id)
    }

    @Test func likeWildcardsInTheFilterAreLiteral() throws {
        #expect(try matches("%") == ["1", "9"])
        #expect(try matches("_") == ["3", "7"])
        #expect(try matches("a_b") == ["3"])  // not "axb"
        #expect(try matches("a%b") == ["9"])  // not "a_b", "axb", "a\b"
        #expect(try matches(#"\"#) == ["5"])
        #expect(try matches(#"a\b"#) == ["5"])
    }

    @Test func filterSearchesEveryColumnIgnoringASCIICase() throws {
        #expect(try matches("upper") == ["6"])
        #expect(try matches("5") == ["2", "7"])  // "50" (whose n is 5) and the date 2024-05-01
        #expect(try matches("8") == ["8"])  // n = 8, a number: its text (PROTOCOL.md 11.3)
        #expect(try matches("ZÜRICH") == [])  // SQLite's LIKE folds ASCII letters only
        #expect(try matches("Zür") == ["10"])
        #expect(try matches("") == ["1", "3", "4", "5", "2", "6", "7", "8", "9", "10"])  // all, by n
    }

    @Test func filteredPagesAndCounts() throws {
        let db = try notes()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "notes")
        let first = try table.page(offset: 0, limit: 1, sort: [desc("n")], filter: "a")
        #expect(first.rows.map(\.id) == ["9"])
        #expect(first.total == nil)
        let second = try table.page(offset: 1, limit: 1, sort: [desc("n")], filter: "a")
        #expect(second.plan == .keyset(anchor: 1, skip: 0))
        #expect(second.rows.map(\.id) == ["6"])
        table.requestCount(filter: "a", urgent: true)
        #expect(file.waitForCount(table: "notes", filter: "a", timeout: 5) == 5)
        #expect(table.cachedCount(filter: nil) == nil)
        #expect(SQLText.likePattern(containing: #"50%_\"#) == #"%50\%\_\\%"#)
        // Scalar by scalar: a `%` or a quote with a combining mark on it is escaped all the same.
        #expect(SQLText.likePattern(containing: "%\u{31B}") == "%\\%\u{31B}%")
        #expect(SQLText.quote("a\"\u{31B}b") == "\"a\"\"\u{31B}b\"")
    }
}
