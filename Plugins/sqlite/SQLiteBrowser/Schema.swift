import Foundation
import GRDB
import GRDBSQLite
import TabdeckProtocol

/// What a catalog entry is.
public enum ObjectKind: String, CaseIterable, Hashable, Sendable {
    case table
    case withoutRowid = "without rowid"
    case virtual
    case view

    /// The values of the catalog's `kind` enum column, in their sort order.
    public static var names: [String] { allCases.map(\.rawValue) }
}

/// One column of a table or view.
public struct ColumnInfo: Hashable, Sendable {
    public var name: String
    /// The declared type as written in the schema ("" when none).
    public var declaredType: String
    /// The protocol type: from the declared type, or sampled from the data when there is none.
    public var type: ColumnType
    /// Declared NOT NULL (or part of a WITHOUT ROWID primary key).
    public var notNull: Bool
    /// 1-based position in the primary key, 0 when not part of it.
    public var primaryKeyIndex: Int
    /// The column's collating sequence (`BINARY`, `NOCASE`, `RTRIM`, or an application's), nil
    /// when SQLite does not say (a view's column).
    public var collation: String?

    public init(name: String, declaredType: String, type: ColumnType, notNull: Bool, primaryKeyIndex: Int, collation: String? = nil) {
        self.name = name; self.declaredType = declaredType; self.type = type
        self.notNull = notNull; self.primaryKeyIndex = primaryKeyIndex; self.collation = collation
    }

    /// The order SQLite sorts the column in (`ORDER BY` uses its collation), in the protocol's
    /// terms: byte order for `BINARY` (and for numbers, whatever their collation), case folded
    /// for `NOCASE` (ASCII), the source's own otherwise. Nulls are SQLite's smallest value, the
    /// protocol's default.
    public var order: ColumnOrder {
        guard let collation, type == .text || type == .date else { return .protocol }
        switch collation.uppercased() {
        case "BINARY": return .protocol
        case "NOCASE": return .casefold
        default: return .source
        }
    }

    /// Searched by the substring filter: text and date columns.
    public var isTextual: Bool { type == .text || type == .date }
}

/// How the rows of a table are told apart: the id of each row and the unique tie-breaker
/// that makes every sort order total.
public enum RowIdentity: Hashable, Sendable {
    /// A rowid table; the name (`rowid`, `_rowid_` or `oid`) that is not shadowed by a column.
    case rowid(String)
    /// The primary key columns (indexes into the columns, in key order): WITHOUT ROWID tables.
    case primaryKey([Int])
    /// No key: views (and tables whose rowid names are all taken by columns).
    case allColumns
}

/// A table or view of the database, as listed in the catalog.
public struct CatalogEntry: Hashable, Sendable {
    public var name: String
    public var kind: ObjectKind
    /// The CREATE statement, when SQLite keeps one.
    public var sql: String?
    /// The columns (empty when they could not be read, e.g. a virtual table whose module is missing).
    public var columns: [ColumnInfo]
    /// Why the columns could not be read.
    public var problem: String?

    /// "id INTEGER, name TEXT, …": the column names with their declared types.
    public var columnSummary: String {
        if let problem { return "(\(problem))" }
        return columns.map { $0.declaredType.isEmpty ? $0.name : "\($0.name) \($0.declaredType)" }
            .joined(separator: ", ")
    }
}

/// Reading the schema.
enum SchemaReader {
    /// The tables and views of the main schema, by name (SQLite's internal `sqlite_*`
    /// tables left out). Column types are from the declarations; see ``table(_:_:)`` for
    /// the sampled types of untyped columns.
    static func catalog(_ db: Database) throws -> [CatalogEntry] {
        var objects: [(name: String, kind: ObjectKind, sql: String?)] = []
        for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view')") {
            let name: String = row["name"] ?? ""
            if isInternal(name) { continue }
            let sql: String? = row["sql"]
            let text = (sql ?? "").uppercased()
            let kind: ObjectKind = if (row["type"] as String?) == "view" { .view }
                else if text.hasPrefix("CREATE VIRTUAL") { .virtual }
                else if text.range(of: #"WITHOUT\s+ROWID\s*;?\s*$"#, options: .regularExpression) != nil { .withoutRowid }
                else { .table }
            objects.append((name, kind, sql))
        }
        // SQLite 3.37 and later know for sure (the text test above misses comments at the end).
        if let rows = try? Row.fetchAll(db, sql: "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'") {
            var known: [String: ObjectKind] = [:]
            for row in rows {
                let wr: Bool = row["wr"] ?? false
                known[row["name"] ?? ""] = switch row["type"] as String? {
                case "view": .view
                case "virtual": .virtual
                default: wr ? .withoutRowid : .table
                }
            }
            for i in objects.indices { if let k = known[objects[i].name] { objects[i].kind = k } }
        }
        objects.sort { $0.name < $1.name }
        return objects.map { o in
            do {
                return CatalogEntry(name: o.name, kind: o.kind, sql: o.sql, columns: try declaredColumns(db, o.name, kind: o.kind))
            } catch {
                return CatalogEntry(name: o.name, kind: o.kind, sql: o.sql, columns: [], problem: describe(error))
            }
        }
    }

