import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// One SQLite database, opened read-only for browsing: its catalog of tables and views, a
/// few connections for pages, a background row counter, and the keyset anchors of the
/// pages served so far.
public final class DatabaseFile: @unchecked Sendable {
    public let path: String
    let epoch: ChangeEpoch
    let pages: ConnectionPool
    let counter: RowCounter
    let anchors = AnchorStore()
    private let lock = NSLock()
    private var entries: [CatalogEntry]

    /// Opens the file read-only and reads its catalog.
    /// - Parameter connections: connections for pages (one per worker thread is plenty).
    public init(path: String, connections: Int = 3) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RPCError(code: RPCError.invalidParams, message: "\(path): no such file", data: ["path": .string(path)])
        }
        if isDirectory.boolValue {
            throw RPCError(code: RPCError.invalidParams, message: "\(path) is a folder, not a database file", data: ["path": .string(path)])
        }
        self.path = path
        do {
            epoch = try ChangeEpoch(path: path)
        } catch {
            throw RPCError(code: RPCError.invalidParams, message: "cannot open \(path): \(SchemaReader.describe(error))",
                           data: ["path": .string(path)])
        }
        pages = ConnectionPool(path: path, count: connections, epoch: epoch)
        counter = RowCounter(pool: ConnectionPool(path: path, count: 1, epoch: epoch))
        do {
            entries = try pages.read { db in try SchemaReader.catalog(db) }
        } catch {
            throw RPCError(code: RPCError.invalidParams, message: "cannot open \(path): \(SchemaReader.describe(error))",
                           data: ["path": .string(path)])
        }
        epoch.observe { [weak self] now in self?.changed(epoch: now) }
    }

    /// The tables and views, by name (read again after another process changed the database).
    public var catalog: [CatalogEntry] {
        lock.lock()
        let stale = catalogIsStale
        catalogIsStale = false
        lock.unlock()
        if stale, let fresh = try? pages.read(nil, { db in try SchemaReader.catalog(db) }) {
            lock.lock(); entries = fresh; lock.unlock()
        }
        lock.lock(); defer { lock.unlock() }
        return entries
    }
    private var catalogIsStale = false

    /// Called with the new epoch when another process changed the database.
    public var onChange: (@Sendable () -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return changeHandler }
        set { lock.lock(); changeHandler = newValue; lock.unlock() }
    }
    private var changeHandler: (@Sendable () -> Void)?

    private func changed(epoch now: Int) {
        counter.dropJobs(before: now)
        lock.lock(); catalogIsStale = true; lock.unlock()
        onChange?()
    }

    /// Opens a table or view for browsing (reading a sample of its rows to type untyped columns).
    public func table(named name: String) throws -> BrowsedTable {
        guard let entry = catalog.first(where: { $0.name == name }) else {
            throw RPCError(code: RPCError.invalidParams, message: "no table or view named \"\(name)\"", data: ["row": .string(name)])
        }
        if let problem = entry.problem {
            throw RPCError(code: RPCError.internalError, message: "\(name): \(problem)")
        }
        do {
            let (columns, identity) = try pages.read { db in
                (try SchemaReader.sampledColumns(db, entry), SchemaReader.identity(db, entry))
            }
            return BrowsedTable(file: self, entry: entry, columns: columns, identity: identity)
        } catch let error as DatabaseError {
            throw RPCError(code: RPCError.internalError, message: "\(name): \(SchemaReader.describe(error))")
        }
    }

    // MARK: Row counts

    /// The cached row count of a table (with a filter: of its matching rows), if known.
    public func cachedCount(table: String, filter: String? = nil) -> Int? {
        counter.cached(.init(table: table, filter: filter, epoch: epoch.current))
    }

    /// Queues `COUNT(*)` of a whole table or view on the counting thread.
    public func requestCount(table: String, urgent: Bool = false) {
        guard let entry = catalog.first(where: { $0.name == table }), entry.problem == nil else { return }
        counter.request(.init(key: .init(table: table, filter: nil, epoch: epoch.current),
                              sql: "SELECT count(*) FROM \(SQLText.quote(table))", arguments: [],
                              seconds: entry.kind == .view ? 15 : 300), urgent: urgent)
    }

    /// Waits up to `timeout` seconds for a count requested before.
    public func waitForCount(table: String, filter: String? = nil, timeout: Double) -> Int? {
        counter.wait(.init(table: table, filter: filter, epoch: epoch.current), timeout: timeout)
    }

    /// Called on the counting thread after each count: table, filter, count (nil when
    /// counting failed or was given up), and true when no other count is queued.
    public func observeCounts(_ f: @escaping @Sendable (String, String?, Int?, Bool) -> Void) {
        counter.observe { key, n, idle in f(key.table, key.filter, n, idle) }
    }

    /// Stops the counting thread.
    public func close() { counter.stop() }
}
