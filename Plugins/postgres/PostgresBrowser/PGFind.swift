import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// `find` (PROTOCOL.md 11.15) on the server in one query, built from the ORDER BY and the
/// WHERE of `rows` (``PGSQL/orderTerms(_:columns:identity:)``, ``PGTable/selection(filter:where:)``),
/// so that positions agree with the pages exactly, ties included.
extension PGTable {
    /// The first row from `request.from` on (or back) under the request's sort, filter and
    /// `where` with a cell containing `request.text` by the filter's rule (``PGSQL/filter(columns:parameter:)``).
    /// Runs as one query (``PGSQL/find(source:order:keys:hit:conditions:from:backward:wrap:)``);
    /// the connection sends its heartbeat while it runs and cancels it on the server on `$/cancel`.
    public func find(_ request: FindRequest, cancel: CancellationFlag?) throws -> FindResult {
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        try Where.check(request.where, columns: columnSpecs)
        var terms = try PGSQL.orderTerms(request.sort, columns: columns, identity: identity.terms)
        if identity == .none {
            // As `rows` orders a relation without identity: every sortable column after the user's keys.
            terms += columns.filter(\.sortable).map(PGOrderTerm.init).filter { t in !terms.contains { $0.expression == t.expression } }
        }
        let (conditions, binds) = selection(filter: filter, where: request.where)
        let hit = PGSQL.filter(columns: columns, parameter: binds.count + 1)
        // The row id as `rows` makes it: the identity's values, the last keys of the order.
        let keys = identity == .none ? [] : terms.suffix(identity.terms.count).map { "(\($0.expression))::text" }
        let sql = PGSQL.find(source: source, order: terms.map(\.sql), keys: keys, hit: hit, conditions: conditions,
                             from: binds.count + 2, backward: request.backward, wrap: request.wrap)
        let found = try connection.query(sql, binds + [PGSQL.containsPattern(request.text), String(request.from)], cancel: cancel)
        guard let first = found.first, let position = first.first.flatMap({ $0 }).flatMap({ Int($0) }) else {
            return FindResult(generation: request.generation, offset: nil)
        }
        let id = identity == .none ? "#\(position)" : Self.rowID(Array(first.dropFirst()))
        let wrapped = request.backward ? position > request.from : position < request.from
        return FindResult(generation: request.generation, offset: position, row: id, wrapped: wrapped)
    }
}

extension PGSQL {
    /// The query of `find`: `SELECT pos, keys FROM (SELECT row_number() OVER (ORDER BY <rows'
    /// order>) - 1 AS pos, keys, <hit> AS hit FROM source WHERE <conditions>) s WHERE hit AND
    /// <range> ORDER BY <look order> LIMIT 1`, so that the server scans once. `from` is the
    /// parameter number of the start (a range without `wrap`; with it, the look order
    /// `(pos < from), pos`, backward `(pos > from), pos DESC`). Outputs as text.
    public static func find(source: String, order: [String], keys: [String], hit: String, conditions: [String], from: Int,
                            backward: Bool, wrap: Bool) -> String {
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        let keyList = keys.enumerated().map { ", \($1) AS tabdeck_k\($0)" }.joined()
        let inner = "SELECT row_number() OVER (ORDER BY \(order.joined(separator: ", "))) - 1 AS tabdeck_pos\(keyList),"
            + " \(hit) AS tabdeck_hit FROM \(source)\(whereClause)"
        let start = "$\(from)::bigint"
        let look: String
        switch (backward, wrap) {
        case (false, false): look = "tabdeck_hit AND tabdeck_pos >= \(start) ORDER BY tabdeck_pos"
        case (false, true): look = "tabdeck_hit ORDER BY (tabdeck_pos < \(start)), tabdeck_pos"
        case (true, false): look = "tabdeck_hit AND tabdeck_pos <= \(start) ORDER BY tabdeck_pos DESC"
        case (true, true): look = "tabdeck_hit ORDER BY (tabdeck_pos > \(start)), tabdeck_pos DESC"
        }
        let outputs = ["tabdeck_pos::text AS tabdeck_at"] + keys.indices.map { "tabdeck_k\($0)" }
        return "SELECT \(outputs.joined(separator: ", ")) FROM (\(inner)) AS tabdeck_s WHERE \(look) LIMIT 1"
    }
}
