import TabdeckPluginKit
import TabdeckProtocol

/// What identifies a row of a browsed relation, so that its id names the same row under every
/// sort and filter (PROTOCOL.md 10.5): the primary key; else the smallest unique index whose
/// columns cannot be NULL; else a key declared in the tab's args; else, for tables, the row's
/// place (`ctid`, with `tableoid` in a partitioned table, whose partitions repeat ctids). A view
/// without a declared key has none: its rows are numbered by position and its ids are
/// declared unstable.
public enum PGIdentity: Hashable, Sendable {
    /// Columns whose values are unique and not NULL.
    case key([PGColumn], source: KeySource)
    /// `ctid`, with `tableoid` first when `partitioned`.
    case place(partitioned: Bool)
    /// Positions: ids that name another row after a sort.
    case none

    public enum KeySource: String, Hashable, Sendable { case primaryKey = "primary key", uniqueIndex = "unique index", declared = "declared key" }

    /// The tie-breaking ORDER BY terms.
    var terms: [PGOrderTerm] {
        switch self {
        case .key(let columns, _): return columns.map { var t = PGOrderTerm($0); t.notNull = true; return t }
        case .place(let partitioned):
            let ctid = PGOrderTerm(expression: "ctid", castFormat: "$n::tid", descending: false, notNull: true)
            return partitioned ? [PGOrderTerm(expression: "tableoid", castFormat: "$n::oid", descending: false, notNull: true), ctid] : [ctid]
        case .none: return []
        }
    }

    /// The key columns, for deleting by key.
    var keyColumns: [PGColumn] { if case .key(let c, _) = self { c } else { [] } }
}

/// Reads a relation's columns, identity and estimate from the catalog.
enum PGRelation {
    struct Read {
        var columns: [PGColumn]
        /// Columns left out: no SELECT privilege.
        var hidden: [String]
        var identity: PGIdentity
        var isView: Bool
        var estimate: Int?
    }

    /// `declaredKey`: column names from the args, used when the relation has no unique key.
    static func read(_ connection: PGConnection, schema: String, name: String, declaredKey: [String]?) throws -> Read {
        let rel = try connection.query("""
            SELECT c.oid::text, c.relkind::text,
              CASE WHEN c.relkind = 'p' THEN (SELECT sum(GREATEST(p.reltuples, 0))::bigint FROM pg_partition_tree(c.oid) t
                JOIN pg_class p ON p.oid = t.relid WHERE t.isleaf)::text ELSE c.reltuples::bigint::text END,
              has_table_privilege(c.oid, 'SELECT')::text
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2
            """, [schema, name])
        guard let r = rel.first, let oid = r[0] else {
            throw RPCError.badParams("params.args.table: no table or view \"\(schema).\(name)\"", path: "params.args.table")
        }
        let kind = r[1] ?? "r"
        let estimate = (r[2].flatMap { Int($0) }).flatMap { $0 >= 0 ? $0 : nil }
        let tableGrant = r[3] == "true"
        // The database's own collation: a column with the default collation sorts by it.
        let dbCollation = try connection.query("SELECT datcollate::text FROM pg_database WHERE datname = current_database()").first?[0] ?? "C"
        let rows = try connection.query("""
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull::text,
              bt.typname::text, et.typname::text,
              CASE WHEN a.attcollation = 0 THEN NULL WHEN co.collname = 'default' THEN $2 ELSE co.collname::text END,
              has_column_privilege(a.attrelid, a.attnum, 'SELECT')::text,
              CASE WHEN bt.typtype = 'e' THEN (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = bt.oid)::text END
            FROM pg_attribute a
            JOIN pg_type t ON t.oid = a.atttypid
            JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
            LEFT JOIN pg_type et ON et.oid = bt.typelem AND bt.typcategory = 'A'
            LEFT JOIN pg_collation co ON co.oid = a.attcollation
            WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """, [oid, dbCollation])
        var columns: [PGColumn] = [], hidden: [String] = []
        for row in rows {
            let name = row[0] ?? ""
            guard row[6] == "true" else { hidden.append(name); continue }
            columns.append(PGColumn(name: name, sqlType: row[1] ?? "text", notNull: row[2] == "true", typeName: row[3] ?? "text",
                                    enumLabels: row[7].flatMap(Self.labels), collation: Self.collation(row[5]),
                                    elementTypeName: row[4]))
        }
        guard !columns.isEmpty else {
            throw RPCError(code: RPCError.internalError, message: "PostgreSQL: permission denied: no column of \(schema).\(name) may be read")
        }
        let isView = kind == "v" || kind == "f"
        return Read(columns: columns, hidden: hidden,
                    identity: try identity(connection, oid: oid, kind: kind, columns: columns, tableGrant: tableGrant, declaredKey: declaredKey),
                    isView: isView, estimate: estimate)
    }

    private static func identity(_ connection: PGConnection, oid: String, kind: String, columns: [PGColumn], tableGrant: Bool,
                                 declaredKey: [String]?) throws -> PGIdentity {
        // Unique, valid, not partial, no expressions, every column NOT NULL: the primary key first,
        // then the narrowest.
        let keys = try connection.query("""
            SELECT i.indisprimary::text, (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)::text
            FROM pg_index i WHERE i.indrelid = $1::oid AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
              AND NOT EXISTS (SELECT 1 FROM unnest(i.indkey) k(attnum) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                              WHERE NOT a.attnotnull)
            ORDER BY i.indisprimary DESC, i.indnatts, i.indexrelid
            """, [oid])
        for key in keys {
            guard let names = key[1].flatMap(Self.labels) else { continue }
            let found = names.compactMap { n in columns.first { $0.name == n } }
            // A key column the role may not read cannot order the rows: try the next key.
            if found.count == names.count {
                return .key(found, source: key[0] == "true" ? .primaryKey : .uniqueIndex)
            }
        }
        if let declaredKey, !declaredKey.isEmpty {
            var found: [PGColumn] = []
            for (i, n) in declaredKey.enumerated() {
                guard let c = columns.first(where: { $0.name == n }) else {
                    throw RPCError.badParams("params.args.key[\(i)]: no column \"\(n)\"", path: "params.args.key[\(i)]")
                }
                found.append(c)
            }
            return .key(found, source: .declared)
        }
        switch kind {
        case "r", "m": return tableGrant ? .place(partitioned: false) : .none
        case "p": return tableGrant ? .place(partitioned: true) : .none
        default: return .none
        }
    }

    /// A JSON array of strings (`json_agg`'s text).
    static func labels(_ json: String) -> [String]? {
        guard case .array(let items)? = try? JSONParser.parse(json) else { return nil }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    /// A text column's collation when it is not byte order (nil: `C`, `POSIX`, `C.UTF-8`).
    static func collation(_ name: String?) -> String? {
        guard let name else { return nil }
        return ["C", "POSIX", "C.UTF-8", "C.utf8", "ucs_basic"].contains(name) ? nil : name
    }
}
