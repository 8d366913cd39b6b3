import TabdeckPluginKit
import TabdeckProtocol

/// The root table without `table`: one row per table, view and materialized view of every
/// user schema, with the planner's row estimate; a row's children are its rows.
enum PGCatalog {
    struct Entry: Hashable {
        var schema: String
        var name: String
        var kind: String
        var estimate: Int?
        var id: String { schema + "." + name }
    }

    static let kinds = ["table", "view", "materialized view", "partitioned table", "foreign table"]

    static let columns: [ColumnSpec] = [
        ColumnSpec(id: "schema", title: "Schema", type: .text, width: .flexible(min: 6, ideal: 12, max: 24)),
        ColumnSpec(id: "name", title: "Name", type: .text, width: .flexible(min: 8, ideal: 24, max: 48)),
        ColumnSpec(id: "kind", title: "Kind", type: .enumeration(kinds), width: .flexible(min: 4, ideal: 10, max: 17)),
        ColumnSpec(id: "rows", title: "≈ Rows", type: .integer, width: .flexible(min: 4, ideal: 10, max: 16)),
    ]

    static func read(_ connection: PGConnection) throws -> [Entry] {
        try connection.query("""
            SELECT n.nspname::text, c.relname::text, c.relkind::text, c.reltuples::bigint::text FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
              AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
            ORDER BY 1, 2
            """).map { r in
            let kind = switch r[2] ?? "r" {
            case "v": "view"
            case "m": "materialized view"
            case "p": "partitioned table"
            case "f": "foreign table"
            default: "table"
            }
            let estimate = (r[3].flatMap { Int($0) }).flatMap { $0 >= 0 ? $0 : nil }
            return Entry(schema: r[0] ?? "", name: r[1] ?? "", kind: kind, estimate: estimate)
        }
    }

    /// A page of the catalog, filtered and sorted in memory (ties by schema and name, unique).
    static func page(_ entries: [Entry], offset: Int, limit: Int, sort: [SortKey], filter: String?,
                     where clause: WhereClause = []) throws -> (rows: [Row], total: Int) {
        try Where.check(clause, columns: columns)
        for (i, key) in sort.enumerated() where !columns.contains(where: { $0.id == key.column }) {
            throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
        }
        var items = entries
        if let filter, !filter.isEmpty {
            let needle = filter.lowercased()
            items = items.filter { e in
                [e.schema, e.name, e.kind, e.estimate.map(String.init) ?? ""].contains { $0.lowercased().contains(needle) }
            }
        }
        func compare(_ a: Entry, _ b: Entry, _ column: String) -> Int {
            func bytes(_ x: String, _ y: String) -> Int { x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1) }
            switch column {
            case "schema": return bytes(a.schema, b.schema)
            case "name": return bytes(a.name, b.name)
            case "kind":
                let x = kinds.firstIndex(of: a.kind)!, y = kinds.firstIndex(of: b.kind)!
                return x < y ? -1 : (x == y ? 0 : 1)
            default:
                switch (a.estimate, b.estimate) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case let (x?, y?): return x < y ? -1 : (x == y ? 0 : 1)
                }
            }
        }
        func cells(_ e: Entry) -> [JSONValue] {
            [.string(e.schema), .string(e.name), .string(e.kind), e.estimate.map { .int(Int64($0)) } ?? .null]
        }
        if !clause.isEmpty { items = items.filter { Where.matches(cells($0), columns: columns, clause) } }
        items.sort { a, b in
            for key in sort {
                let c = compare(a, b, key.column)
                if c != 0 { return key.direction == .ascending ? c < 0 : c > 0 }
            }
            let s = compare(a, b, "schema")
            return s != 0 ? s < 0 : compare(a, b, "name") < 0
        }
        let start = min(offset, items.count), end = min(offset + limit, items.count)
        let rows = items[start..<end].map { e in
            Row(id: e.id, cells: cells(e), hasChildren: true)
        }
        return (rows, items.count)
    }
}
