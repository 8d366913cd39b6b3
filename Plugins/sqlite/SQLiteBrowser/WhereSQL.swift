import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// The rows a request keeps: its text filter and its structured filter (`where`, PROTOCOL.md
/// 11.11), both applied.
public struct Selection: Hashable, Sendable {
    public var filter: String?
    public var clause: WhereClause

    public init(filter: String? = nil, where clause: WhereClause = []) {
        self.filter = filter.flatMap { $0.isEmpty ? nil : $0 }
        self.clause = clause
    }

    /// The key of counts and anchors: the filter alone without a `where` (so that a plain
    /// filter's count is shared with the catalog's and the counter's notifications), nil for
    /// every row.
    public var key: String? {
        if clause.isEmpty { return filter }
        return (filter ?? "") + "\u{0}where" + JSONWriter.string(Where.json(clause))
    }
}

/// `where` as SQLite conditions with bound values: never a value in the SQL text.
///
/// Each condition compares as the protocol says (11.11), so that `where` and `sort` agree:
/// numbers by SQLite's numeric comparison (integers and reals together); dates by instant
/// (text dates through `julianday`, numbers as Unix seconds, as the cells show them);
/// booleans by truth (`1`, `'true'`, `'yes'` …); text `=`, `!=` and `in` by bytes
/// (`COLLATE BINARY`), the ordered comparisons in the column's own collation, the order its
/// `sort` uses. NULL fails every comparison (SQL's own rule), `!=` and `in` included.
enum WhereSQL {
    /// The milliseconds since 1970 of a date cell's stored value (NULL when it is no date).
    static func instant(_ q: String) -> String {
        "(CASE WHEN typeof(\(q)) IN ('integer', 'real') THEN \(q) * 1000"
            + " ELSE CAST(round((julianday(\(q)) - 2440587.5) * 86400000.0) AS INTEGER) END)"
    }

    /// 1, 0 or NULL for a boolean cell's stored value, as ``Cells`` reads it.
    static func truth(_ q: String) -> String {
        "(CASE WHEN typeof(\(q)) IN ('integer', 'real') THEN \(q) <> 0"
            + " WHEN lower(\(q)) IN ('true', 't', 'yes', 'y', '1', 'on') THEN 1"
            + " WHEN lower(\(q)) IN ('false', 'f', 'no', 'n', '0', 'off') THEN 0 END)"
    }

    /// The bound value of a cell (already checked by ``Where/check``) for a column of `type`.
    static func bind(_ v: JSONValue, _ type: ColumnType) -> DatabaseValue {
        switch (v, type) {
        case (.bool(let b), _): return (b ? 1 : 0).databaseValue
        case (.int(let i), .date): return i.databaseValue
        case (.string(let s), .date): return (ISODateTime(s)?.millis ?? 0).databaseValue
        case (.int(let i), _): return i.databaseValue
        case (.double(let d), _): return d.databaseValue
        case (.string(let s), .integer), (.string(let s), .decimal):
            if let i = Int64(s) { return i.databaseValue }
            switch s {
            case "NaN": return DatabaseValue.null  // compares with nothing
            case "Infinity": return Double.infinity.databaseValue
            case "-Infinity": return (-Double.infinity).databaseValue
            default: return (Double(s) ?? 0).databaseValue
            }
        case (.string(let s), _): return s.databaseValue
        default: return .null
        }
    }

