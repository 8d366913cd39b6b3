import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

/// A database with one of everything: a rowid table, a WITHOUT ROWID table, a view, names
/// with spaces and quotes, every declared type, an untyped column, an empty table.
func schemaDatabase() throws -> TempDatabase {
    try TempDatabase { db in
        try db.execute(sql: #"""
            CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER, salary REAL, score NUMERIC,
                                 born DATE, seen DATETIME, active BOOLEAN, nick VARCHAR(20), misc);
            CREATE TABLE "order items" (order_id INTEGER, line INTEGER, product TEXT, PRIMARY KEY (order_id, line)) WITHOUT ROWID;
            CREATE TABLE "say ""cheese"" now" ("my ""col""" TEXT, "second col" INTEGER);
            CREATE TABLE shadowed (rowid TEXT, _rowid_ TEXT, oid TEXT);
            CREATE TABLE empty (a INTEGER);
            CREATE VIEW adults AS SELECT name, age FROM people WHERE age >= 18;
            INSERT INTO people VALUES (1, 'Ada', 36, 10.5, 3, '1815-12-10', '2024-05-01 09:30:00', 1, 'ada', 7);
            INSERT INTO people VALUES (2, 'Alan', 41, NULL, 2.5, '1912-06-23', '2024-05-01T10:00:00+02:00', 0, NULL, 8);
            INSERT INTO people VALUES (3, 'Kid', 9, 1, NULL, NULL, 1714555800, 'yes', 'k', NULL);
            INSERT INTO "order items" VALUES (7, 1, 'pen'), (7, 2, 'ink'), (3, 1, 'paper');
            INSERT INTO "say ""cheese"" now" VALUES ('smile', 1), ('grin', 2);
            INSERT INTO shadowed VALUES ('x', 'y', 'z'), ('x', 'y', 'z');
            """#)
    }
}

@Suite struct CatalogTests {
    @Test func catalogListsTablesAndViewsWithTheirKinds() throws {
        let db = try schemaDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let kinds = Dictionary(uniqueKeysWithValues: file.catalog.map { ($0.name, $0.kind) })
        #expect(kinds == ["people": .table, "order items": .withoutRowid, "say \"cheese\" now": .table,
                          "shadowed": .table, "empty": .table, "adults": .view])
        let people = try #require(file.catalog.first { $0.name == "people" })
        #expect(people.columnSummary.hasPrefix("id INTEGER, name TEXT, age INTEGER"))
        #expect(people.sql?.hasPrefix("CREATE TABLE people") == true)
    }

    @Test func identitiesGiveEveryTableAUniqueTieBreaker() throws {
        let db = try schemaDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        #expect(try file.table(named: "people").identity == .rowid("rowid"))
        #expect(try file.table(named: "order items").identity == .primaryKey([0, 1]))
        #expect(try file.table(named: "adults").identity == .allColumns)
        // Every rowid name is a column: no usable rowid, so all columns break ties.
        #expect(try file.table(named: "shadowed").identity == .allColumns)
    }

    @Test func columnTypesFollowTheDeclarations() throws {
        let db = try schemaDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let people = try file.table(named: "people")
        let types = Dictionary(uniqueKeysWithValues: zip(people.columnIDs, people.columnSpecs.map(\.type)))
        #expect(types == ["id": .integer, "name": .text, "age": .integer, "salary": .decimal, "score": .decimal,
                          "born": .date, "seen": .date, "active": .bool, "nick": .text, "misc": .integer])
        #expect(SchemaReader.declaredType("DECIMAL(10,2)") == .decimal)
        #expect(SchemaReader.declaredType("TIMESTAMP") == .date)
        #expect(SchemaReader.declaredType("BIGINT") == .integer)
        #expect(SchemaReader.declaredType("CLOB") == .text)
        #expect(SchemaReader.declaredType("BLOB") == nil)
        #expect(SchemaReader.declaredType("STRING") == nil)

        let page = try people.page(offset: 0, limit: 10)
        #expect(page.rows.map(\.id) == ["1", "2", "3"])
        #expect(page.rows[0].cells == [1, "Ada", 36, 10.5, 3, "1815-12-10", "2024-05-01T09:30:00Z", true, "ada", 7])
        #expect(page.rows[1].cells == [2, "Alan", 41, nil, 2.5, "1912-06-23", "2024-05-01T10:00:00+02:00", false, nil, 8])
        // Unix seconds in a DATETIME column become a timestamp; 'yes' in a BOOLEAN column is true.
        #expect(page.rows[2].cells == [3, "Kid", 9, 1.0, nil, nil, "2024-05-01T09:30:00Z", true, "k", nil])
    }

    @Test func columnsDeclareTheOrderTheirCollationSortsIn() throws {
        let db = try TempDatabase { db in
            try db.execute(sql: """
                CREATE TABLE tags (id INTEGER PRIMARY KEY, plain TEXT, folded TEXT COLLATE NOCASE, trimmed TEXT COLLATE RTRIM,
                                   n INTEGER COLLATE NOCASE);
                """)
        }
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let specs = try file.table(named: "tags").columnSpecs
        #expect(specs.map(\.order) == [.protocol, .protocol, .casefold, .source, .protocol])
        #expect(specs[2].collation == "NOCASE" && specs[3].collation == "RTRIM" && specs[1].collation == nil)
        // SQLite's nulls are its smallest value: the protocol's default, not declared.
        #expect(specs.allSatisfy { $0.nulls == .smallest })
    }

    @Test func oddNamesAreQuoted() throws {
        let db = try schemaDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let t = try file.table(named: "say \"cheese\" now")
        #expect(t.columnIDs == ["my \"col\"", "second col"])
        let page = try t.page(offset: 0, limit: 10, sort: [asc("my \"col\"")], filter: "i")
        #expect(page.rows.map { $0.cells[0] } == ["grin", "smile"])
        let items = try file.table(named: "order items")
        let sorted = try items.page(offset: 0, limit: 10, sort: [desc("product")])
        #expect(sorted.rows.map(\.id) == ["[7,1]", "[3,1]", "[7,2]"])  // pen, paper, ink
    }

    @Test func openingErrorsNameThePath() throws {
        #expect(throws: RPCError.self) { try DatabaseFile(path: "/nonexistent/db.sqlite") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notadb-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = folder + "/text.sqlite"
        _ = FileManager.default.createFile(atPath: text, contents: Data(String(repeating: "not a database\n", count: 100).utf8))
        do {
            _ = try DatabaseFile(path: text)
            Issue.record("a text file opened as a database")
        } catch let error as RPCError {
            #expect(error.code == RPCError.invalidParams)
            #expect(error.message.contains(text))
        }
        do {
            _ = try DatabaseFile(path: folder)
            Issue.record("a folder opened as a database")
        } catch let error as RPCError {
            #expect(error.message.contains("folder"))
        }
    }

    @Test func theFileIsOpenedReadOnly() throws {
        let db = try schemaDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        #expect(throws: DatabaseError.self) {
            try file.pages.read(nil) { db in try db.execute(sql: "DELETE FROM people") }
        }
    }
}

/// The plugin's data source, called as the runner calls it.
@Suite struct SourceTests {
    func opened() throws -> (SQLiteSource, TempDatabase) {
        let db = try schemaDatabase()
        let source = SQLiteSource()
        _ = try source.open(args: ["path": .string(db.path)])
        return (source, db)
    }

    @Test func catalogThenDrillDown() throws {
        let (source, db) = try opened()
        _ = db
        let flag = CancellationFlag()
        let catalog = try source.rows(RowsRequest(table: "root", offset: 0, limit: 50, sort: [asc("name")], generation: 1), cancel: flag)
        #expect(catalog.rows.map(\.id) == ["adults", "empty", "order items", "people", "say \"cheese\" now", "shadowed"])
        #expect(catalog.rows.allSatisfy { $0.hasChildren })
        let byKind = try source.rows(RowsRequest(table: "root", offset: 0, limit: 50, sort: [desc("kind")], generation: 2), cancel: flag)
        #expect(byKind.rows.map(\.id).prefix(2) == ["adults", "order items"])

        let child = try source.children(table: "root", row: "people")
        #expect(child.table != "root")
        #expect(child.columns.map(\.id).first == "id")
        let page = try source.rows(RowsRequest(table: child.table, offset: 1, limit: 1, sort: [desc("age")], generation: 1), cancel: flag)
        #expect(page.rows.map(\.id) == ["1"])
        #expect(page.generation == 1 && page.offset == 1)

        #expect(throws: RPCError.unsupported("the rows of a table have no children")) {
            try source.children(table: child.table, row: "1")
        }
        #expect { try source.children(table: "root", row: "nope") } throws: { ($0 as? RPCError)?.code == RPCError.invalidParams }
        #expect { try source.rows(RowsRequest(table: child.table, offset: 0, limit: 1, sort: [asc("salary2")]), cancel: flag) }
            throws: { ($0 as? RPCError)?.code == RPCError.invalidParams }
        source.close(table: child.table)
        #expect { try source.rows(RowsRequest(table: child.table, offset: 0, limit: 1), cancel: flag) }
            throws: { ($0 as? RPCError)?.code == RPCError.unknownTable }
    }

    @Test func openArgs() throws {
        let db = try schemaDatabase()
        let source = SQLiteSource()
        #expect { try source.open(args: [:]) } throws: { ($0 as? JSONFieldError)?.path == "params.args.path" }
        #expect { try source.open(args: ["path": "missing.sqlite"]) } throws: {
            ($0 as? RPCError)?.code == RPCError.invalidParams && ($0 as? RPCError)?.message == "missing.sqlite: no such file"
        }
        let one = try source.open(args: ["path": .string(db.path), "table": "order items"])
        #expect(one.table == "root")
        #expect(one.columns.map(\.id) == ["order_id", "line", "product"])
        #expect(one.total == 3)
        let rows = try source.rows(RowsRequest(table: "root", offset: 0, limit: 5, sort: [asc("product")]), cancel: CancellationFlag())
        #expect(rows.rows.map { $0.cells[2] } == ["ink", "paper", "pen"])
    }

    @Test func relativePathsResolveAgainstTheWorkingDirectory() throws {
        let db = try schemaDatabase()
        let saved = FileManager.default.currentDirectoryPath
        #expect(FileManager.default.changeCurrentDirectoryPath(db.folder))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(saved) }
        let d = try SQLiteSource().open(args: ["path": "test.sqlite"])
        #expect(d.title == "test.sqlite")
        #expect(d.total == 6)
    }
}

extension SourceTests {
    /// The catalog offers its tables' SQL names for completion after `sql` (quoted when they
    /// need it); a table its own.
    @Test func tablesCarryTheirSQLNames() throws {
        let db = try schemaDatabase()
        let source = SQLiteSource()
        let root = try source.open(args: ["path": .string(db.path)])
        #expect(Set(root.sqlNames) == ["adults", "empty", "\"order items\"", "people", "\"say \"\"cheese\"\" now\"", "shadowed"])
        #expect(try source.children(table: "root", row: "people").sqlNames == ["people"])
    }
}
