import GRDB
import Testing
import TabdeckCore
@testable import TabdeckStore

@Suite struct ViewPruningTests {
    /// Saves a root view and five drill-down views with the given `last_used` times.
    func databaseWithChildViews() throws -> AppDatabase {
        let db = try AppDatabase.inMemory()
        try db.saveView(TableViewState(cursor: 1, selection: ["r"]), tab: "files", table: "")
        let used = ["a": 100, "b": 500, "c": 300, "d": 200, "e": 400]
        for (key, _) in used {
            try db.saveView(TableViewState(cursor: 2, selection: ["x", "y"]), tab: "files", table: key)
        }
        try db.dbQueue.write { db in
            for (key, time) in used {
                try db.execute(sql: "UPDATE table_view SET last_used = ? WHERE table_key = ?", arguments: [time, key])
            }
        }
        return db
    }

    @Test func keepsTheMostRecentlyUsedChildViewsAndEveryRoot() throws {
        let db = try databaseWithChildViews()
        #expect(try db.pruneViews(keepingChildViews: 2) == 3)
        let keys = Set(try db.loadAllViews().keys.map(\.table))
        #expect(keys == ["", "b", "e"])
        #expect(try db.loadView(tab: "files", table: "")?.selection == ["r"])
        // The selections of dropped views went with them (foreign key cascade).
        let orphans = try db.dbQueue.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM selected_row WHERE table_key IN ('a', 'c', 'd')")
        }
        #expect(orphans == 0)
    }

    @Test func savingMarksAViewAsUsedNow() throws {
        let db = try databaseWithChildViews()
        try db.saveView(TableViewState(cursor: 3), tab: "files", table: "a")   // "a" was the oldest
        #expect(try db.pruneViews(keepingChildViews: 1) == 4)
        #expect(Set(try db.loadAllViews().keys.map(\.table)) == ["", "a"])
    }

    @Test func pruningNothingIsCheap() throws {
        let db = try databaseWithChildViews()
        #expect(try db.pruneViews(keepingChildViews: 10) == 0)
        #expect(try db.loadAllViews().count == 6)
    }
}

/// Tabs opened from the command line have paths and URLs for ids, with no end to them: the
/// views of the most recently opened few hundred are kept, the others' dropped.
@Suite struct OpenedSourcePruningTests {
    @Test func keepsTheViewsOfTheMostRecentlyOpenedSourcesOnly() throws {
        let db = try AppDatabase.inMemory()
        try db.saveView(TableViewState(cursor: 1), tab: "people", table: "")  // a configured tab
        for name in ["a", "b", "c", "d"] {
            try db.saveView(TableViewState(cursor: 2, selection: ["x"]), tab: "/data/\(name).csv", table: "")
            try db.saveView(TableViewState(cursor: 3), tab: "/data/\(name).csv", table: "sub")
        }
        // Opened in this order over four runs; the first of a run counts as the most recent.
        #expect(try db.noteOpened(["/data/a.csv"], keeping: 3) == 0)
        #expect(try db.noteOpened(["/data/c.csv", "/data/b.csv"], keeping: 3) == 0)
        #expect(try db.noteOpened(["/data/d.csv"], keeping: 3) == 1)  // a is the oldest: gone
        var tabs = Set(try db.loadAllViews().keys.map(\.tab))
        #expect(tabs == ["people", "/data/b.csv", "/data/c.csv", "/data/d.csv"])
        // Opening b again makes it recent: the next new source pushes out c instead.
        #expect(try db.noteOpened(["/data/b.csv"], keeping: 3) == 0)
        #expect(try db.noteOpened(["/data/e.csv"], keeping: 3) == 1)
        tabs = Set(try db.loadAllViews().keys.map(\.tab))
        #expect(tabs == ["people", "/data/b.csv", "/data/d.csv"])
        let orphans = try db.dbQueue.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM selected_row WHERE tab_id IN ('/data/a.csv', '/data/c.csv')")
        }
        #expect(orphans == 0)
        #expect(AppDatabase.openedSourcesKept >= 200)
    }
}
