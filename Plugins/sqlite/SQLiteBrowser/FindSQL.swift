import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// A row found by `find` (PROTOCOL.md 11.15): its position in the request's order and filter,
/// its id as `rows` gives it, and whether the search went past the end (or the start).
public struct FoundRow: Hashable, Sendable {
    public var offset: Int
    public var id: String
    public var wrapped: Bool
}

/// `find` in one query, built from the ORDER BY and the WHERE of `rows` (``orderTerms(_:)``,
/// ``conditions(_:)``), so that positions agree with the pages exactly, ties included.
extension BrowsedTable {
    /// The first row from `request.from` on (or back) under the request's sort, filter and
    /// `where` with a cell containing `request.text` by the filter's rule (LIKE over every
    /// column, ``filterClause(_:)``); nil when none does.
    ///
    /// One scan: `SELECT pos, keys FROM (SELECT row_number() OVER (ORDER BY <rows' order>) - 1
    /// AS pos, keys, <match> AS hit FROM t WHERE <filter and where>) WHERE hit AND <range>
    /// ORDER BY <look order> LIMIT 1`, the look order for a wrapping search being
    /// `(pos < from), pos` (backward `(pos > from), pos DESC`). A view's id counts identical
    /// rows: it is read from the page at the position found.
    public func find(_ request: FindRequest, watch: QueryGuard? = nil) throws -> FoundRow? {
        let selection = Selection(filter: request.filter, where: request.where)
        let terms = try orderTerms(request.sort)
        let (conditions, conditionArguments) = try conditions(selection)
        let (hit, hitArguments) = filterClause(request.text)
        let keys: [String] = switch identity {
        case .rowid(let r): [r]
        case .primaryKey(let key): key.map { SQLText.quote(columns[$0].name) }
        case .allColumns: []
        }
        let sql = Self.findSQL(source: source, order: terms.map(\.sql), keys: keys, hit: hit, conditions: conditions,
                               backward: request.backward, wrap: request.wrap)
        let arguments = hitArguments + conditionArguments + [request.from.databaseValue]
        let found: [DatabaseValue]? = try file.pages.read(watch) { db in
            try GRDB.Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)).map { Array($0.databaseValues) }
        }
        guard let found, let position = Int64.fromDatabaseValue(found[0]).map(Int.init) else { return nil }
        let wrapped = request.backward ? position > request.from : position < request.from
        let id: String
        switch identity {
        case .rowid: id = Cells.id(rowid: found[1])
        case .primaryKey: id = Cells.id(primaryKey: Array(found.dropFirst()))
        case .allColumns:
            let page = try page(offset: position, limit: 1, sort: request.sort, filter: request.filter, where: request.where,
                                watch: watch)
            guard let row = page.rows.first else { return nil }  // the view changed in between
            id = row.id
        }
        return FoundRow(offset: position, id: id, wrapped: wrapped)
    }

    /// The SQL of ``find(_:watch:)``: arguments the `hit`'s, the conditions', then `from`
    /// (used once: as the range without `wrap`, in the look order with it).
    static func findSQL(source: String, order: [String], keys: [String], hit: String, conditions: [String],
                        backward: Bool, wrap: Bool) -> String {
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let keyList = keys.enumerated().map { ", \($1) AS _k\($0)" }.joined()
        let inner = "SELECT row_number() OVER (ORDER BY \(order.joined(separator: ", "))) - 1 AS _pos\(keyList), \(hit) AS _hit"
            + " FROM \(source)\(whereClause)"
        let look: String
        switch (backward, wrap) {
        case (false, false): look = "_hit AND _pos >= ? ORDER BY _pos"
        case (false, true): look = "_hit ORDER BY (_pos < ?), _pos"
        case (true, false): look = "_hit AND _pos <= ? ORDER BY _pos DESC"
        case (true, true): look = "_hit ORDER BY (_pos > ?), _pos DESC"
        }
        let outputs = ["_pos"] + keys.indices.map { "_k\($0)" }
        return "SELECT \(outputs.joined(separator: ", ")) FROM (\(inner)) WHERE \(look) LIMIT 1"
    }
}
