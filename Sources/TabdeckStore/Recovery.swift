import Foundation
import GRDB

/// Tells the app that the database it had could not be used and was replaced by a fresh
/// one, so it can tell the user where the old file went and why.
public struct StoreRecovery: Sendable, Equatable {
    /// Where the old database file now is (`…/tabdeck.sqlite.broken-20250131T235959Z`).
    /// Its -wal and -shm files, if any, were moved next to it with the same suffixes.
    public var movedTo: String
    /// Why it was moved, in words ("written by a newer Tabdeck: unknown migrations v7").
    public var reason: String

    /// Makes a recovery report.
    public init(movedTo: String, reason: String) { self.movedTo = movedTo; self.reason = reason }
}

extension AppDatabase {
    /// Opens (creating if needed) `<stateDirectory>/tabdeck.sqlite` in WAL mode, creating
    /// the folder (mode 0700).
    ///
    /// First it takes the folder's ``StateLock`` for `owner` (this process, "line mode" unless
    /// told): while another Tabdeck has the folder this throws ``StoreError/inUse(path:holder:)``
    /// naming it, and touches nothing. The lock is held until ``close()``.
    ///
    /// If the file is not an SQLite database, is corrupt, fails `PRAGMA quick_check`, or was
    /// written by a newer Tabdeck (it applied migrations this build does not know), it is
    /// moved aside with its -wal/-shm files to `tabdeck.sqlite.broken-<UTC timestamp>`
    /// (never deleted) and a fresh database is started; the returned ``StoreRecovery`` says
    /// where the old one went and why.
    ///
    /// Problems of the environment rather than of the file (a read-only folder or file,
    /// a full disk, a lock held too long) are thrown as ``StoreError`` and the file is left
    /// alone: moving a good database aside because of them would lose the user's state.
    public static func open(stateDirectory: String, owner: StateLockOwner = .current(mode: "line mode"))
        throws(StoreError) -> (AppDatabase, StoreRecovery?) {
        try open(stateDirectory: stateDirectory, owner: owner, now: Date())
    }

    static func open(stateDirectory: String, owner: StateLockOwner = .current(mode: "line mode"), now: Date)
        throws(StoreError) -> (AppDatabase, StoreRecovery?) {
        let path = DatabaseFiles.databasePath(in: stateDirectory)
        try DatabaseFiles.makeDirectory(stateDirectory)
        try DatabaseFiles.checkWritable(directory: stateDirectory, database: path)
        let lock = try StateLock.acquire(directory: stateDirectory, owner: owner)
        switch try attemptOpen(path: path, lock: lock) {
        case .opened(let database):
            return (database, nil)
        case .broken(let reason, _):
            let movedTo = try DatabaseFiles.moveAside(path, reason: reason, now: now)
            switch try attemptOpen(path: path, lock: lock) {
            case .opened(let database):
                return (database, StoreRecovery(movedTo: movedTo, reason: reason))
            case .broken(_, let error):
                throw error
            }
        }
    }

    /// The outcome of one try at opening a file: usable, or broken in a way that calls for
    /// moving it aside. Everything else is thrown.
    enum OpenAttempt {
        case opened(AppDatabase)
        case broken(reason: String, error: StoreError)
    }

    /// Checks, then opens and migrates the database at `path`.
    static func attemptOpen(path: String, lock: StateLock? = nil) throws(StoreError) -> OpenAttempt {
        let migrator = Migrations.migrator
        if DatabaseFiles.exists(path), let broken = try inspect(path: path, migrator: migrator) {
            return broken
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration(wal: true))
            try migrator.migrate(queue)
        } catch {
            return try brokenOrThrow(.migrate, path: path, error)
        }
        return .opened(AppDatabase(dbQueue: queue, path: path, lock: lock))
    }

    /// Looks at an existing file through a read-only connection, so that a broken file is
    /// moved aside byte for byte as it was found: a read-write connection would set up WAL
    /// mode (a write) and checkpoint its WAL into the file when closed.
    /// - Returns: nil if the file looks fine, else why it must be moved aside.
    static func inspect(path: String, migrator: DatabaseMigrator) throws(StoreError) -> OpenAttempt? {
        var config = configuration(wal: false)
        config.readonly = true
        let problems: [String]
        let unknown: [String]
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            (problems, unknown) = try queue.read { db in
                let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
                let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
                return (problems, unknown)
            }
        } catch {
            return try brokenOrThrow(.check, path: path, error)
        }
        if problems != ["ok"] {
            let reason = "it fails PRAGMA quick_check: \(problems.prefix(3).joined(separator: "; "))"
            return .broken(reason: reason, error: .unusable(path: path, reason: reason))
        }
        if !unknown.isEmpty {
            let reason = "it was written by a newer Tabdeck (unknown migrations: \(unknown.joined(separator: ", ")))"
            return .broken(reason: reason, error: .unusable(path: path, reason: reason))
        }
        return nil
    }

    /// SQLite's verdict on the file itself (not a database, corrupt) means "move it aside";
    /// any other failure is thrown as is.
    private static func brokenOrThrow(_ operation: StoreOperation, path: String, _ error: any Error) throws(StoreError) -> OpenAttempt {
        if let error = error as? DatabaseError,
           [.SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT].contains(error.resultCode) {
            let failure = SQLiteFailure(error)
            return .broken(reason: "it is not a usable SQLite database (\(failure.message))",
                           error: .sqlite(operation: operation, path: path, failure: failure))
        }
        throw StoreError(operation, path: path, error)
    }
}
