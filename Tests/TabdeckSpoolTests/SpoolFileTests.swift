import Foundation
import SeededRandom
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

/// The rows of wire row objects (as a `rows/chunk` carries them).
func typed(_ rows: [JSONValue]) throws -> [Row] {
    try rows.map { try Row(reader: JSONReader($0)) }
}

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
        let file = try SpoolFile(path: folder.path + "/x")
        try file.create(schema)
        #expect(try file.insert(typed(rows), into: schema) == 5)
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
        let chunk: JSONValue = ["id": 7, "rows": [row("a", ["x"]), ["id": "b"]]]
        #expect(throws: JSONFieldError(path: "params.rows[1].cells", reason: "missing (expected an array)")) {
            try StreamMessages.chunk(chunk)
        }
        #expect(throws: JSONFieldError(path: "params.id", reason: "expected the id of the rows request (integer or string)")) {
            try StreamMessages.chunk(["rows": []])
        }
        #expect(throws: JSONFieldError.self) { try StreamMessages.result(["rows": [["cells": []]]]) }
    }

    @Test func removeDeletesTheFile() throws {
        let file = try filled()
        #expect(FileManager.default.fileExists(atPath: file.path))
        file.remove()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func staleSpoolsOfDeadHostsAreRemoved() throws {
        let dead = folder.path + "/999999999-x"   // no such pid
        let alive = folder.path + "/1-x"          // init is always running
        let mine = SpoolFolder.path(folder: folder.path, tab: "a/b", pid: getpid())
        for p in [dead, alive, mine] { FileManager.default.createFile(atPath: p, contents: Data()) }
        #expect(mine.hasSuffix("/\(getpid())-a_b"))
        #expect(SpoolFolder.removeStale(folder: folder.path) == ["999999999-x"])
        #expect(FileManager.default.fileExists(atPath: alive) && FileManager.default.fileExists(atPath: mine))
    }
}

/// The spool's own storage: records read back exactly, the filter's rule, and both sorts (the
/// first rows from a heap, every row for a materialized order) against a reference.
@Suite struct SpoolStorageTests {
    let folder = TempFolder()

    func filled(_ schema: SpoolSchema, _ rows: [JSONValue], chunk: Int = 1000) throws -> SpoolFile {
        let file = try SpoolFile(path: folder.path + "/s")
        try file.create(schema)
        var start = 0
        while start < rows.count {
            let part = Array(rows[start..<min(rows.count, start + chunk)])
            #expect(try file.insert(typed(part), into: schema) == part.count)
            start += part.count
        }
        return file
    }

    func ids(_ page: [JSONValue]) -> [String] {
        page.map { if case .object(let o) = $0, case .string(let id)? = o["id"] { id } else { "?" } }
    }

    @Test func recordsKeepEveryKindOfCellAndTheRowsOtherFields() throws {
        let schema = SpoolSchema(tableName: "t1", columns: (0..<6).map { ColumnSpec(id: "c\($0)", type: .text) })
        let long = String(repeating: "é", count: 200) + String(repeating: "x", count: 20_000)
        let rows: [JSONValue] = [
            ["id": "a", "cells": [nil, true, false, -9_223_372_036_854_775_808, 0.1, "Zoë \u{1F600}"],
             "section": "S", "detail": "D", "hasChildren": true],
            ["id": 42, "cells": [["k": [1, 2]], [nil, "x"], .string(long), 1e300, -0.5, ""]],
            ["id": "c", "cells": [1, 2], "section": "only a section"],   // missing cells: null
            ["id": "d", "cells": [1, 2, 3, 4, 5, 6, 7, 8], "detail": ""],  // extra cells: dropped
        ]
        let file = try filled(schema, rows)
        defer { file.remove() }
        let page = try file.page(schema, sort: [], offset: 0, limit: 10)
        #expect(page[0] == rows[0])
        #expect(page[1] == ["id": "42", "cells": [["k": [1, 2]], [nil, "x"], .string(long), 1e300, -0.5, ""]])
        #expect(page[2] == ["id": "c", "cells": [1, 2, nil, nil, nil, nil], "section": "only a section"])
        #expect(page[3] == ["id": "d", "cells": [1, 2, 3, 4, 5, 6], "detail": ""])
        #expect(try file.page(schema, sort: [], offset: 3, limit: 10).count == 1)
        #expect(try file.page(schema, sort: [], offset: 4, limit: 10).isEmpty)
    }

    @Test func manyChunksPastTheWriteBufferReadBackInOrder() throws {
        let schema = SpoolSchema(tableName: "t1", columns: [ColumnSpec(id: "n", type: .integer), ColumnSpec(id: "s", type: .text)])
        let pad = String(repeating: "p", count: 300)  // ~ 9 MB in all: several buffers and maps
        let rows: [JSONValue] = (0..<30_000).map { row("r\($0)", [.int(Int64($0)), .string("\(pad)\($0)")]) }
        let file = try filled(schema, rows, chunk: 777)
        defer { file.remove() }
        #expect(file.count(schema) == 30_000)
        for offset in [0, 777, 12_345, 29_990] {
            #expect(try file.page(schema, sort: [], offset: offset, limit: 10) == Array(rows[offset..<min(30_000, offset + 10)]))
        }
        #expect(ids(try file.page(schema, sort: [SortKey("n", .descending)], offset: 0, limit: 3)) == ["r29999", "r29998", "r29997"])
    }

