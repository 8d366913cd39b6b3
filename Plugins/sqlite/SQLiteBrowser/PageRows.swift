import Foundation
import GRDB
import TabdeckPluginKit
import TabdeckProtocol

/// Rows and ids of a page: cells typed by column, view rows numbered among identical ones.
extension BrowsedTable {
    /// The rows of the fetched values (the rowid first for rowid tables, then the columns).
    /// `previous` is the row before the page (views only). Text cells over 64 KiB are cut with
    /// the protocol's marker; the page ends early past ``pageBudget`` bytes (the result then
    /// says `more`, PROTOCOL.md 11.3).
    func makeRows(_ fetched: [[DatabaseValue]], previous: [DatabaseValue]?, offset: Int, selection: Selection,
                  terms: [OrderTerm], db: Database) throws -> [TabdeckProtocol.Row] {
        var rows: [TabdeckProtocol.Row] = []
        rows.reserveCapacity(fetched.count)
        var bytes = 0
        var duplicate = 0
        for (i, values) in fetched.enumerated() {
            let id: String
            switch identity {
            case .rowid:
                id = Cells.id(rowid: values[0])
            case .primaryKey(let key):
                id = Cells.id(primaryKey: key.map { values[lead + $0] })
            case .allColumns:
                if i == 0 {
                    if let previous, Self.same(previous, values) {
                        duplicate = try identicalRows(values, before: offset, selection: selection, terms: terms, db: db)
                    }
                } else {
                    duplicate = Self.same(fetched[i - 1], values) ? duplicate + 1 : 0
                }
                id = Cells.id(values: values, duplicate: duplicate)
            }
            var cells: [JSONValue] = []
            cells.reserveCapacity(columns.count)
            for (c, column) in columns.enumerated() {
                cells.append(Cells.cell(values[lead + c], type: column.type))
            }
            var row = TabdeckProtocol.Row(id: id, cells: cells)
            row.cutLongCells(columns: columnIDs)
            for cell in row.cells {
                if case .string(let s) = cell { bytes += s.utf8.count + 8 } else { bytes += 12 }
            }
            bytes += id.utf8.count + 24 + row.cut.count * 32
            if bytes > Self.pageBudget, !rows.isEmpty { break }
            rows.append(row)
        }
        return rows
    }

    /// How many rows identical to `values` come before position `offset` (they are adjacent:
    /// every column is a sort key of a view).
    func identicalRows(_ values: [DatabaseValue], before offset: Int, selection: Selection, terms: [OrderTerm],
                       db: Database) throws -> Int {
        let (w, args) = try whereSQL(selection)
        var arguments: [DatabaseValue] = args
        var sql = "SELECT count(*) FROM (SELECT " + columns.indices.map { "\(SQLText.quote(columns[$0].name)) AS _c\($0)" }
            .joined(separator: ", ") + " FROM \(source)" + w
        sql += " ORDER BY " + terms.map(\.sql).joined(separator: ", ") + " LIMIT ?) WHERE "
        arguments.append(offset.databaseValue)
        sql += columns.indices.map { "_c\($0) IS ?" }.joined(separator: " AND ")
        arguments += values.suffix(columns.count)
        return try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
    }

    /// The same stored values (same storage classes too).
    static func same(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            switch (x.storage, y.storage) {
            case (.null, .null): continue
            case (.int64(let p), .int64(let q)) where p == q: continue
            case (.double(let p), .double(let q)) where p.bitPattern == q.bitPattern: continue
            case (.string(let p), .string(let q)) where p.utf8.elementsEqual(q.utf8): continue
            case (.blob(let p), .blob(let q)) where p == q: continue
            default: return false
            }
        }
        return true
    }
}
