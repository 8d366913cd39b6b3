import GRDB

/// The schema, as a timeline of named migrations ("v1", "v2", ...). Never edit a shipped
/// migration: add a new one. A database that has applied a migration this list does not
/// know was written by a newer Tabdeck; ``AppDatabase/open(stateDirectory:)`` moves it
/// aside rather than guessing.
///
/// ## Why this shape
///
/// Every collection that people grow or reorder piece by piece is a real table, with one
/// row per item and an explicit `position` where order matters:
///
/// - `section_order(position, section_id)`: section ids in display order.
/// - `tab_layout(position, tab_id, section_id)`: tabs in display order with their section
///   (`NULL` = no section). `section_id` is deliberately not a foreign key to
///   `section_order`: sections come from config.json, and a tab may name one the user never
///   reordered.
/// - `hidden_tab(tab_id)`: the hidden set.
/// - `workspace(key, value)`: singletons: `selected_tab`, and `layout_saved`, which tells
///   "never saved" (``AppDatabase/loadLayout()`` returns nil) from "saved empty".
/// - `table_view(tab_id, table_key, sort_json, columns_json, scroll_offset, cursor,
///   selection_count, selection_digest)`: one row per table ever shown (`table_key` "" =
///   the tab's root table, else the drill-down path). Sort keys and column customizations
///   are small ordered lists that are always read and written whole and never queried by
///   content, so they are JSON columns: normalizing them would add two positional tables
///   and buy nothing. The two `selection_*` columns fingerprint the selection
///   (``SelectionDigest``) so an unchanged selection is not rewritten.
/// - `selected_row(tab_id, table_key, row_id)`: the selection, one row per id, because it
///   can hold 100,000 ids and is saved often; as rows it can be diffed and batch-inserted,
///   which a JSON array cannot. Deleting a `table_view` row cascades to its selection.
///
/// - `table_view.last_used` (v2): when the view was last saved, in Unix seconds, so that
///   ``AppDatabase/pruneViews(keepingChildViews:)`` can drop the least recently used
///   drill-down views (root views are never dropped).
/// - `table_view.filter` (v3): the view's filter text, `NULL` for none.
/// - `table_view.selection_all` (v4): 0 when `selected_row` holds the selected ids, 1 when
///   the selection is "every row (under the view's filter) except" the ids in `selected_row`
///   (``RowSelection/allExcept(_:)``), so `select all` stores no id at all. Written in the
///   same transaction as the ids; views saved before v4 keep their explicit ids.
/// - `table_view.expanded_json` (v5_expanded): the rows expanded in place, a JSON array of
///   row-id paths (`[["r1"],["r1","c3"]]`), oldest first. A small list always read and written
///   whole, like `sort_json`; the core keeps at most ``TableViewState/maxExpanded`` paths.
/// - `opened_source(tab_id, seq)` (v6_opened_source): the tabs opened from the command line
///   (`tabdeck FILE`), each with the sequence number of its last opening, so that
///   ``AppDatabase/noteOpened(_:keeping:)`` keeps the views of the most recent few hundred
///   sources and drops the others' (their ids are paths and URLs: there is no end to them).
/// - `table_view.where_json` (v7_where): the view's exact filter (`where`), a JSON array of
///   conditions in their protocol form (PROTOCOL.md 11.11), `[]` for none.
///
/// Ids are TEXT and compared byte for byte. Nothing is ever keyed by a tab being present
/// in config, so the state of a tab that leaves config.json stays here and comes back
/// with it.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE section_order (
                    position   INTEGER PRIMARY KEY,
                    section_id TEXT NOT NULL UNIQUE
                );
                CREATE TABLE tab_layout (
                    position   INTEGER PRIMARY KEY,
                    tab_id     TEXT NOT NULL UNIQUE,
                    section_id TEXT
                );
                CREATE TABLE hidden_tab (
                    tab_id TEXT PRIMARY KEY NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE workspace (
                    key   TEXT PRIMARY KEY NOT NULL,
                    value TEXT
                ) WITHOUT ROWID;
                CREATE TABLE table_view (
                    tab_id        TEXT NOT NULL,
                    table_key     TEXT NOT NULL,
                    sort_json     TEXT NOT NULL DEFAULT '[]',
                    columns_json  TEXT NOT NULL DEFAULT '[]',
                    scroll_offset INTEGER NOT NULL DEFAULT 0,
                    cursor        INTEGER NOT NULL DEFAULT 0,
                    selection_count  INTEGER NOT NULL DEFAULT 0,
                    selection_digest INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (tab_id, table_key)
                ) WITHOUT ROWID;
                CREATE TABLE selected_row (
                    tab_id    TEXT NOT NULL,
                    table_key TEXT NOT NULL,
                    row_id    TEXT NOT NULL,
                    PRIMARY KEY (tab_id, table_key, row_id),
                    FOREIGN KEY (tab_id, table_key) REFERENCES table_view (tab_id, table_key) ON DELETE CASCADE
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "ALTER TABLE table_view ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: "ALTER TABLE table_view ADD COLUMN filter TEXT")
        }
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "ALTER TABLE table_view ADD COLUMN selection_all INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v5_expanded") { db in
            try db.execute(sql: "ALTER TABLE table_view ADD COLUMN expanded_json TEXT NOT NULL DEFAULT '[]'")
        }
        migrator.registerMigration("v6_opened_source") { db in
            try db.execute(sql: """
                CREATE TABLE opened_source (
                    tab_id TEXT PRIMARY KEY NOT NULL,
                    seq    INTEGER NOT NULL
                ) WITHOUT ROWID
                """)
        }
        migrator.registerMigration("v7_where") { db in
            try db.execute(sql: "ALTER TABLE table_view ADD COLUMN where_json TEXT NOT NULL DEFAULT '[]'")
        }
        return migrator
    }
}
