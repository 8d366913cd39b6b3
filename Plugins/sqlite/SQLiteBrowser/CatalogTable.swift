import Foundation
import TabdeckProtocol

/// The first level of the plugin: the database's tables and views as rows, sorted and
/// filtered in memory (a catalog is small).
enum CatalogTable {
    static let columns: [ColumnSpec] = [
        ColumnSpec(id: "name", title: "Name", type: .text, width: .flexible(min: 8, ideal: 24, max: 48)),
        ColumnSpec(id: "kind", title: "Kind", type: .enumeration(ObjectKind.names), width: .flexible(min: 4, ideal: 13, max: 13)),
        ColumnSpec(id: "rows", title: "Rows", type: .integer, width: .flexible(min: 4, ideal: 10, max: 16)),
        ColumnSpec(id: "columns", title: "Columns", type: .text),
    ]

    struct Item {
        var entry: CatalogEntry
        var count: Int?
    }

    /// The rows at `offset ..< offset + limit` after filtering (some cell containing the text,
    /// ignoring case) and sorting (ties by name, which is unique).
    static func page(_ items: [Item], offset: Int, limit: Int, sort: [SortKey], filter: String?,
                     where clause: WhereClause = []) throws -> (rows: [Row], total: Int) {
        try Where.check(clause, columns: columns)
        for (i, key) in sort.enumerated() where !columns.contains(where: { $0.id == key.column }) {
            throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
        }
        var items = items
        if let filter, !filter.isEmpty {
            let needle = filter.lowercased()
            // Every cell's text, the row count's digits too (PROTOCOL.md 11.3, What a filter matches).
            items = items.filter { item in
                [item.entry.name, item.entry.kind.rawValue, item.count.map { String($0) } ?? "", item.entry.columnSummary]
                    .contains { $0.lowercased().contains(needle) }
            }
        }
        if !clause.isEmpty { items = items.filter { Where.matches(row($0).cells, columns: columns, clause) } }
        items.sort { a, b in
            for key in sort {
                let c = compare(a, b, key.column)
                if c != 0 { return key.direction == .ascending ? c < 0 : c > 0 }
            }
            return a.entry.name.utf8.lexicographicallyPrecedes(b.entry.name.utf8)
        }
        let start = min(offset, items.count), end = offset + limit > items.count || offset + limit < 0 ? items.count : offset + limit
        return (items[start..<end].map(row), items.count)
    }

    static func row(_ item: Item) -> Row {
        let e = item.entry
        let sql = e.sql.map { $0.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
        return Row(id: e.name,
                   cells: [.string(e.name), .string(e.kind.rawValue), item.count.map { .int(Int64($0)) } ?? .null,
                           .string(Cells.cut(e.columnSummary))],
                   detail: sql.map(Cells.cut), hasChildren: e.problem == nil)
    }

    /// -1, 0, 1 for a before, equal to, after b in ascending order of the column (nulls first).
    static func compare(_ a: Item, _ b: Item, _ column: String) -> Int {
        func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        func bytes(_ x: String, _ y: String) -> Int {
            x.utf8.elementsEqual(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        }
        switch column {
        case "name": return bytes(a.entry.name, b.entry.name)
        case "kind":
            let kinds = ObjectKind.allCases
            return order(kinds.firstIndex(of: a.entry.kind)!, kinds.firstIndex(of: b.entry.kind)!)
        case "rows":
            switch (a.count, b.count) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): return order(x, y)
            }
        default: return bytes(a.entry.columnSummary, b.entry.columnSummary)
        }
    }
}
