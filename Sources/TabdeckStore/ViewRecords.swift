import Foundation
import GRDB
import TabdeckCore
import TabdeckProtocol

/// A row of `table_view`: everything of a ``TableViewState`` but the selection's ids (its
/// form, explicit ids or "all except", is `selection_all`).
/// Fetched as a GRDB record; written by the explicit upsert in ``ViewStore/save(_:_:key:)``.
struct TableViewRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "table_view"
    var tabId: String
    var tableKey: String
    var sortJSON: String
    var columnsJSON: String
    var scrollOffset: Int
    var cursor: Int
    var selectionCount: Int
    var selectionDigest: Int64
    /// The ids in `selected_row` are the excepted ones of an "all, except" selection (v4).
    var selectionAll: Bool
    var filter: String?
    /// The expanded rows' id paths, as JSON (v5_expanded).
    var expandedJSON: String
    /// The exact filter's conditions, as JSON (v7_where).
    var whereJSON: String

    enum CodingKeys: String, CodingKey {
        case tabId = "tab_id", tableKey = "table_key", sortJSON = "sort_json", columnsJSON = "columns_json"
        case scrollOffset = "scroll_offset", cursor
        case selectionCount = "selection_count", selectionDigest = "selection_digest", selectionAll = "selection_all"
        case filter, expandedJSON = "expanded_json", whereJSON = "where_json"
    }

    init(_ view: TableViewState, key: ViewKey) throws {
        tabId = key.tab
        tableKey = key.table
        sortJSON = try Self.encode(view.sort)
        columnsJSON = try Self.encode(view.columns)
        scrollOffset = view.scrollOffset
        cursor = view.cursor
        let digest = SelectionDigest(view.selection.listed)
        selectionCount = digest.count
        selectionDigest = digest.sum
        selectionAll = view.selection.isAll
        filter = view.filter
        expandedJSON = try Self.encode(Array(view.expanded.suffix(TableViewState.maxExpanded)))
        whereJSON = JSONWriter.string(Where.json(view.where))
    }

    var digest: SelectionDigest { SelectionDigest(count: selectionCount, sum: selectionDigest) }

    var key: ViewKey { ViewKey(tab: tabId, table: tableKey) }

    /// The state, with the ids of `selected_row` given by the caller.
    func state(selection ids: Set<String>) throws -> TableViewState {
        var state = TableViewState(sort: try decode([SortKey].self, sortJSON, column: "sort_json"),
                                   columns: try decode([ColumnCustomization].self, columnsJSON, column: "columns_json"),
                                   scrollOffset: scrollOffset, cursor: cursor,
                                   selection: selectionAll ? .allExcept(ids) : .ids(ids), filter: filter,
                                   expanded: try decode([[String]].self, expandedJSON, column: "expanded_json"))
        do {
            let value = try JSONParser.parse(whereJSON)
            var clause: WhereClause = []
            guard case .array(let items) = value else { throw JSONFieldError(path: "", reason: "expected an array") }
            for (i, item) in items.enumerated() { clause.append(try WhereCondition(reader: try JSONReader(item, path: "[\(i)]"))) }
            state.where = clause
        } catch {
            throw StoredValueError(detail: "table_view.where_json of \(key): \(error)")
        }
        return state
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

    /// Upserts the view row (with the selection's form, `selection_all`), then brings
    /// `selected_row` to the selection's listed ids: not at all when their
    /// ``SelectionDigest`` is unchanged (a cursor move), else by deleting and inserting only
    /// the difference with what is stored, through one prepared statement each
    /// (``RowIDBatch``). `select all` over a big explicit selection is one DELETE. The caller's
    /// transaction holds all of it, so a save is never half done.
    static func save(_ db: Database, _ view: TableViewState, key: ViewKey) throws {
        let record = try TableViewRecord(view, key: key)
        let previous = try Row.fetchOne(
            db, sql: "SELECT selection_count, selection_digest FROM table_view WHERE tab_id = ? AND table_key = ?",
            arguments: [key.tab, key.table]
        ).map { SelectionDigest(count: $0[0], sum: $0[1]) }
        let listed = view.selection.listed

        // An upsert (INSERT ... ON CONFLICT DO UPDATE), never INSERT OR REPLACE: a replace
        // deletes the row first, and the delete would cascade to the selection. Written out
        // because GRDB 7.10's `upsert(_:)` appends `RETURNING rowid`, which a WITHOUT ROWID
        // table rejects ("no such column: rowid").
        try db.cachedStatement(sql: """
            INSERT INTO table_view (tab_id, table_key, sort_json, columns_json, scroll_offset, cursor,
                                    selection_count, selection_digest, selection_all, filter, expanded_json, where_json, last_used)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(strftime('%s', 'now') AS INTEGER))
            ON CONFLICT (tab_id, table_key) DO UPDATE SET
                sort_json = excluded.sort_json, columns_json = excluded.columns_json,
                scroll_offset = excluded.scroll_offset, cursor = excluded.cursor,
                selection_count = excluded.selection_count, selection_digest = excluded.selection_digest,
                selection_all = excluded.selection_all, filter = excluded.filter, expanded_json = excluded.expanded_json,
                where_json = excluded.where_json, last_used = excluded.last_used
            """).execute(arguments: [record.tabId, record.tableKey, record.sortJSON, record.columnsJSON,
                                     record.scrollOffset, record.cursor, record.selectionCount, record.selectionDigest,
                                     record.selectionAll, record.filter, record.expandedJSON, record.whereJSON])

        guard previous != record.digest else { return }
        // No previous row means no selected_row rows either (foreign key).
        let stored = previous == nil ? [] : try String.fetchSet(
            db, sql: "SELECT row_id FROM selected_row WHERE tab_id = ? AND table_key = ?", arguments: [key.tab, key.table])
        let removed = stored.subtracting(listed)
        let added = stored.isEmpty ? listed : listed.subtracting(stored)

        if !removed.isEmpty {
            if removed.count == stored.count {
                try db.execute(sql: "DELETE FROM selected_row WHERE tab_id = ? AND table_key = ?", arguments: [key.tab, key.table])
            } else {
                try RowIDBatch.run(db, sql: "DELETE FROM selected_row WHERE tab_id = ?1 AND table_key = ?2 AND row_id = ?3",
                                   key: key, ids: removed)
            }
        }
        if !added.isEmpty {
            try RowIDBatch.run(db, sql: "INSERT INTO selected_row (tab_id, table_key, row_id) VALUES (?1, ?2, ?3)",
                               key: key, ids: added)
        }
    }

    /// Deletes all but the `keep` most recently saved drill-down views (`table_key` not "")
    /// and, by cascade, their selections. Root views stay: a tab that leaves config.json and
    /// comes back finds its view. Ties on `last_used` (same second) keep the greater key.
    /// - Returns: how many views were deleted.
    static func prune(_ db: Database, keepingChildViews keep: Int) throws -> Int {
        try db.execute(sql: """
            DELETE FROM table_view WHERE table_key <> '' AND (tab_id, table_key) NOT IN (
                SELECT tab_id, table_key FROM table_view WHERE table_key <> ''
                ORDER BY last_used DESC, tab_id DESC, table_key DESC LIMIT ?)
            """, arguments: [max(0, keep)])
        return db.changesCount
    }
}
