import Foundation
import GRDB
import GRDBSQLite
import TabdeckProtocol

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One tab's spool: a throwaway SQLite file holding the rows of its spooled tables.
///
/// Speed over safety, since the file is rebuilt from the plugin whenever it is lost:
/// `journal_mode = OFF`, `synchronous = OFF`, one connection, rows inserted through one
/// reused prepared statement bound with the C API inside large transactions. Not thread-safe:
/// ``SpoolRouter`` serializes every use under its lock.
public final class SpoolFile: @unchecked Sendable {
    /// The file's path (`<state>/spool/<pid>-<tab>.sqlite`).
    public let path: String
    private var queue: DatabaseQueue?
    private var inTransaction = false
    private var rowsInTransaction = 0
    /// Rows per transaction while streaming: large, for speed; the connection sees its own
    /// uncommitted rows, so pages can be answered before a commit.
    static let rowsPerTransaction = 200_000

    /// Creates (or truncates) the file at `path`, creating its folder.
    public init(path: String) throws(SpoolError) {
        self.path = path
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var config = Configuration()
        config.label = "tabdeck.spool"
        config.allowsUnsafeTransactions = true  // one long transaction spans many inserts
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                           + "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -65536; PRAGMA temp_store = FILE")
        }
        do { queue = try DatabaseQueue(path: path, configuration: config) } catch {
            throw .sqlite(file: path, message: "\(error)", sql: "open")
        }
    }

    /// Closes the connection and deletes the file.
    public func remove() {
        queue = nil
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func run<T>(_ sql: String, _ body: (Database) throws -> T) throws(SpoolError) -> T {
        guard let queue else { throw .sqlite(file: path, message: "the spool is closed", sql: sql) }
        do { return try queue.inDatabase(body) } catch let error as SpoolError { throw error } catch {
            throw .sqlite(file: path, message: "\(error)", sql: sql)
        }
    }

    /// Creates the table of `schema` (dropping an old one of the same name).
    public func create(_ schema: SpoolSchema) throws(SpoolError) {
        try run(schema.createSQL) { db in
            try db.execute(sql: "DROP TABLE IF EXISTS \(schema.tableName)")
            try db.execute(sql: schema.createSQL)
        }
    }

    /// Drops the table of `schema`.
    public func drop(_ schema: SpoolSchema) {
        _ = try? run("DROP TABLE") { db in try db.execute(sql: "DROP TABLE IF EXISTS \(schema.tableName)") }
    }

    /// Drops a table by name (a materialized order).
    public func dropTable(named name: String) {
        _ = try? run("DROP TABLE") { db in try db.execute(sql: "DROP TABLE IF EXISTS \(name)") }
    }

    /// Commits the rows inserted so far.
    public func commit() throws(SpoolError) {
        guard inTransaction else { return }
        try run("COMMIT") { db in try db.execute(sql: "COMMIT") }
        inTransaction = false
        rowsInTransaction = 0
    }

    /// Appends rows (the wire's row objects) to the table, numbering them from `firstSeq`.
    /// - Returns: how many rows were inserted.
    /// - Throws: ``SpoolError/badRows(tab:table:reason:)`` naming the row and field
    ///   (`rows[3].cells`), or an SQLite error.
    public func insert(_ rows: [JSONValue], into schema: SpoolSchema, firstSeq: Int, tab: String, table: String) throws(SpoolError) -> Int {
        let sql = schema.insertSQL
        let enumRanks: [Int: [String: Int64]] = Dictionary(uniqueKeysWithValues: schema.columns.indices.compactMap { i in
            if case .enumeration(let values) = schema.columns[i].type {
                return (i, Dictionary(values.enumerated().map { ($1, Int64($0)) }, uniquingKeysWith: { a, _ in a }))
            }
            return nil
        })
        let keyed = schema.columns.indices.map(schema.hasKey)
        if !inTransaction {
            try run("BEGIN") { db in try db.execute(sql: "BEGIN") }
            inTransaction = true
        }
        let inserted: Int = try run(sql) { db in
            let statement = try db.cachedStatement(sql: sql)
            let h = statement.sqliteStatement
            defer { sqlite3_reset(h); sqlite3_clear_bindings(h) }
            var seq = firstSeq
            for (n, row) in rows.enumerated() {
                guard case .object(let o) = row else {
                    throw SpoolError.badRows(tab: tab, table: table, reason: "rows[\(n)]: expected an object, got \(row.typeDescription)")
                }
                var p: Int32 = 1
                sqlite3_bind_int64(h, p, Int64(seq)); p += 1
                switch o["id"] {
                case .string(let s)?: Self.bindText(h, p, s)
                case .int(let i)?: sqlite3_bind_text(h, p, String(i), -1, transient)
                default: throw SpoolError.badRows(tab: tab, table: table, reason: "rows[\(n)].id: expected a string or an integer")
                }
                p += 1
                for field in ["section", "detail"] {
                    if case .string(let s)? = o[field] { Self.bindText(h, p, s) } else { sqlite3_bind_null(h, p) }
                    p += 1
                }
                sqlite3_bind_int64(h, p, o["hasChildren"] == .bool(true) ? 1 : 0); p += 1
                guard case .array(let cells)? = o["cells"] else {
                    throw SpoolError.badRows(tab: tab, table: table, reason: "rows[\(n)].cells: expected an array")
                }
                for i in keyed.indices {
                    let cell = i < cells.count ? cells[i] : .null
                    switch cell {
                    case .null: sqlite3_bind_null(h, p)
                    case .bool(let b): sqlite3_bind_int64(h, p, b ? 1 : 0)
                    case .int(let v): sqlite3_bind_int64(h, p, v)
                    case .double(let d): sqlite3_bind_double(h, p, d)
                    case .string(let s): Self.bindText(h, p, s)
                    case .array, .object: sqlite3_bind_text(h, p, JSONWriter.string(cell), -1, transient)
                    }
                    p += 1
                    if keyed[i] {
                        if case .string(let s) = cell {
                            if let ranks = enumRanks[i] {
                                if let rank = ranks[s] { sqlite3_bind_int64(h, p, rank) } else { Self.bindText(h, p, s) }
                            } else if let ms = ISODateTime(s)?.millis {
                                sqlite3_bind_int64(h, p, ms)
                            } else {
                                Self.bindText(h, p, s)
                            }
                        } else if case .null = cell {
                            sqlite3_bind_null(h, p)
                        } else {
                            sqlite3_bind_text(h, p, JSONWriter.string(cell), -1, transient)
                        }
                        p += 1
                    }
                }
                let code = sqlite3_step(h)
                sqlite3_reset(h)
                guard code == SQLITE_DONE else {
                    throw SpoolError.sqlite(file: self.path, message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
                }
                seq += 1
            }
            return rows.count
        }
        rowsInTransaction += inserted
        if rowsInTransaction >= Self.rowsPerTransaction { try commit() }
        return inserted
    }

    /// Materializes `sort` into the order table `name` (commits first).
    public func materialize(_ schema: SpoolSchema, _ sort: [SortKey], name: String) throws(SpoolError) {
        let statements = try schema.orderTableSQL(sort, name: name)
        try commit()
        try run(statements[2]) { db in for sql in statements { try db.execute(sql: sql) } }
    }

    /// One page of rows in `sort` order, as the wire's row objects. For the natural order
    /// (`sort` empty) the page is found by `seq`, without scanning.
    /// With `orderTable` (from ``materialize(_:_:name:)``) the page is read through it.
    public func page(_ schema: SpoolSchema, sort: [SortKey], offset: Int, limit: Int,
                     orderTable: String? = nil, filter: String? = nil) throws(SpoolError) -> [JSONValue] {
        let sql: String
        if let orderTable {
            sql = schema.orderedPageSQL(orderTable: orderTable)
        } else if filter != nil {
            sql = try schema.filteredPageSQL(sort)
        } else {
            sql = try schema.pageSQL(sort)
        }
        let bools = schema.columns.map { $0.type == .bool }
        return try run(sql) { db in
            let statement = try db.cachedStatement(sql: sql)
            let h = statement.sqliteStatement
            defer { sqlite3_reset(h); sqlite3_clear_bindings(h) }
            sqlite3_bind_int64(h, 1, Int64(limit))
            sqlite3_bind_int64(h, 2, Int64(offset))
            if let filter { Self.bindText(h, 3, filter) }
            var rows: [JSONValue] = []
            rows.reserveCapacity(min(limit, 10_000))
            while true {
                let code = sqlite3_step(h)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw SpoolError.sqlite(file: self.path, message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
                }
                var o = JSONObject()
                o["id"] = .string(Self.text(h, 0))
                var cells: [JSONValue] = []
                cells.reserveCapacity(bools.count)
                for i in bools.indices {
                    let c = Int32(4 + i)
                    switch sqlite3_column_type(h, c) {
                    case SQLITE_NULL: cells.append(.null)
                    case SQLITE_INTEGER:
                        let v = sqlite3_column_int64(h, c)
                        cells.append(bools[i] && (v == 0 || v == 1) ? .bool(v == 1) : .int(v))
                    case SQLITE_FLOAT: cells.append(.double(sqlite3_column_double(h, c)))
                    default: cells.append(.string(Self.text(h, c)))
                    }
                }
                o["cells"] = .array(cells)
                if sqlite3_column_type(h, 1) != SQLITE_NULL { o["section"] = .string(Self.text(h, 1)) }
                if sqlite3_column_type(h, 2) != SQLITE_NULL { o["detail"] = .string(Self.text(h, 2)) }
                if sqlite3_column_int64(h, 3) == 1 { o["hasChildren"] = .bool(true) }
                rows.append(.object(o))
            }
            return rows
        }
    }

    /// How many rows of the table pass `filter` (see ``SpoolSchema/filterCondition``).
    public func count(_ schema: SpoolSchema, filter: String) throws(SpoolError) -> Int {
        let sql = schema.filteredCountSQL
        return try run(sql) { db in
            let statement = try db.cachedStatement(sql: sql)
            let h = statement.sqliteStatement
            defer { sqlite3_reset(h); sqlite3_clear_bindings(h) }
            Self.bindText(h, 3, filter)
            guard sqlite3_step(h) == SQLITE_ROW else {
                throw SpoolError.sqlite(file: self.path, message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            return Int(sqlite3_column_int64(h, 0))
        }
    }

    /// Binds a string by its UTF-8 bytes (no `strlen`; SQLite copies them).
    @inline(__always) private static func bindText(_ h: OpaquePointer?, _ index: Int32, _ s: String) {
        var s = s
        s.withUTF8 { b in
            guard let base = b.baseAddress else { sqlite3_bind_text(h, index, "", 0, transient); return }
            base.withMemoryRebound(to: CChar.self, capacity: b.count) { c in
                _ = sqlite3_bind_text(h, index, c, Int32(b.count), transient)
            }
        }
    }

    private static func text(_ h: OpaquePointer?, _ column: Int32) -> String {
        guard let p = sqlite3_column_text(h, column) else { return "" }
        let n = Int(sqlite3_column_bytes(h, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
}
