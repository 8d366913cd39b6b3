import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

/// Big cells (PROTOCOL.md 10.5 `cut`, 11.3 `more`, 11.10 `cell`): a page never outgrows its
/// line, a long text travels cut with its whole size, and `cell` gives the whole value back.
@Suite struct BigCellTests {
    static let big = String(repeating: "é", count: 2_621_440)  // 5 MiB

    func notes() throws -> TempDatabase {
        try TempDatabase { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, note TEXT)")
            for i in 1...100 {
                try db.execute(sql: "INSERT INTO notes VALUES (?, ?)",
                               arguments: [i, i == 42 ? Self.big : String(repeating: "n\(i % 10)", count: 30_000)])
            }
            try db.execute(sql: "CREATE TABLE tags (name TEXT PRIMARY KEY, body TEXT) WITHOUT ROWID")
            try db.execute(sql: "INSERT INTO tags VALUES ('42', ?), ('x', 'small')", arguments: [Self.big])
        }
    }

    @Test func aLongPageComesShortWithMoreAndCutCellsWithTheirSize() throws {
        let db = try notes()
        let source = SQLiteSource()
        _ = try source.open(args: ["path": .string(db.path), "table": "notes"])
        var rows: [TabdeckProtocol.Row] = []
        var replies = 0
        while rows.count < 100 {
            let r = try source.rows(RowsRequest(table: "root", offset: rows.count, limit: 100 - rows.count), cancel: CancellationFlag())
            let line = LineEncoder.rowsReply(id: .int(1), r)
            #expect(line.count < LineSplitter.defaultMaxLineLength, "\(line.count) bytes")
            #expect(r.more == (rows.count + r.rows.count < 100), "more only while rows are left out")
            #expect(!r.rows.isEmpty)
            rows += r.rows
            replies += 1
        }
        #expect(replies > 1, "60 KB a row: 100 rows do not fit one page")
        #expect(rows.map(\.id) == (1...100).map(String.init))
        let row = rows[41]
        #expect(row.cut == ["note": 5_242_880])
        guard case .string(let part) = row.cells[1] else { Issue.record("not text"); return }
        #expect(part.utf8.count <= CutCell.limit && Self.big.hasPrefix(part) && part.utf8.count > 65_000)
        #expect(rows[0].cut.isEmpty)
        #expect(try source.cell(table: "root", row: "42", column: "note", cancel: CancellationFlag()) == Self.big)
        #expect { try source.cell(table: "root", row: "4242", column: "note", cancel: CancellationFlag()) } throws: {
            ($0 as? RPCError)?.code == RPCError.invalidParams
        }
    }

    @Test func aWithoutRowidTableFindsItsCellByKey() throws {
        let db = try notes()
        let source = SQLiteSource()
        _ = try source.open(args: ["path": .string(db.path), "table": "tags"])
        let r = try source.rows(RowsRequest(table: "root", offset: 0, limit: 10), cancel: CancellationFlag())
        let row = try #require(r.rows.first { $0.cut["body"] != nil })
        #expect(row.id == #"["42"]"#)  // a text key that reads as a number
        #expect(try source.cell(table: "root", row: row.id, column: "body", cancel: CancellationFlag()) == Self.big)
        #expect(try source.cell(table: "root", row: "x", column: "body", cancel: CancellationFlag()) == "small")
    }

    @Test func cellAnswersComeInPartsThatJoinUp() {
        let text = String(repeating: "aé€😀", count: 200_000)  // 2 MB of 1-, 2-, 3- and 4-byte characters
        var whole = ""
        var offset = 0
        while true {
            let part = CellRequest(table: "t", row: "1", column: "c", offset: offset, length: 333_333).part(of: text)
            #expect(part.size == text.utf8.count)
            #expect(part.text.utf8.count <= 333_333)
            if part.text.isEmpty { break }
            whole += part.text
            offset += part.text.utf8.count
        }
        #expect(whole == text)
    }
}