    static func isInternal(_ name: String) -> Bool { name.lowercased().hasPrefix("sqlite_") }

    /// A table column's declared collating sequence (`sqlite3_table_column_metadata`).
    static func collation(_ db: Database, _ table: String, _ column: String) -> String? {
        var type: UnsafePointer<CChar>?, sequence: UnsafePointer<CChar>?
        var notNull: Int32 = 0, primaryKey: Int32 = 0, autoIncrement: Int32 = 0
        let rc = sqlite3_table_column_metadata(db.sqliteConnection, "main", table, column, &type, &sequence, &notNull, &primaryKey,
                                               &autoIncrement)
        guard rc == SQLITE_OK, let sequence else { return nil }
        return String(cString: sequence)
    }

    /// The columns with their declared types (hidden columns of virtual tables left out).
    static func declaredColumns(_ db: Database, _ table: String, kind: ObjectKind) throws -> [ColumnInfo] {
        try Row.fetchAll(db, sql: #"SELECT name, type, "notnull", pk, hidden FROM pragma_table_xinfo(?)"#, arguments: [table])
            .compactMap { row -> ColumnInfo? in
                let hidden: Int = row["hidden"] ?? 0
                if hidden == 1 { return nil }
                let declared: String = row["type"] ?? ""
                let pk: Int = row["pk"] ?? 0
                let name: String = row["name"] ?? ""
                return ColumnInfo(name: name, declaredType: declared, type: declaredType(declared) ?? .text,
                                  notNull: (row["notnull"] ?? false) || (kind == .withoutRowid && pk > 0), primaryKeyIndex: pk,
                                  collation: kind == .view ? nil : collation(db, table, name))
            }
    }

    /// The protocol type of a declared SQL type, after SQLite's affinity rules with dates and
    /// booleans told apart; nil when the declaration says nothing useful (no type, BLOB, or a
    /// name SQLite gives NUMERIC affinity by default such as STRING): then the data decides.
    static func declaredType(_ declared: String) -> ColumnType? {
        let t = declared.uppercased()
        if t.contains("BOOL") { return .bool }
        if t.contains("DATE") || t.contains("TIMESTAMP") { return .date }
        if t.contains("INT") { return .integer }
        if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") { return .text }
        if t.isEmpty || t.contains("BLOB") { return nil }
        if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") || t.contains("NUM") || t.contains("DEC")
            || t.contains("MONEY") { return .decimal }
        return nil
    }

    /// The entry's columns with the types of untyped columns sampled from the first rows:
    /// all integers → integer, all numbers → decimal, anything else → text.
    static func sampledColumns(_ db: Database, _ entry: CatalogEntry) throws -> [ColumnInfo] {
        var columns = entry.columns
        let untyped = columns.indices.filter { declaredType(columns[$0].declaredType) == nil }
        if untyped.isEmpty { return columns }
        let list = untyped.map { "typeof(\(SQLText.quote(columns[$0].name)))" }.joined(separator: ", ")
        var seen = Array(repeating: Set<String>(), count: untyped.count)
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \(SQLText.quote(entry.name)) LIMIT 200")
        while let row = try cursor.next() {
            for i in untyped.indices { seen[i].insert(row[i] ?? "null") }
        }
        for (i, c) in untyped.enumerated() {
            let kinds = seen[i].subtracting(["null"])
            columns[c].type = if kinds.isEmpty { .text }
                else if kinds == ["integer"] { .integer }
                else if kinds.isSubset(of: ["integer", "real"]) { .decimal }
                else { .text }
        }
        return columns
    }

    /// How rows of the entry are identified and ordered totally.
    static func identity(_ db: Database, _ entry: CatalogEntry) -> RowIdentity {
        switch entry.kind {
        case .view:
            return .allColumns
        case .withoutRowid:
            let pk = entry.columns.indices.filter { entry.columns[$0].primaryKeyIndex > 0 }
                .sorted { entry.columns[$0].primaryKeyIndex < entry.columns[$1].primaryKeyIndex }
            return pk.isEmpty ? .allColumns : .primaryKey(pk)
        case .table, .virtual:
            let names = Set(entry.columns.map { $0.name.lowercased() })
            guard let free = ["rowid", "_rowid_", "oid"].first(where: { !names.contains($0) }) else {
                // Every rowid name is a column. An INTEGER PRIMARY KEY is the rowid itself.
                let pk = entry.columns.indices.filter { entry.columns[$0].primaryKeyIndex > 0 }
                if pk.count == 1, entry.columns[pk[0]].declaredType.uppercased() == "INTEGER" { return .primaryKey(pk) }
                return .allColumns
            }
            if entry.kind == .virtual {
                // Not every virtual table has usable rowids.
                do { _ = try Row.fetchOne(db, sql: "SELECT \(free) FROM \(SQLText.quote(entry.name)) LIMIT 1") } catch { return .allColumns }
            }
            return .rowid(free)
        }
    }

    /// An error as a short text for people.
    static func describe(_ error: Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e.resultCode)" }
        return "\(error)"
    }
}
