import Foundation
import GRDB
import GRDBSQLite
import TabdeckPluginKit
import TabdeckProtocol

/// A `query` (PROTOCOL.md 11.14) run read-only and held in memory: one SELECT (or WITH …
/// SELECT) statement, on a connection of its own opened read-only with `PRAGMA query_only`.
public enum ReadOnlyQuery {
    /// A result with more rows than this is refused (it is kept in memory).
    public static let maxRows = 1_000_000

    /// The first keyword of the text, past blanks and comments (uppercased).
    static func firstKeyword(_ sql: String) -> String {
        var s = Substring(sql)
        while true {
            s = s.drop { $0.isWhitespace }
            if s.hasPrefix("--") { s = s.drop { $0 != "\n" }; continue }
            if s.hasPrefix("/*") {
                guard let end = s.range(of: "*/") else { return "" }
                s = s[end.upperBound...]; continue
            }
            break
        }
        return s.prefix { $0.isLetter }.uppercased()
    }

    /// A -32602 error with SQLite's message and, when SQLite tells it, the 1-based character
    /// position of the error in `sql`.
    static func failure(_ message: String, sql: String, byteOffset: Int32) -> RPCError {
        guard byteOffset >= 0, byteOffset <= sql.utf8.count else { return RPCError.badParams(message) }
        let prefix = sql.utf8.prefix(Int(byteOffset))
        let characters = String(decoding: prefix, as: UTF8.self).count
        return RPCError(code: RPCError.invalidParams, message: message, data: ["position": .int(Int64(characters + 1))])
    }

    /// Runs the query on the database file at `path`; its columns and rows (ids `r0`, `r1`, …).
    public static func run(path: String, sql: String, watch: QueryGuard? = nil) throws -> MemoryTable {
        let keyword = firstKeyword(sql)
        guard keyword == "SELECT" || keyword == "WITH" else {
            throw RPCError.badParams("only a SELECT (or WITH … SELECT) query can be run here, not \(keyword.isEmpty ? "this" : keyword)",
                                     path: "params.sql")
        }
        let queue = try ConnectionPool.open(path)
        return try queue.inDatabase { db -> MemoryTable in
            try db.execute(sql: "PRAGMA query_only = ON")
            let conn = db.sqliteConnection
            if let watch {
                let context = Unmanaged.passUnretained(watch).toOpaque()
                sqlite3_progress_handler(conn, 4_000, { ctx in
                    Unmanaged<QueryGuard>.fromOpaque(ctx!).takeUnretainedValue().shouldStop() ? 1 : 0
                }, context)
            }
            defer { sqlite3_progress_handler(conn, 0, nil, nil) }
            try watch?.cancel?.check()
            return try sql.withCString { text -> MemoryTable in
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                guard sqlite3_prepare_v2(conn, text, -1, &statement, &tail) == SQLITE_OK, let statement else {
                    throw failure(String(cString: sqlite3_errmsg(conn)), sql: sql, byteOffset: sqlite3_error_offset(conn))
                }
                defer { sqlite3_finalize(statement) }
                if let tail, tail.pointee != 0 {
                    var next: OpaquePointer?
                    let rc = sqlite3_prepare_v2(conn, tail, -1, &next, nil)
                    if next != nil || rc != SQLITE_OK {
                        sqlite3_finalize(next)
                        throw RPCError.badParams("only one statement can be run at a time", path: "params.sql")
                    }
                }
                guard sqlite3_stmt_readonly(statement) != 0 else {
                    throw RPCError.badParams("the query would change the database: only read-only queries can be run", path: "params.sql")
                }
                return try read(statement, conn: conn, sql: sql, watch: watch)
            }
        }
    }

    private static func read(_ statement: OpaquePointer, conn: OpaquePointer?, sql: String, watch: QueryGuard?) throws -> MemoryTable {
        let n = Int(sqlite3_column_count(statement))
        var names: [String] = [], declared: [ColumnType?] = []
        for i in 0..<n {
            names.append(sqlite3_column_name(statement, Int32(i)).map { String(cString: $0) } ?? "column\(i + 1)")
            declared.append(sqlite3_column_decltype(statement, Int32(i)).flatMap { SchemaReader.declaredType(String(cString: $0)) })
        }
        var values: [[DatabaseValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                if rc == SQLITE_INTERRUPT, let watch {
                    if watch.timedOut { throw QueryTimeout(seconds: watch.deadline.timeIntervalSince(watch.started)) }
                    throw CancellationError()
                }
                throw failure(String(cString: sqlite3_errmsg(conn)), sql: sql, byteOffset: sqlite3_error_offset(conn))
            }
            guard values.count < maxRows else {
                throw RPCError.badParams("the query has more than \(maxRows) rows: add a LIMIT", path: "params.sql")
            }
            values.append((0..<n).map { i in value(statement, Int32(i)) })
        }
        // Types: the declared type of a column of a table, else what the values are.
        let types: [ColumnType] = (0..<n).map { i in
            if let t = declared[i] { return t }
            var sawInt = false, sawReal = false
            for row in values {
                switch row[i].storage {
                case .null: continue
                case .int64: sawInt = true
                case .double: sawReal = true
                default: return .text
                }
            }
            return sawReal ? .decimal : (sawInt ? .integer : .text)
        }
        var ids: [String] = [], seen = Set<String>()
        for name in names {
            var id = name, k = 1
            while !seen.insert(id).inserted { k += 1; id = "\(name)_\(k)" }
            ids.append(id)
        }
        let columns = (0..<n).map { i in ColumnSpec(id: ids[i], title: names[i], type: types[i]) }
        let rows = values.enumerated().map { r, row in
            TabdeckProtocol.Row(id: "r\(r)", cells: (0..<n).map { i in Cells.cell(row[i], type: types[i]) })
        }
        return MemoryTable(columns: columns, rows: rows)
    }

    private static func value(_ statement: OpaquePointer, _ i: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return sqlite3_column_int64(statement, i).databaseValue
        case SQLITE_FLOAT: return sqlite3_column_double(statement, i).databaseValue
        case SQLITE_TEXT:
            let bytes = sqlite3_column_text(statement, i)
            let count = Int(sqlite3_column_bytes(statement, i))
            guard let bytes else { return "".databaseValue }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self).databaseValue
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, i))
            guard let p = sqlite3_column_blob(statement, i), count > 0 else { return Data().databaseValue }
            return Data(bytes: p, count: count).databaseValue
        default: return .null
        }
    }
}
