/// Counting groups by the protocol's rules (PROTOCOL.md 11.12), for engines that group by
/// plain values (the SQLite and PostgreSQL plugins' tables in memory, the host's spool): the
/// groups, then their bins by ``Bins``.
/// One group of an `aggregate` (PROTOCOL.md 11.12): its cells (one per group column) and how
/// many rows it has.
public struct Group: Hashable, Sendable {
    public var cells: [JSONValue]
    public var count: Int

    public init(cells: [JSONValue], count: Int) { self.cells = cells; self.count = count }
}

/// Bins computed by the protocol's one rule (``Bins``) from already counted groups, for the
/// engines (and tables) that group by the plain values: the reference rule, applied to values.
public enum GroupBins {
    /// Checks the group columns of `request` against `columns`: known, `bins` only on numbers
    /// and dates. Returns the indexes of the columns.
    public static func check(_ request: AggregateRequest, columns: [ColumnSpec]) throws(JSONFieldError) -> [Int] {
        var indexes: [Int] = []
        for (i, g) in request.group.enumerated() {
            guard let c = columns.firstIndex(where: { $0.id == g.column }) else {
                throw JSONFieldError(path: "params.group[\(i)].column", reason: "no column \"\(g.column)\"")
            }
            if g.bins != nil, ![.integer, .decimal, .date].contains(columns[c].type) {
                throw JSONFieldError(path: "params.group[\(i)].bins",
                                     reason: "\(g.column) is a \(columns[c].type.name) column; bins are for integer, decimal and date columns")
            }
            indexes.append(c)
        }
        return indexes
    }

    /// The groups with their binned columns cut into bins (where a column has more than `bins`
    /// distinct non-null values), merged; and how each binned column was cut.
    public static func apply(_ groups: [Group], columns: [ColumnSpec], bins: [Int?]) -> (groups: [Group], sizes: [String: BinSize]) {
        var groups = groups
        var sizes: [String: BinSize] = [:]
        for (k, binCount) in bins.enumerated() {
            guard let binCount else { continue }
            let spec = columns[k]
            if spec.type == .date {
                var distinct = Set<Int64>(), dateOnly = true
                for g in groups {
                    guard case .string(let s) = g.cells[k], let d = ISODateTime(s) else { continue }
                    distinct.insert(d.millis)
                    if !d.dateOnly { dateOnly = false }
                }
                guard distinct.count > binCount, let lo = distinct.min(), let hi = distinct.max() else { continue }
                let unit = Bins.unit(minMillis: lo, maxMillis: hi, count: binCount)
                sizes[spec.id] = .unit(unit)
                for i in groups.indices {
                    guard case .string(let s) = groups[i].cells[k], let d = ISODateTime(s) else { continue }
                    groups[i].cells[k] = .string(Bins.text(Bins.startMillis(d.millis, unit), unit, dateOnly: dateOnly))
                }
            } else {
                var distinct = Set<ExactNumber>()
                var lo = Double.infinity, hi = -Double.infinity
                for g in groups {
                    guard let n = ExactNumber(cell: g.cells[k], type: spec.type), n.kind == .finite, let d = Double(n.text) else { continue }
                    distinct.insert(n)
                    lo = min(lo, d); hi = max(hi, d)
                }
                guard distinct.count > binCount else { continue }
                let integer = spec.type == .integer
                let width = Bins.width(min: lo, max: hi, count: binCount, integer: integer)
                sizes[spec.id] = .width(Bins.text(width))
                for i in groups.indices {
                    guard let n = ExactNumber(cell: groups[i].cells[k], type: spec.type), n.kind == .finite,
                          let d = Double(n.text) else { continue }
                    let start = Bins.start(d, width: width)
                    groups[i].cells[k] = integer && abs(start) < 9e18 ? .int(Int64(start)) : .string(Bins.text(start))
                }
            }
        }
        if sizes.isEmpty { return (groups, sizes) }
        return (merge(groups), sizes)
    }

    /// Groups with equal cells made one (their counts added), in first-seen order.
    public static func merge(_ groups: [Group]) -> [Group] {
        var index: [[JSONValue]: Int] = [:]
        var out: [Group] = []
        for g in groups {
            if let i = index[g.cells] { out[i].count += g.count } else { index[g.cells] = out.count; out.append(g) }
        }
        return out
    }

    /// Counts rows (cells of `columns`) by the values of the columns at `indexes`: the groups of
    /// an in-memory table (the catalog, an aggregate table).
    public static func count(_ rows: [[JSONValue]], indexes: [Int]) -> [Group] {
        merge(rows.map { r in Group(cells: indexes.map { $0 < r.count ? r[$0] : .null }, count: 1) })
    }
}
