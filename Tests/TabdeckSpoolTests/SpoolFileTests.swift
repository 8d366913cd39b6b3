import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// A temporary folder, removed when the value goes away.
final class TempFolder: @unchecked Sendable {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "tabdeck-spooltest-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func row(_ id: String, _ cells: [JSONValue]) -> JSONValue { ["id": .string(id), "cells": .array(cells)] }

@Suite struct SpoolFileTests {
    let folder = TempFolder()
    let schema = SpoolSchema(tableName: "t1", columns: testColumns)
    // name, n, state, day, flag
    let rows: [JSONValue] = [
        row("a", ["bob", 3, "done", "2024-05-01T10:00:00+02:00", true]),
        row("b", ["Åsa", nil, "todo", "2024-05-01T09:00:00Z", false]),
        row("c", ["ada", 3, "doing", nil, nil]),
        row("d", ["Bob", 1, "later", "2024-04-30", true]),
        row("e", [nil, 2, nil, "not a date", false]),
    ]

    func filled() throws -> SpoolFile {
        let file = try SpoolFile(path: folder.path + "/x.sqlite")
        try file.create(schema)
        #expect(try file.insert(rows, into: schema, firstSeq: 1, tab: "t", table: "root") == 5)
        return file
    }

    func ids(_ file: SpoolFile, _ sort: [SortKey], offset: Int = 0, limit: Int = 10, orderTable: String? = nil) throws -> [String] {
        try file.page(schema, sort: sort, offset: offset, limit: limit, orderTable: orderTable).map { row in
            if case .object(let o) = row, case .string(let id)? = o["id"] { return id }
            return "?"
        }
    }

    @Test func sortsLikeTheProtocolSays() throws {
        let file = try filled()
        defer { file.remove() }
        // Text by UTF-8 bytes, null first ascending.
        #expect(try ids(file, [SortKey("name")]) == ["e", "d", "c", "a", "b"])
        #expect(try ids(file, [SortKey("name", .descending)]) == ["b", "a", "c", "d", "e"])
        // Ties by the next key, then by arrival.
        #expect(try ids(file, [SortKey("n", .descending), SortKey("name")]) == ["c", "a", "e", "d", "b"])
        #expect(try ids(file, [SortKey("n", .descending)]) == ["a", "c", "e", "d", "b"])
        // Enum by the order of `values`; an unknown value after every known one.
        #expect(try ids(file, [SortKey("state")]) == ["e", "b", "c", "a", "d"])
        // Dates chronologically across zones; a malformed date after every date.
        #expect(try ids(file, [SortKey("day")]) == ["c", "d", "a", "b", "e"])
        // false before true.
        #expect(try ids(file, [SortKey("flag")]) == ["c", "b", "e", "a", "d"])
    }

    @Test func cellsComeBackAsTheyCame() throws {
        let file = try filled()
        defer { file.remove() }
        let page = try file.page(schema, sort: [], offset: 0, limit: 5)
        #expect(page == rows)
        #expect(try ids(file, [], offset: 3, limit: 10) == ["d", "e"])
    }

    @Test func aMaterializedOrderGivesTheSamePages() throws {
        let file = try filled()
        defer { file.remove() }
        let sort = [SortKey("state", .descending), SortKey("name")]
        try file.materialize(schema, sort, name: "t1_o1")
        for offset in 0..<5 {
            #expect(try ids(file, sort, offset: offset, limit: 2, orderTable: "t1_o1") == ids(file, sort, offset: offset, limit: 2))
        }
    }

    @Test func badRowsNameTheRowAndField() throws {
        let file = try SpoolFile(path: folder.path + "/y.sqlite")
        defer { file.remove() }
        try file.create(schema)
        #expect(throws: SpoolError.badRows(tab: "t", table: "root", reason: "rows[1].cells: expected an array")) {
            try file.insert([row("a", ["x"]), ["id": "b"]], into: schema, firstSeq: 1, tab: "t", table: "root")
        }
        #expect(throws: SpoolError.badRows(tab: "t", table: "root", reason: "rows[0].id: expected a string or an integer")) {
            try file.insert([["cells": []]], into: schema, firstSeq: 10, tab: "t", table: "root")
        }
    }

    @Test func removeDeletesTheFile() throws {
        let file = try filled()
        #expect(FileManager.default.fileExists(atPath: file.path))
        file.remove()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func staleSpoolsOfDeadHostsAreRemoved() throws {
        let dead = folder.path + "/999999999-x.sqlite"   // no such pid
        let alive = folder.path + "/1-x.sqlite"          // init is always running
        let mine = SpoolFolder.path(folder: folder.path, tab: "a/b", pid: getpid())
        for p in [dead, alive, mine] { FileManager.default.createFile(atPath: p, contents: Data()) }
        #expect(mine.hasSuffix("/\(getpid())-a_b.sqlite"))
        #expect(SpoolFolder.removeStale(folder: folder.path) == ["999999999-x.sqlite"])
        #expect(FileManager.default.fileExists(atPath: alive) && FileManager.default.fileExists(atPath: mine))
    }
}
