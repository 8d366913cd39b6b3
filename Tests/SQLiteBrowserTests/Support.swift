import SeededRandom
import Foundation
import GRDB
import TabdeckProtocol
@testable import SQLiteBrowser

/// A database file in a fresh temporary folder, removed when the object goes away.
final class TempDatabase {
    let folder: String
    let path: String

    /// Creates the file and runs `setup` on a writable connection.
    init(_ setup: (Database) throws -> Void) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitebrowser-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        path = folder + "/test.sqlite"
        let queue = try DatabaseQueue(path: path)
        try queue.write(setup)
        try queue.close()
    }

    /// Changes the file as another process would.
    func write(_ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write(body)
        try queue.close()
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }
}


/// SQLite's order of stored values with the BINARY collation: NULL, then numbers (integers and
/// reals together, numerically), then text (by UTF-8 bytes), then blobs.
func sqliteCompare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
    func rank(_ v: DatabaseValue) -> Int {
        switch v.storage {
        case .null: 0
        case .int64, .double: 1
        case .string: 2
        case .blob: 3
        }
    }
    let (ra, rb) = (rank(a), rank(b))
    if ra != rb { return ra < rb ? -1 : 1 }
    switch (a.storage, b.storage) {
    case (.int64(let x), .int64(let y)): return x < y ? -1 : (x == y ? 0 : 1)
    case (.string(let x), .string(let y)):
        return x.utf8.elementsEqual(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
    case (.blob(let x), .blob(let y)):
        return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    case (.null, .null): return 0
    default:
        let x = Double.fromDatabaseValue(a)!, y = Double.fromDatabaseValue(b)!
        return x < y ? -1 : (x == y ? 0 : 1)
    }
}

/// The ids of all rows of `table` in the order of `sort`, computed in Swift from all the
/// stored values: the reference the pages are checked against. The rows are fetched as
/// `SELECT <idColumns>, <every column>`; the id columns are the unique last key, in the
/// direction of the last sort key, and `id` makes a row id from their values.
func referenceOrder(_ path: String, table: String, sort: [SortKey],
                    idColumns: [String], id: ([DatabaseValue]) -> String) throws -> [String] {
    let queue = try DatabaseQueue(path: path)
    defer { try? queue.close() }
    let names = try queue.read { db in try db.columns(in: table).map(\.name) }
    let select = (idColumns + names.map(SQLText.quote)).joined(separator: ", ")
    let rows: [[DatabaseValue]] = try queue.read { db in
        try Row.fetchAll(db, sql: "SELECT \(select) FROM \(SQLText.quote(table))").map { Array($0.databaseValues) }
    }
    let keys = sort.map { key in (idColumns.count + names.firstIndex(of: key.column)!, key.direction == .descending) }
    let sorted = rows.sorted { a, b in
        for (i, descending) in keys {
            let c = sqliteCompare(a[i], b[i])
            if c != 0 { return descending ? c > 0 : c < 0 }
        }
        let tieDescending = keys.last?.1 ?? false
        for i in idColumns.indices {
            let c = sqliteCompare(a[i], b[i])
            if c != 0 { return tieDescending ? c > 0 : c < 0 }
        }
        return false
    }
    return sorted.map { id(Array($0.prefix(idColumns.count))) }
}

extension BrowsedTable {
    /// Every row, page by page (`pageSize` rows at a time), with the plans used.
    func allPages(pageSize: Int, sort: [SortKey] = [], filter: String? = nil,
                  mode: PagingMode = .automatic) throws -> (rows: [TabdeckProtocol.Row], plans: [PagePlan]) {
        var rows: [TabdeckProtocol.Row] = []
        var plans: [PagePlan] = []
        while true {
            let page = try page(offset: rows.count, limit: pageSize, sort: sort, filter: filter, mode: mode)
            rows += page.rows
            plans.append(page.plan)
            if page.rows.count < pageSize { return (rows, plans) }
        }
    }
}

func asc(_ column: String) -> SortKey { SortKey(column, .ascending) }
func desc(_ column: String) -> SortKey { SortKey(column, .descending) }

extension DatabaseValue: @retroactive ExpressibleByIntegerLiteral, @retroactive ExpressibleByStringLiteral {
    public init(integerLiteral value: Int64) { self = value.databaseValue }
    public init(stringLiteral value: String) { self = value.databaseValue }
}
