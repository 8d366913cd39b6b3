import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// `where` (PROTOCOL.md 11.11) and the group expressions of `aggregate` (11.12) as PostgreSQL
/// SQL with bound parameters: values travel as text parameters (`$n::type`), never in the SQL
/// text. Pure: the tests check it without a server.
///
/// Each condition compares the way the column sorts (``PGColumn``): numbers exactly (a
/// `numeric` parameter, or `int8` when the value fits), floats as the column's float type,
/// `timestamptz` by instant, `timestamp` and `date` as UTC wall clock (a date alone is its
/// midnight UTC), enums in their declared order (the server's own), text `=`, `!=` and `in` by
/// bytes (`COLLATE "C"`) and the ordered comparisons in the column's collation, as its sort.
/// NULL fails every comparison (SQL's own rule).
public enum PGWhere {
    /// The SQL of every condition (to be AND-ed) with their parameters, numbered from `first`.
    /// The clause must have been checked (``Where/check``) against the columns.
    public static func conditions(_ clause: WhereClause, columns: [PGColumn], first: Int) -> (sql: [String], binds: [String?]) {
        var sql: [String] = [], binds: [String?] = []
        for c in clause {
            guard let column = columns.first(where: { $0.name == c.column }) else { continue }
            let (text, values) = condition(c, column, first: first + binds.count)
            sql.append(text); binds += values
        }
        return (sql, binds)
    }

    /// One condition with its parameters numbered from `first`.
    public static func condition(_ c: WhereCondition, _ column: PGColumn, first: Int) -> (String, [String?]) {
        let q = PGSQL.quote(column.name)
        switch c.op {
        case .null: return ("\(q) IS NULL", [])
        case .notNull: return ("\(q) IS NOT NULL", [])
        default: break
        }
        var binds: [String?] = []
        var n = first
        func param(_ v: JSONValue, exact: Bool) -> String {
            binds.append(text(v, column))
            defer { n += 1 }
            return parameter(n, v, column, exact: exact)
        }
        let ordered = subject(column, exact: false), exact = subject(column, exact: true)
        let sql: String
        switch c.op {
        case .equal: sql = "\(exact) = \(param(c.values[0], exact: true))"
        case .notEqual: sql = "\(exact) <> \(param(c.values[0], exact: true))"
        case .less: sql = "\(ordered) < \(param(c.values[0], exact: false))"
        case .lessOrEqual: sql = "\(ordered) <= \(param(c.values[0], exact: false))"
        case .greater: sql = "\(ordered) > \(param(c.values[0], exact: false))"
        case .greaterOrEqual: sql = "\(ordered) >= \(param(c.values[0], exact: false))"
        case .between:
            let low = param(c.values[0], exact: false), high = param(c.values[1], exact: false)
            sql = "\(ordered) BETWEEN \(low) AND \(high)"
        case .in: sql = "\(exact) IN (" + c.values.map { param($0, exact: true) }.joined(separator: ", ") + ")"
        case .null, .notNull: sql = "TRUE"  // handled above
        }
        return (sql, binds)
    }

    /// Text-typed columns the server compares as text (the others by their own type).
    static let textual: Set<String> = ["text", "varchar", "name", "bpchar"]

    /// The left side of a comparison: the column (an index serves it), or its text as shown for
    /// the protocol-text types that are not text on the server, for `=`, `!=` and `in`
    /// (exact as shown) and for the types without an order.
    static func subject(_ column: PGColumn, exact: Bool) -> String {
        let q = PGSQL.quote(column.name)
        guard column.type == .text, !textual.contains(column.typeName) else { return q }
        return exact || !column.sortable ? "(\(column.valueExpression))" : q
    }

