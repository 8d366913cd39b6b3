import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// One key of the ORDER BY: an SQL expression, where its value is in a fetched row, its
/// direction, and whether it can be NULL.
struct OrderTerm: Hashable {
    var expression: String
    var valueIndex: Int
    var descending: Bool
    var notNull: Bool

    var reversed: OrderTerm { var t = self; t.descending.toggle(); return t }
    var sql: String { expression + (descending ? " DESC" : " ASC") }
}

/// The SQL of an order, a keyset position and a filter.
extension BrowsedTable {
    /// The ORDER BY terms: the user's keys, then the unique tie-breaker.
    func orderTerms(_ sort: [SortKey]) throws -> [OrderTerm] {
        var terms: [OrderTerm] = []
        var used = Set<Int>()
        for (i, key) in sort.enumerated() {
            guard let c = columnIDs.firstIndex(of: key.column) else {
                throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
            }
            guard used.insert(c).inserted else { continue }  // a repeated key decides nothing more
            terms.append(term(c, descending: key.direction == .descending))
        }
        // The tie-breaker runs in the direction of the last key, so that an index on the key
        // columns (which ends with the rowid or the primary key) serves the whole order.
        let descending = terms.last?.descending ?? false
        switch identity {
        case .rowid(let r):
            terms.append(OrderTerm(expression: r, valueIndex: 0, descending: descending, notNull: true))
        case .primaryKey(let key):
            for c in key where !used.contains(c) { terms.append(term(c, descending: descending, notNull: true)) }
        case .allColumns:
            for c in columns.indices where !used.contains(c) { terms.append(term(c, descending: descending)) }
        }
        return terms
    }

    func term(_ c: Int, descending: Bool, notNull: Bool = false) -> OrderTerm {
        OrderTerm(expression: SQLText.quote(columns[c].name), valueIndex: lead + c, descending: descending,
                  notNull: notNull || columns[c].notNull)
    }

    /// `(a LIKE ? ESCAPE '\' OR b LIKE ? ESCAPE '\' …)` over the text and date columns (all
    /// columns if there are none), with the arguments.
    func filterClause(_ filter: String) -> (String, [DatabaseValue]) {
        // Every column: LIKE reads a number as its text (PROTOCOL.md 11.3, What a filter matches).
        let searched = columns
        let pattern = SQLText.likePattern(containing: filter).databaseValue
        let sql = "(" + searched.map { "\(SQLText.quote($0.name)) LIKE ? ESCAPE '\(SQLText.likeEscape)'" }
            .joined(separator: " OR ") + ")"
        return (sql, Array(repeating: pattern, count: searched.count))
    }

    /// The condition "the row comes after the row whose sort-key values are `key`" in the
    /// order of `terms`.
    ///
    /// When every key has the same direction and neither the anchor nor (for descending
    /// keys) the columns can hold NULL, it is SQLite's row-value comparison
    /// `(k1, k2, rowid) > (?, ?, ?)`, which an index can seek. Otherwise it is spelled out
    /// key by key with SQLite's NULL order (NULL first ascending, last descending):
    /// `k1 > ? OR (k1 = ? AND (k2 > ? OR (k2 = ? AND rowid > ?)))`, with a leading range on
    /// the first key when it has one.
    static func after(_ terms: [OrderTerm], _ key: [DatabaseValue]) -> (String, [DatabaseValue]) {
        precondition(terms.count == key.count && !terms.isEmpty)
        let descending = terms[0].descending
        if terms.allSatisfy({ $0.descending == descending }) && key.allSatisfy({ !$0.isNull })
            && (!descending || terms.allSatisfy(\.notNull)) {
            let op = descending ? "<" : ">"
            if terms.count == 1 { return ("\(terms[0].expression) \(op) ?", key) }
            let lhs = terms.map(\.expression).joined(separator: ", ")
            let rhs = Array(repeating: "?", count: key.count).joined(separator: ", ")
            return ("(\(lhs)) \(op) (\(rhs))", key)
        }
        var condition = ""
        var arguments: [DatabaseValue] = []
        for (t, v) in zip(terms, key).reversed() {
            let strictly = Self.strictlyAfter(t, v)
            if condition.isEmpty {
                condition = strictly?.0 ?? "0"
                arguments = strictly?.1 ?? []
                continue
            }
            let equal = v.isNull ? ("\(t.expression) IS NULL", []) : ("\(t.expression) = ?", [v])
            let tail = "(\(equal.0) AND \(condition))"
            if let strictly {
                condition = "(\(strictly.0) OR \(tail))"
                arguments = strictly.1 + equal.1 + arguments
            } else {
                condition = tail
                arguments = equal.1 + arguments
            }
        }
        // A range on the first key lets SQLite seek an index instead of scanning from the start.
        let first = terms[0], v = key[0]
        if !v.isNull && (!first.descending || first.notNull) {
            return ("\(first.expression) \(first.descending ? "<=" : ">=") ? AND \(condition)", [v] + arguments)
        }
        if v.isNull && first.descending {
            return ("\(first.expression) IS NULL AND \(condition)", arguments)
        }
        return (condition, arguments)
    }

    /// The common descending case the row-value comparison cannot take alone: every key
    /// descending, only the first can be NULL, the anchor has no NULL. The rows after the
    /// anchor are then those with `(k1, k2, …) < (anchor)` (an index range), followed by
    /// those with `k1 IS NULL` (NULLs sort last descending): two queries that both seek.
    static func splitAfter(_ terms: [OrderTerm], _ key: [DatabaseValue]) -> (values: (String, [DatabaseValue]), nulls: String)? {
        guard terms.count == key.count, let first = terms.first, !first.notNull,
              terms.allSatisfy(\.descending), terms.dropFirst().allSatisfy(\.notNull), key.allSatisfy({ !$0.isNull }) else { return nil }
        let lhs = terms.map(\.expression).joined(separator: ", ")
        let rhs = Array(repeating: "?", count: key.count).joined(separator: ", ")
        let values = terms.count == 1 ? "\(first.expression) < ?" : "(\(lhs)) < (\(rhs))"
        return ((values, key), "\(first.expression) IS NULL")
    }

    /// "Strictly after `v`" for one key, or nil when nothing is (NULL, descending: last).
    private static func strictlyAfter(_ t: OrderTerm, _ v: DatabaseValue) -> (String, [DatabaseValue])? {
        switch (t.descending, v.isNull) {
        case (false, true): ("\(t.expression) IS NOT NULL", [])
        case (false, false): ("\(t.expression) > ?", [v])
        case (true, true): nil
        case (true, false): t.notNull ? ("\(t.expression) < ?", [v]) : ("(\(t.expression) < ? OR \(t.expression) IS NULL)", [v])
        }
    }
}
