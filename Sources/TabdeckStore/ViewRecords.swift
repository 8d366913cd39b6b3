import Foundation
import GRDB
import TabdeckCore
import TabdeckProtocol

/// A row of `table_view`: everything of a ``TableViewState`` but the selection.
struct TableViewRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "table_view"
    var tabId: String
    var tableKey: String
    var sortJSON: String
    var columnsJSON: String
    var scrollOffset: Int
    var cursor: Int

    enum CodingKeys: String, CodingKey {
        case tabId = "tab_id", tableKey = "table_key", sortJSON = "sort_json", columnsJSON = "columns_json"
        case scrollOffset = "scroll_offset", cursor
    }

    init(_ view: TableViewState, key: ViewKey) throws {
        tabId = key.tab
        tableKey = key.table
        sortJSON = try Self.encode(view.sort)
        columnsJSON = try Self.encode(view.columns)
        scrollOffset = view.scrollOffset
        cursor = view.cursor
    }

    var key: ViewKey { ViewKey(tab: tabId, table: tableKey) }

    /// The state, with `selection` filled in by the caller.
    func state(selection: Set<String>) throws -> TableViewState {
        TableViewState(sort: try decode([SortKey].self, sortJSON, column: "sort_json"),
                       columns: try decode([ColumnCustomization].self, columnsJSON, column: "columns_json"),
                       scrollOffset: scrollOffset, cursor: cursor, selection: selection)
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ json: String, column: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw StoredValueError(detail: "table_view.\(column) of \(key): \(error)")
        }
    }
}

/// Reading and writing table views inside a transaction the caller opened.
enum ViewStore {
    static func fetch(_ db: Database, key: ViewKey) throws -> TableViewState? {
        guard let record = try TableViewRecord.fetchOne(db, key: ["tab_id": key.tab, "table_key": key.table]) else {
            return nil
        }
        let selection = try String.fetchSet(db, sql: "SELECT row_id FROM selected_row WHERE tab_id = ? AND table_key = ?",
                                            arguments: [key.tab, key.table])
        return try record.state(selection: selection)
    }

    /// Every stored view. Two statements; the caller runs them in one read transaction.
    static func fetchAll(_ db: Database) throws -> [ViewKey: TableViewState] {
        var selections: [ViewKey: Set<String>] = [:]
        // selected_row is a WITHOUT ROWID table, so this scan comes out in primary key
        // order: rows of one view are consecutive, and the key is hashed once per view.
        let rows = try Row.fetchCursor(db, sql: "SELECT tab_id, table_key, row_id FROM selected_row ORDER BY tab_id, table_key")
        var current: ViewKey?
        var ids: Set<String> = []
        while let row = try rows.next() {
            let tab: String = row[0]
            let table: String = row[1]
            if current?.tab != tab || current?.table != table {
                if let current { selections[current, default: []].formUnion(ids) }
                current = ViewKey(tab: tab, table: table)
                ids = []
            }
            ids.insert(row[2])
        }
        if let current { selections[current, default: []].formUnion(ids) }

        var views: [ViewKey: TableViewState] = [:]
        for record in try TableViewRecord.fetchAll(db) {
            views[record.key] = try record.state(selection: selections[record.key] ?? [])
        }
        return views
    }

    /// Upserts the view row, then brings `selected_row` to `view.selection` by deleting
    /// and inserting only the difference with what is stored, through prepared statements.
    /// Moving the cursor in a table with a big selection therefore writes one row.
    static func save(_ db: Database, _ view: TableViewState, key: ViewKey) throws {
        // An upsert (INSERT ... ON CONFLICT DO UPDATE), never INSERT OR REPLACE: a replace
        // deletes the row first, and the delete would cascade to the selection.
        try TableViewRecord(view, key: key).upsert(db)

        let stored = try String.fetchSet(db, sql: "SELECT row_id FROM selected_row WHERE tab_id = ? AND table_key = ?",
                                         arguments: [key.tab, key.table])
        let removed = stored.subtracting(view.selection)
        let added = stored.isEmpty ? view.selection : view.selection.subtracting(stored)

        if !removed.isEmpty {
            if removed.count == stored.count {
                try db.execute(sql: "DELETE FROM selected_row WHERE tab_id = ? AND table_key = ?", arguments: [key.tab, key.table])
            } else {
                let delete = try db.cachedStatement(sql: "DELETE FROM selected_row WHERE tab_id = ? AND table_key = ? AND row_id = ?")
                for id in removed {
                    delete.setUncheckedArguments([key.tab, key.table, id])
                    try delete.execute()
                }
            }
        }
        if !added.isEmpty {
            let insert = try db.cachedStatement(sql: "INSERT INTO selected_row (tab_id, table_key, row_id) VALUES (?, ?, ?)")
            for id in added {
                insert.setUncheckedArguments([key.tab, key.table, id])
                try insert.execute()
            }
        }
    }
}