    /// One condition on `column` (its SQL name `name`).
    static func condition(_ c: WhereCondition, name: String, type: ColumnType) -> (String, [DatabaseValue]) {
        let q = SQLText.quote(name)
        switch c.op {
        case .null: return ("\(q) IS NULL", [])
        case .notNull: return ("\(q) IS NOT NULL", [])
        default: break
        }
        let values = c.values.map { bind($0, type) }
        let e: String, exact: String
        switch type {
        case .date: e = instant(q); exact = e
        case .bool: e = truth(q); exact = e
        case .text, .enumeration: e = q; exact = "\(q) COLLATE BINARY"
        case .integer, .decimal: e = q; exact = q
        }
        switch c.op {
        case .equal: return ("\(exact) = ?", values)
        case .notEqual: return ("\(exact) <> ?", values)
        case .less: return ("\(e) < ?", values)
        case .lessOrEqual: return ("\(e) <= ?", values)
        case .greater: return ("\(e) > ?", values)
        case .greaterOrEqual: return ("\(e) >= ?", values)
        case .between: return ("\(e) BETWEEN ? AND ?", values)
        case .in: return ("\(exact) IN (" + values.map { _ in "?" }.joined(separator: ", ") + ")", values)
        case .null, .notNull: return ("1", [])  // handled above
        }
    }
}

extension BrowsedTable {
    /// The SQL conditions (AND-ed) and their arguments of a selection: the filter, then each
    /// `where` condition. Checks the `where` first (-32602 naming the member).
    func conditions(_ s: Selection) throws -> ([String], [DatabaseValue]) {
        try Where.check(s.clause, columns: columnSpecs)
        var sql: [String] = [], args: [DatabaseValue] = []
        if let filter = s.filter { let f = filterClause(filter); sql.append(f.0); args += f.1 }
        for c in s.clause {
            guard let i = columnIDs.firstIndex(of: c.column) else { continue }  // checked above
            let (text, values) = WhereSQL.condition(c, name: columns[i].name, type: columns[i].type)
            sql.append("(" + text + ")"); args += values
        }
        return (sql, args)
    }

    /// ` WHERE a AND b` (or nothing) with the arguments.
    func whereSQL(_ s: Selection) throws -> (String, [DatabaseValue]) {
        let (sql, args) = try conditions(s)
        return (sql.isEmpty ? "" : " WHERE " + sql.joined(separator: " AND "), args)
    }
}

extension BrowsedTable {
    /// The rows a selection keeps, counted by the stored values of the columns at `indexes`
    /// (`GROUP BY`, text by bytes), as cells; bins are cut afterwards (``GroupBins``), by the
    /// protocol's rule on the values.
    func groups(_ indexes: [Int], selection: Selection, watch: QueryGuard?) throws -> [Group] {
        let (w, args) = try whereSQL(selection)
        let names = indexes.map { SQLText.quote(columns[$0].name) }
        let keys = zip(indexes, names).map { c, q in columns[c].type == .text ? "\(q) COLLATE BINARY" : q }
        let sql = "SELECT \(names.joined(separator: ", ")), count(*) FROM \(source)\(w) GROUP BY \(keys.joined(separator: ", "))"
        return try file.pages.read(watch) { db in
            var groups: [Group] = []
            let cursor = try GRDB.Row.fetchCursor(db, sql: sql, arguments: StatementArguments(args))
            while let row = try cursor.next() {
                let values = Array(row.databaseValues)
                let cells = indexes.enumerated().map { k, c in Cells.cell(values[k], type: columns[c].type) }
                groups.append(Group(cells: cells, count: Int(Int64.fromDatabaseValue(values[indexes.count]) ?? 0)))
            }
            return GroupBins.merge(groups)
        }
    }
}

extension BrowsedTable {
    /// Feeds the cells of every row a selection keeps (for `describe`), in no particular order,
    /// one row at a time: the rows are never all in memory.
    func eachRow(selection: Selection, watch: QueryGuard?, _ body: ([JSONValue]) -> Void) throws {
        let (w, args) = try whereSQL(selection)
        let names = columns.map { SQLText.quote($0.name) }
        let sql = "SELECT \(names.joined(separator: ", ")) FROM \(source)\(w)"
        try file.pages.read(watch) { db in
            let cursor = try GRDB.Row.fetchCursor(db, sql: sql, arguments: StatementArguments(args))
            while let row = try cursor.next() {
                let values = Array(row.databaseValues)
                body(columns.indices.map { c in Cells.cell(values[c], type: columns[c].type) })
            }
        }
    }
}