    @Test func theFilterMatchesEachCellsTextIgnoringASCIICase() throws {
        let schema = SpoolSchema(tableName: "t1", columns: (0..<3).map { ColumnSpec(id: "c\($0)", type: .text) })
        let rows: [JSONValue] = [
            row("text", ["Hello World", nil, nil]),
            row("int", [nil, 2048, nil]),
            row("double", [nil, 0.5, nil]),
            row("bool", [true, nil, nil]),
            row("nested", [["k": "v"], nil, nil]),
            row("none", [nil, nil, nil]),
            row("accent", ["ÉCOLE", nil, nil]),
        ]
        let file = try filled(schema, rows)
        defer { file.remove() }
        func kept(_ text: String) throws -> [String] {
            let keep = RowKeep(text: text)
            #expect(try file.count(schema, filter: keep) == file.page(schema, sort: [], offset: 0, limit: 100, filter: keep).count)
            return ids(try file.page(schema, sort: [], offset: 0, limit: 100, filter: keep))
        }
        #expect(try kept("world") == ["text"])
        #expect(try kept("04") == ["int"])
        #expect(try kept("0.5") == ["double"])
        #expect(try kept("TRUE") == ["bool"])
        #expect(try kept("\"k\"") == ["nested"])
        #expect(try kept("null").isEmpty)
        #expect(try kept("école").isEmpty)  // ASCII case only
        #expect(try kept("É") == ["accent"])
        // Sorted and paged among the kept rows only.
        #expect(ids(try file.page(schema, sort: [SortKey("c0", .descending)], offset: 1, limit: 5, filter: RowKeep(text: "e"))) == ["text", "bool"])
        // Rows that arrive later count, though the filter's rows were kept.
        _ = try file.insert(typed([row("late", ["world", nil, nil])]), into: schema)
        #expect(try kept("world") == ["text", "late"])
        #expect(ids(try file.page(schema, sort: [SortKey("c0", .descending)], offset: 0, limit: 5, filter: RowKeep(text: "e"))) == ["accent", "text", "bool"])
    }

    /// The protocol's order, written out plainly: null < numbers < texts, numbers by value,
    /// texts by UTF-8 bytes, ties by arrival.
    static func reference(_ a: JSONValue, _ b: JSONValue) -> Int {
        func rank(_ v: JSONValue) -> Int {
            switch v { case .null: 0; case .int, .double, .bool: 1; default: 2 }
        }
        func number(_ v: JSONValue) -> Double {
            switch v { case .int(let i): Double(i); case .double(let d): d; case .bool(let b): b ? 1 : 0; default: 0 }
        }
        func text(_ v: JSONValue) -> [UInt8] { if case .string(let s) = v { Array(s.utf8) } else { Array(JSONWriter.string(v).utf8) } }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch rank(a) {
        case 1: return number(a) < number(b) ? -1 : number(a) > number(b) ? 1 : 0
        case 2: return text(a).lexicographicallyPrecedes(text(b)) ? -1 : text(a) == text(b) ? 0 : 1
        default: return 0
        }
    }

    @Test func bothSortsGiveTheReferenceOrder() throws {
        var random = SplitMix(seed: 0x5900)
        // Short texts, and long ones sharing their first 8 bytes (or all but a zero byte).
        let words = ["", "a", "B", "ab", "é", "Zoë", "zz", "a\u{0}b", "\u{1F600}", "abc", "abd",
                     "prefix-shared-1", "prefix-shared-2", "prefix-s", "prefix-s\u{0}", "prefix-s\u{0}\u{0}x", "prefix-sh"]
        let schema = SpoolSchema(tableName: "t1", columns: [ColumnSpec(id: "x", type: .decimal), ColumnSpec(id: "y", type: .text)])
        func cell() -> JSONValue {
            switch random.below(7) {
            case 0: .null
            case 1: .int(Int64(random.below(20)) - 10)
            case 2: .double(Double(random.below(40)) / 4 - 5)
            case 3: .bool(random.below(2) == 0)
            case 4: [.int(Int64(random.below(3)))]
            default: .string(words[random.below(words.count)])
            }
        }
        let rows: [JSONValue] = (0..<3000).map { row("r\($0)", [cell(), cell()]) }
        let file = try filled(schema, rows, chunk: 500)
        defer { file.remove() }
        let cells: [[JSONValue]] = rows.map { if case .object(let o) = $0, case .array(let c)? = o["cells"] { c } else { [] } }
        for sort in [[SortKey("x")], [SortKey("x", .descending)], [SortKey("y"), SortKey("x", .descending)],
                     [SortKey("y", .descending), SortKey("x")]] {
            let columns = sort.map { $0.column == "x" ? 0 : 1 }
            let expected = cells.indices.sorted { i, j in
                for (k, key) in sort.enumerated() {
                    let c = Self.reference(cells[i][columns[k]], cells[j][columns[k]])
                    if c != 0 { return key.direction == .descending ? c > 0 : c < 0 }
                }
                return i < j
            }.map { "r\($0)" }
            for (offset, limit) in [(0, 10), (0, 100), (5, 50), (0, 3000), (2990, 20)] {
                #expect(ids(try file.page(schema, sort: sort, offset: offset, limit: limit))
                        == Array(expected[offset..<min(3000, offset + limit)]), "\(sort) \(offset)")
            }
            try file.materialize(schema, sort, name: "t1_o")
            #expect(ids(try file.page(schema, sort: sort, offset: 1234, limit: 40, orderTable: "t1_o")) == Array(expected[1234..<1274]))
            // Sorted in runs merged from files (as a table past `RowSorter.runRows` is): the same order.
            file.runRows = 700
            try file.materialize(schema, sort, name: "t1_r")
            #expect(ids(try file.page(schema, sort: sort, offset: 0, limit: 3000, orderTable: "t1_r")) == expected, "\(sort) in runs")
            file.runRows = RowSorter.runRows
            #expect(try FileManager.default.contentsOfDirectory(atPath: file.path).filter { $0.contains(".run") }.isEmpty)
        }
    }
}
