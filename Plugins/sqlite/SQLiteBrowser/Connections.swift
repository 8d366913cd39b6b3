import Foundation
import GRDB
import GRDBSQLite
import TabdeckPluginKit

/// Watches one query: stops it when the request is cancelled or runs past its deadline, and
/// reports that it is still busy (so the host's request timer does not expire on a long sort).
public final class QueryGuard: @unchecked Sendable {
    let cancel: CancellationFlag?
    let deadline: Date
    let heartbeat: (@Sendable (Double) -> Void)?
    let started = Date()
    private var lastBeat: Date
    private(set) var timedOut = false

    /// - Parameters:
    ///   - seconds: the query is interrupted after this long.
    ///   - heartbeat: called about every 2 s while the query runs, with the elapsed seconds.
    public init(cancel: CancellationFlag? = nil, seconds: Double = 100, heartbeat: (@Sendable (Double) -> Void)? = nil) {
        self.cancel = cancel
        self.deadline = Date(timeIntervalSinceNow: seconds)
        self.heartbeat = heartbeat
        self.lastBeat = started
    }

    /// True to stop the query (called by SQLite's progress handler on the query's thread).
    func shouldStop() -> Bool {
        if cancel?.isCancelled == true { return true }
        let now = Date()
        if now >= deadline { timedOut = true; return true }
        if let heartbeat, now.timeIntervalSince(lastBeat) >= 2 {
            lastBeat = now
            heartbeat(now.timeIntervalSince(started))
        }
        return false
    }
}

/// The query was stopped because it ran too long.
public struct QueryTimeout: Error, CustomStringConvertible {
    public var seconds: Double
    public var description: String { "the query took longer than \(Int(seconds)) s and was stopped" }
}

/// Counts commits by other processes: a page computed before a change must not be mixed with
/// one computed after it, so caches (row counts, keyset anchors) are keyed by the epoch.
///
/// One watcher connection asks `PRAGMA data_version` before each query; the value changes
/// when another connection committed (ours are all read-only), so every change bumps the
/// epoch exactly once, whichever connection runs the next query.
final class ChangeEpoch: @unchecked Sendable {
    private let lock = NSLock()
    private let watcher: DatabaseQueue
    private var version: Int64?
    private var value = 0
    private var onChange: (@Sendable (Int) -> Void)?

    init(path: String) throws { watcher = try ConnectionPool.open(path) }

    /// The epoch as last checked.
    var current: Int { lock.lock(); defer { lock.unlock() }; return value }

    func observe(_ f: @escaping @Sendable (Int) -> Void) { lock.lock(); onChange = f; lock.unlock() }

    /// Looks for commits since the last check; returns the epoch.
    @discardableResult
    func check() -> Int {
        lock.lock()
        let now = try? watcher.read { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
        var changed: (@Sendable (Int) -> Void)?
        if let now {
            if let version, version != now { value += 1; changed = onChange }
            version = now
        }
        let v = value
        lock.unlock()
        changed?(v)
        return v
    }
}

/// Read-only connections to one database file, each lent to one thread at a time.
final class ConnectionPool: @unchecked Sendable {
    let path: String
    let maxCount: Int
    let epoch: ChangeEpoch
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var created = 0

    final class Connection {
        let queue: DatabaseQueue
        init(queue: DatabaseQueue) { self.queue = queue }
    }

    init(path: String, count: Int, epoch: ChangeEpoch) {
        self.path = path; self.maxCount = max(1, count); self.epoch = epoch
    }

    /// Opens a connection (read-only). Throws for a missing or unreadable file.
    static func open(_ path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.label = "tabdeck-sqlite"
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -16000")  // 16 MB: deep scans reuse pages
        }
        return try DatabaseQueue(path: path, configuration: config)
    }

    /// Runs `body` on an idle connection (waiting for one if all are busy). With a `watch`,
    /// SQLite's progress handler stops the query when the request is cancelled (then this
    /// throws `CancellationError`) or runs past the deadline (``QueryTimeout``).
    func read<T>(_ watch: QueryGuard? = nil, _ body: (Database) throws -> T) throws -> T {
        let connection = try checkout()
        defer { checkin(connection) }
        epoch.check()
        return try connection.queue.inDatabase { db in
            guard let watch else { return try body(db) }
            let context = Unmanaged.passUnretained(watch).toOpaque()
            sqlite3_progress_handler(db.sqliteConnection, 4_000, { ctx in
                Unmanaged<QueryGuard>.fromOpaque(ctx!).takeUnretainedValue().shouldStop() ? 1 : 0
            }, context)
            defer { sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
            do {
                try watch.cancel?.check()
                return try body(db)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                if watch.timedOut { throw QueryTimeout(seconds: watch.deadline.timeIntervalSince(watch.started)) }
                throw CancellationError()
            }
        }
    }

    private func checkout() throws -> Connection {
        condition.lock()
        while idle.isEmpty && created >= maxCount { condition.wait() }
        if let c = idle.popLast() { condition.unlock(); return c }
        created += 1
        condition.unlock()
        do {
            return Connection(queue: try Self.open(path))
        } catch {
            condition.lock(); created -= 1; condition.signal(); condition.unlock()
            throw error
        }
    }

    private func checkin(_ c: Connection) {
        condition.lock(); idle.append(c); condition.signal(); condition.unlock()
    }
}
