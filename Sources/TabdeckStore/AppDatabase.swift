import GRDB
import TabdeckCore

/// The database facade: the only door to Tabdeck's persisted state. One per process.
///
/// Thread-safe: a GRDB `DatabaseQueue` inside serializes every access on one connection.
/// Every method is synchronous and each write is one transaction that has committed when
/// the method returns.
///
/// ## Durability
///
/// File databases run in WAL mode with `PRAGMA synchronous = NORMAL` (GRDB's WAL setup).
/// A commit is in the `-wal` file, i.e. handed to the kernel, before `write` returns, so a
/// process crash or `kill -9` right after a save loses nothing: the kernel still writes the
/// page cache out and the next open replays the WAL. Only a power cut or OS crash can lose
/// the last few commits (never corrupting the file), which is the right trade for view
/// state that is saved on every keystroke. Use `synchronous = FULL` if that ever changes.
///
/// Open it with ``open(stateDirectory:)`` (which also recovers from a broken file), or
/// ``inMemory()`` in tests.
public final class AppDatabase: Sendable {
    /// The database file, or ":memory:".
    public let path: String
    let dbQueue: DatabaseQueue
    /// The state folder's lock, held while the database is open (nil in memory).
    let lock: StateLock?

    init(dbQueue: DatabaseQueue, path: String, lock: StateLock? = nil) {
        self.dbQueue = dbQueue
        self.path = path
        self.lock = lock
    }

    /// An empty in-memory database with the schema, for tests.
    public static func inMemory() throws(StoreError) -> AppDatabase {
        let path = ":memory:"
        do {
            let queue = try DatabaseQueue(configuration: configuration(wal: false))
            try Migrations.migrator.migrate(queue)
            return AppDatabase(dbQueue: queue, path: path)
        } catch {
            throw StoreError(.migrate, path: path, error)
        }
    }

    /// The connection setup shared by file and memory databases.
    static func configuration(wal: Bool) -> Configuration {
        var config = Configuration()
        config.label = "Tabdeck.store"
        config.foreignKeysEnabled = true
        // WAL + synchronous = NORMAL: see "Durability" above.
        if wal { config.journalMode = .wal }
        // Only one Tabdeck opens a state folder (StateLock); other readers of the file
        // (sqlite3 in a shell) wait their turn instead of failing.
        config.busyMode = .timeout(5)
        return config
    }

    // MARK: Layout

    /// The saved workspace layout, or nil when none was ever saved (or it was reset).
    public func loadLayout() throws(StoreError) -> WorkspaceLayout? {
        try read(.loadLayout) { db in try LayoutStore.fetch(db) }
    }

    /// Replaces the saved layout with `layout`, atomically (one transaction): a reader
    /// sees either the old layout or the new one. A tab or section listed twice is
    /// rejected (UNIQUE constraint) and nothing changes.
    public func saveLayout(_ layout: WorkspaceLayout) throws(StoreError) {
        try write(.saveLayout) { db in try LayoutStore.replace(db, with: layout) }
    }

    /// Forgets the saved layout (the "reset tabs" command): the next ``loadLayout()``
    /// returns nil and the app falls back to config.json's order. Table views are kept.
    public func resetLayout() throws(StoreError) {
        try write(.resetLayout) { db in try LayoutStore.erase(db) }
    }

    // MARK: Table views

    /// The saved view of one table, or nil when it was never saved.
    /// - Parameters:
    ///   - tab: the tab id.
    ///   - table: "" for the tab's root table; for a drill-down table, its path key.
    public func loadView(tab: String, table: String) throws(StoreError) -> TableViewState? {
        try read(.loadView) { db in try ViewStore.fetch(db, key: ViewKey(tab: tab, table: table)) }
    }

    /// Saves the view of one table, replacing what was stored for it (an upsert, in one
    /// transaction). Only the difference with the stored selection is written, so saving
    /// a cursor move is cheap even with a 100,000-row selection.
    public func saveView(_ view: TableViewState, tab: String, table: String) throws(StoreError) {
        try write(.saveView) { db in try ViewStore.save(db, view, key: ViewKey(tab: tab, table: table)) }
    }

    /// Every saved view, read in one transaction (for start-up), including views of tabs
    /// that are no longer in config.json.
    public func loadAllViews() throws(StoreError) -> [ViewKey: TableViewState] {
        try read(.loadAllViews) { db in try ViewStore.fetchAll(db) }
    }

    /// Drops the least recently saved drill-down views beyond `keep` (see
    /// ``ViewStore/prune(_:keepingChildViews:)``), so that browsing thousands of folders does
    /// not grow the database forever. Called once at start-up.
    /// - Returns: how many views were deleted.
    @discardableResult
    public func pruneViews(keepingChildViews keep: Int = AppDatabase.childViewsKept) throws(StoreError) -> Int {
        try write(.pruneViews) { db in try ViewStore.prune(db, keepingChildViews: keep) }
    }

    /// Notes that the tabs `ids` were opened from the command line (the first counts as the most
    /// recent), then forgets every view of the opened sources beyond the `keep` most recently
    /// opened, so that opening thousands of files does not grow the database forever. Views of
    /// configured tabs are never touched. Called once at start-up, before the views are loaded.
    /// - Returns: how many sources were forgotten.
    @discardableResult
    public func noteOpened(_ ids: [String], keeping keep: Int = AppDatabase.openedSourcesKept) throws(StoreError) -> Int {
        try write(.noteOpened) { db in
            for id in ids.reversed() {
                try db.execute(sql: """
                    INSERT INTO opened_source (tab_id, seq) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM opened_source))
                    ON CONFLICT (tab_id) DO UPDATE SET seq = excluded.seq
                    """, arguments: [id])
            }
            let old = try String.fetchAll(db, sql: "SELECT tab_id FROM opened_source ORDER BY seq DESC LIMIT -1 OFFSET ?",
                                          arguments: [max(0, keep)])
            for id in old {
                try db.execute(sql: "DELETE FROM table_view WHERE tab_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM opened_source WHERE tab_id = ?", arguments: [id])
            }
            return old.count
        }
    }

    /// How many opened sources keep their views.
    public static let openedSourcesKept = 300

    /// How many drill-down views start-up keeps.
    public static let childViewsKept = 2_000

    // MARK: Lifecycle

    /// Closes the connection (checkpointing the WAL) and lets the state folder go
    /// (``StateLock``). Later calls fail with a ``StoreError``. Optional: the connection
    /// also closes, and the lock goes, when the object is released.
    public func close() throws(StoreError) {
        defer { lock?.release() }
        do { try dbQueue.close() } catch { throw StoreError(.close, path: path, error) }
    }

    // MARK: Access

    /// Runs `body` in one read transaction, converting every error to a ``StoreError``.
    func read<T>(_ operation: StoreOperation, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try dbQueue.read(body) } catch { throw StoreError(operation, path: path, error) }
    }

    /// Runs `body` in one IMMEDIATE write transaction, committed before returning.
    func write<T>(_ operation: StoreOperation, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try dbQueue.write(body) } catch { throw StoreError(operation, path: path, error) }
    }
}
