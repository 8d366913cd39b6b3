import Foundation
import GRDB
import Testing
import TabdeckCore
@testable import TabdeckStore

@Suite struct FileDatabaseTests {
    static let layout = WorkspaceLayout(sections: ["s"], tabs: [.init(tab: "a", section: "s"), .init(tab: "b", section: nil)],
                                        hidden: ["b"], selected: "a")
    static let view = TableViewState(sort: [.init("x", .descending)], scrollOffset: 10, cursor: 12, selection: ["r1", "r2"])

    @Test func freshFileIsMigratedInWALMode() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let state = dir.file("nested/state")        // created, with intermediate folders
        let (db, recovery) = try AppDatabase.open(stateDirectory: state)
        #expect(recovery == nil)
        #expect(db.path == state + "/tabdeck.sqlite")
        #expect(FileManager.default.fileExists(atPath: db.path))
        let (journal, synchronous, foreignKeys, tables, migrations) = try db.dbQueue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try Int.fetchOne(db, sql: "PRAGMA synchronous"),
             try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"),
             try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")),
             try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        #expect(journal == "wal")
        #expect(synchronous == 1)   // NORMAL
        #expect(foreignKeys == true)
        #expect(tables.isSuperset(of: ["section_order", "tab_layout", "hidden_tab", "workspace", "table_view", "selected_row"]))
        #expect(migrations == ["v1", "v2", "v3", "v4", "v5_expanded", "v6_opened_source", "v7_where"])
    }

    @Test func aVersion1DatabaseIsMigratedAndKeepsItsViews() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.file("tabdeck.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Migrations.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO table_view (tab_id, table_key, cursor) VALUES ('a', '', 7), ('a', 'sub', 3)")
            }
            try queue.close()
        }
        let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path)
        #expect(recovery == nil)
        #expect(try db.loadView(tab: "a", table: "")?.cursor == 7)
        #expect(try db.loadView(tab: "a", table: "sub")?.cursor == 3)
        #expect(try db.loadView(tab: "a", table: "")?.filter == nil)  // v3: no filter
        #expect(try db.pruneViews(keepingChildViews: 0) == 1)
    }

    @Test func stateSurvivesCloseAndReopen() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        do {
            let (db, _) = try AppDatabase.open(stateDirectory: dir.path)
            try db.saveLayout(Self.layout)
            try db.saveView(Self.view, tab: "a", table: "")
            try db.saveView(Self.view, tab: "a", table: "r1")
            try db.close()
        }
        let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path)
        #expect(recovery == nil)
        #expect(try db.loadLayout() == Self.layout)
        #expect(try db.loadAllViews() == [ViewKey(tab: "a"): Self.view, ViewKey(tab: "a", table: "r1"): Self.view])
    }

    /// What `kill -9` leaves behind: the files as they are while the connection is still
    /// open, without a checkpoint or a close. Copy them and open the copy.
    @Test func committedWritesAreOnDiskBeforeSaveReturns() throws {
        let dir = TempDirectory()
        let copy = TempDirectory("copy")
        defer { dir.remove(); copy.remove() }
        let (db, _) = try AppDatabase.open(stateDirectory: dir.path)
        try db.saveLayout(Self.layout)
        try db.saveView(Self.view, tab: "a", table: "")
        for name in ["tabdeck.sqlite", "tabdeck.sqlite-wal"] {
            try FileManager.default.copyItem(atPath: dir.file(name), toPath: copy.file(name))
        }
        let (crashed, recovery) = try AppDatabase.open(stateDirectory: copy.path)
        #expect(recovery == nil)
        #expect(try crashed.loadLayout() == Self.layout)
        #expect(try crashed.loadView(tab: "a", table: "") == Self.view)
        _ = db
    }

    @Test func garbageFileIsMovedAsideAndAFreshDatabaseWorks() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let path = dir.file("tabdeck.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: garbage))

        let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path)
        let moved = try #require(recovery)
        #expect(moved.movedTo.hasPrefix(path + ".broken-"))
        #expect(moved.reason.contains("not a usable SQLite database"))
        #expect(FileManager.default.contents(atPath: moved.movedTo) == garbage)

        #expect(try db.loadLayout() == nil)
        try db.saveLayout(Self.layout)
        #expect(try db.loadLayout() == Self.layout)
    }

    @Test func corruptPagesAreMovedAside() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        do {
            let (db, _) = try AppDatabase.open(stateDirectory: dir.path)
            for i in 0..<50 { try db.saveView(Self.view, tab: "tab\(i)", table: String(repeating: "k", count: 200)) }
            try db.close()      // checkpoints the WAL into the main file
        }
        let path = dir.file("tabdeck.sqlite")
        var bytes = try #require(FileManager.default.contents(atPath: path))
        let pageSize = 4096
        #expect(bytes.count > 3 * pageSize)
        for i in pageSize..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 131) }   // keep page 1 (header + schema)
        try bytes.write(to: URL(fileURLWithPath: path))

        let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path)
        let moved = try #require(recovery)
        #expect(moved.reason.contains("quick_check") || moved.reason.contains("not a usable SQLite database"))
        #expect(FileManager.default.contents(atPath: moved.movedTo) == bytes)
        #expect(try db.loadAllViews().isEmpty)
    }

    @Test func databaseFromANewerTabdeckIsMovedAside() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        do {
            let (db, _) = try AppDatabase.open(stateDirectory: dir.path)
            try db.saveLayout(Self.layout)
            try db.close()
        }
        do {
            let queue = try DatabaseQueue(path: dir.file("tabdeck.sqlite"))
            try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
            try queue.close()
        }
        let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path)
        let moved = try #require(recovery)
        #expect(moved.reason.contains("newer Tabdeck"))
        #expect(moved.reason.contains("v99-future"))
        #expect(try db.loadLayout() == nil)

        // The old database is intact at its new place, WAL and all.
        let old = try DatabaseQueue(path: moved.movedTo)
        #expect(try old.read { try String.fetchAll($0, sql: "SELECT section_id FROM section_order") } == ["s"])
    }

    @Test func twoRecoveriesInOneSecondDoNotCollide() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.file("tabdeck.sqlite")
        let now = Date(timeIntervalSince1970: 1_735_689_599)   // 2024-12-31T23:59:59Z
        var destinations: [String] = []
        for round in 0..<2 {
            #expect(FileManager.default.createFile(atPath: path, contents: Data("not sqlite \(round)".utf8)))
            let (db, recovery) = try AppDatabase.open(stateDirectory: dir.path, now: now)
            try db.close()
            destinations.append(try #require(recovery).movedTo)
        }
        #expect(destinations == [path + ".broken-20241231T235959Z", path + ".broken-20241231T235959Z-2"])
        #expect(FileManager.default.contents(atPath: destinations[0]) == Data("not sqlite 0".utf8))
        #expect(FileManager.default.contents(atPath: destinations[1]) == Data("not sqlite 1".utf8))
    }

    @Test(.enabled(if: ReadOnlyDirectory.isSupported, "cannot make a folder read-only on this machine"))
    func readOnlyStateDirectoryIsAClearError() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let undo = try #require(ReadOnlyDirectory.make(dir.path))
        defer { undo() }

        let error = #expect(throws: StoreError.self) { try AppDatabase.open(stateDirectory: dir.path) }
        #expect(error?.path == dir.path)
        #expect(error?.description.contains(dir.path) == true)
        guard case .notWritable? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }

        // A state directory to be created inside a read-only folder.
        let nested = dir.file("inner")
        let nestedError = #expect(throws: StoreError.self) { try AppDatabase.open(stateDirectory: nested) }
        #expect(nestedError?.path == nested)
        guard case .directoryUnavailable(_, let reason)? = nestedError else {
            Issue.record("unexpected error \(String(describing: nestedError))")
            return
        }
        #expect(reason.contains(nested))
    }

    @Test func aFileInTheWayOfTheStateDirectoryIsAClearError() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        #expect(FileManager.default.createFile(atPath: dir.file("state"), contents: Data()))
        let error = #expect(throws: StoreError.self) { try AppDatabase.open(stateDirectory: dir.file("state")) }
        #expect(error?.path == dir.file("state"))
        guard case .directoryUnavailable? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
    }

    @Test func anEmptyStateDirectoryPathIsAClearError() {
        let error = #expect(throws: StoreError.self) { try AppDatabase.open(stateDirectory: "") }
        #expect(error == .directoryUnavailable(path: "", reason: "no state directory was given"))
    }

    @Test func timestampsAreUTCAndSortable() {
        #expect(DatabaseFiles.timestamp(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
        #expect(DatabaseFiles.timestamp(Date(timeIntervalSince1970: 1_735_689_599.9)) == "20241231T235959Z")
    }
}
