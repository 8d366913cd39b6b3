import Foundation
import GRDB
import Testing
import TabdeckCore
@testable import TabdeckStore

/// The selection's two forms in the store: explicit ids, and "all, except these ids".
@Suite struct SelectionFormTests {
    func selectedRows(_ db: AppDatabase) throws -> Int {
        try db.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM selected_row") ?? -1 }
    }

    @Test func bothFormsRoundTrip() throws {
        let db = try AppDatabase.inMemory()
        var view = TableViewState(cursor: 3, selection: ["a", "b", "c"])
        try db.saveView(view, tab: "t", table: "")
        view.selection = .allExcept([])
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "")?.selection == .allExcept([]))
        #expect(try selectedRows(db) == 0, "select all stores no id")
        view.selection.subtract(["x", "y"])
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "")?.selection == .allExcept(["x", "y"]))
        #expect(try db.loadAllViews()[ViewKey(tab: "t", table: "")]?.selection == .allExcept(["x", "y"]))
        // Same ids, other form: the form alone changes.
        view.selection = .ids(["x", "y"])
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "")?.selection == ["x", "y"])
        view.selection = .allExcept(["x", "y"])
        view.cursor = 9
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "") == view)
        view.selection = []
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "")?.selection == [])
        #expect(try selectedRows(db) == 0)
    }

    /// `select all` over 200,000 explicit ids: one save that drops them all, and a load that
    /// reads nothing back.
    @Test func selectAllReplacesABigExplicitSelection() throws {
        let db = try AppDatabase.inMemory()
        var view = TableViewState(selection: .ids(Set((0..<200_000).map { "r\($0)" })))
        try db.saveView(view, tab: "t", table: "")
        view.selection = .allExcept([])
        try db.saveView(view, tab: "t", table: "")
        #expect(try selectedRows(db) == 0)
        #expect(try db.loadView(tab: "t", table: "")?.selection == .allExcept([]))
    }

    /// A save is one transaction: when it fails half-way (here: a trigger refusing the id
    /// "boom" after the view row and other ids were written), nothing of it stays.
    @Test func aFailedSaveLeavesTheOldSelectionWhole() throws {
        let db = try AppDatabase.inMemory()
        try db.saveView(TableViewState(selection: .allExcept(["keep"])), tab: "t", table: "")
        try db.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON selected_row WHEN NEW.row_id = 'boom'
                BEGIN SELECT RAISE(ABORT, 'refused'); END
                """)
        }
        #expect(throws: StoreError.self) {
            try db.saveView(TableViewState(cursor: 7, selection: ["a", "b", "boom"]), tab: "t", table: "")
        }
        let view = try db.loadView(tab: "t", table: "")
        #expect(view?.selection == .allExcept(["keep"]))
        #expect(view?.cursor == 0)
    }

    @Test func aVersion3DatabaseKeepsItsExplicitIds() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = DatabaseFiles.databasePath(in: dir.path)
        do {
            let queue = try DatabaseQueue(path: path, configuration: AppDatabase.configuration(wal: true))
            try Migrations.migrator.migrate(queue, upTo: "v3")
            let digest = SelectionDigest(["r1", "r2"])
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO table_view (tab_id, table_key, cursor, selection_count, selection_digest, filter)
                    VALUES ('t', '', 4, ?, ?, 'ada')
                    """, arguments: [digest.count, digest.sum])
                try db.execute(sql: "INSERT INTO selected_row (tab_id, table_key, row_id) VALUES ('t', '', 'r1'), ('t', '', 'r2')")
            }
            try queue.close()
        }
        let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path)
        defer { try? db.close() }
        #expect(recovery == nil)
        let applied = try db.dbQueue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied.last == "v7_where")
        let view = try db.loadView(tab: "t", table: "")
        #expect(view?.selection == ["r1", "r2"])
        #expect(view?.cursor == 4 && view?.filter == "ada")
        // The next save moves to "all, except" in the same row.
        var next = try #require(view)
        next.selection = .allExcept(["r2"])
        try db.saveView(next, tab: "t", table: "")
        #expect(try db.loadAllViews()[ViewKey(tab: "t", table: "")]?.selection == .allExcept(["r2"]))
    }
}