    /// `$n` as the type the column compares with.
    static func parameter(_ n: Int, _ v: JSONValue, _ column: PGColumn, exact: Bool) -> String {
        let p = "$\(n)"
        switch column.type {
        case .integer:
            if case .string(let s) = v, Int64(s) == nil { return "\(p)::numeric" }
            return "\(p)::int8"
        case .decimal: return column.typeName == "numeric" ? "\(p)::numeric" : "\(p)::\(column.sqlType)"
        case .bool: return "\(p)::boolean"
        case .enumeration: return "\(p)::\(column.sqlType)"
        case .date: return column.typeName == "timestamptz" ? "\(p)::timestamptz" : "(\(p)::timestamptz AT TIME ZONE 'UTC')"
        case .text:
            if textual.contains(column.typeName) {
                let cast = column.typeName == "bpchar" ? "bpchar" : "text"
                return exact ? "\(p)::\(cast) COLLATE \"C\"" : "\(p)::\(cast)"
            }
            return exact || !column.sortable ? "\(p)::text COLLATE \"C\"" : "\(p)::\(column.sqlType)"
        }
    }

    /// A parameter's text: numbers as their digits, booleans `true`/`false`, dates with their
    /// zone (none: UTC, as the protocol reads them).
    static func text(_ v: JSONValue, _ column: PGColumn) -> String {
        switch v {
        case .string(let s) where column.type == .date:
            if s.utf8.count == 10 { return s + "T00:00:00Z" }
            return ISODateTime(s + "Z") != nil ? s + "Z" : s
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return ExactNumber(d).text
        default: return JSONWriter.string(v)
        }
    }

    // MARK: aggregate

    /// The column's instant as a UTC wall clock (`timestamp`).
    static func utcWallClock(_ column: PGColumn) -> String {
        let q = PGSQL.quote(column.name)
        switch column.typeName {
        case "timestamptz": return "(\(q) AT TIME ZONE 'UTC')"
        case "date": return "\(q)::timestamp"
        default: return q
        }
    }

    /// Milliseconds since 1970 of a `timestamp` expression, as text.
    static func millis(_ wallClock: String) -> String { "floor(extract(epoch FROM \(wallClock)) * 1000)::int8::text" }

    /// The statistics of a column to bin: min, max (numbers as text; dates in milliseconds) and
    /// the number of distinct non-null values, up to `bins + 1`, under `conditions`.
    public static func binStatistics(_ column: PGColumn, source: String, conditions: [String], bins: Int) -> String {
        let q = PGSQL.quote(column.name)
        let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        // As text: an integer column cannot take the literal 'NaN' (PostgreSQL says 22P02).
        let finite = column.type == .date ? "isfinite(\(q))" : "\(q)::text NOT IN ('NaN', 'Infinity', '-Infinity')"
        let andFinite = (conditions.isEmpty ? " WHERE " : whereSQL + " AND ") + "\(q) IS NOT NULL AND \(finite)"
        let (lo, hi) = column.type == .date
            ? (millis("min(\(utcWallClock(column)))"), millis("max(\(utcWallClock(column)))"))
            : ("min(\(q))::text", "max(\(q))::text")
        return "SELECT \(lo), \(hi), (SELECT count(*) FROM (SELECT DISTINCT \(q) FROM \(source)\(andFinite) LIMIT \(bins + 1)) d)::text"
            + " FROM \(source)\(andFinite)"
    }

    /// A binned column's group expression: the bin start, `floor(v / width) × width` in exact
    /// numeric arithmetic (the width a parameter, `$n`), or the date truncated to `unit` in UTC
    /// (its milliseconds).
    public static func binExpression(_ column: PGColumn, size: BinSize, parameter n: Int) -> String {
        let q = PGSQL.quote(column.name)
        switch size {
        case .width: return "(floor(\(q)::numeric / $\(n)::numeric) * $\(n)::numeric)::text"
        case .unit(let unit): return millis("date_trunc('\(unit.rawValue)', \(utcWallClock(column)))")
        }
    }

    /// `SELECT g1, g2, …, count(*)::text FROM source WHERE … GROUP BY 1, 2, …`.
    public static func groupQuery(_ expressions: [String], source: String, conditions: [String]) -> String {
        let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        return "SELECT \(expressions.joined(separator: ", ")), count(*)::text FROM \(source)\(whereSQL) GROUP BY "
            + expressions.indices.map { String($0 + 1) }.joined(separator: ", ")
    }

    /// A numeric text without trailing fraction zeros (`20.0` → `20`, `-0.50` → `-0.5`, `-0` → `0`).
    public static func trimmed(_ s: String) -> String {
        guard s.contains(".") else { return s == "-0" ? "0" : s }
        var t = s
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t == "-0" ? "0" : t
    }
}
