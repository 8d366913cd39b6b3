/// The rows of an aggregate table from its counted groups (PROTOCOL.md 11.12), the one rule
/// for every engine that counts plain values (the plugin kit's ``Group`` tables, the host's
/// spool): natural order count descending, then the group cells ascending (``compare(_:_:_:)``);
/// ids `g0`, `g1`, …; cells the group cells, `count`, `percent` (count × 100 / rows) and
/// `cumulative`.
public enum GroupTable {
    /// The rows, how many rows were counted and the largest group's count.
    public static func rows(_ groups: [Group], groupColumns: [ColumnSpec]) -> (rows: [Row], counted: Int, largest: Int) {
        let natural = groups.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            for (k, spec) in groupColumns.enumerated() {
                let c = compare(a.cells[k], b.cells[k], spec)
                if c != 0 { return c < 0 }
            }
            return false
        }
        let total = natural.reduce(0) { $0 + $1.count }
        var running = 0
        let rows = natural.enumerated().map { i, g in
            running += g.count
            let percent = total == 0 ? 0 : Double(g.count) * 100 / Double(total)
            let cumulative = total == 0 ? 0 : Double(running) * 100 / Double(total)
            return Row(id: "g\(i)", cells: g.cells + [.int(Int64(g.count)), .double(percent), .double(cumulative)])
        }
        return (rows, total, natural.first?.count ?? 0)
    }

    /// Two cells of a column by the protocol's sort order: nulls smallest, then
    /// ``Where/compare(_:_:type:order:)``; cells that do not fit the type after those that do,
    /// by their JSON text.
    public static func compare(_ a: JSONValue, _ b: JSONValue, _ spec: ColumnSpec) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default:
            if let c = Where.compare(a, b, type: spec.type) { return c }
            let fa = Where.compare(a, a, type: spec.type) != nil, fb = Where.compare(b, b, type: spec.type) != nil
            if fa != fb { return fa ? -1 : 1 }
            let x = JSONWriter.string(a), y = JSONWriter.string(b)
            return x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        }
    }
}
