import SeededRandom
import Foundation
import Testing
@testable import CSVTable

/// A reference implementation: Swift's sort with a plain comparison on the raw strings.
func referenceOrder(_ rows: [[String?]], types: [CSVColumnType], keys: [CSVSortKey]) -> [Int] {
    enum Key: Comparable {
        case empty
        case number(Double)
        case integer(Int64)
        case text([UInt8])
        case invalid([UInt8])
        var rank: Int {
            switch self { case .empty: 0; case .number, .integer, .text: 1; case .invalid: 2 }
        }
        static func < (a: Key, b: Key) -> Bool {
            if a.rank != b.rank { return a.rank < b.rank }
            switch (a, b) {
            case (.number(let x), .number(let y)): return x < y
            case (.integer(let x), .integer(let y)): return x < y
            case (.text(let x), .text(let y)), (.invalid(let x), .invalid(let y)): return x.lexicographicallyPrecedes(y)
            default: return false
            }
        }
    }
    func key(_ s: String?, _ type: CSVColumnType) -> Key {
        guard let s, !s.isEmpty else { return .empty }
        switch type {
        case .integer: return Int64(s).map(Key.integer) ?? .invalid(Array(s.utf8))
        case .decimal: return Double(s).map(Key.number) ?? .invalid(Array(s.utf8))
        case .date, .text, .bool: return .text(Array(s.utf8))
        }
    }
    let keyed = rows.map { row in keys.map { key(row[$0.column], types[$0.column]) } }
    return rows.indices.sorted { a, b in
        for (i, k) in keys.enumerated() {
            let x = keyed[a][i], y = keyed[b][i]
            if x != y { return k.descending ? y < x : x < y }
        }
        return a < b
    }
}

@Suite struct SortTests {
    /// Random rows: integers (with empties and, on unsampled odd rows, unparseable cells),
    /// decimals with many ties, dates, text with long shared prefixes, non-ASCII, quotes,
    /// embedded newlines and different lengths, and a low-cardinality text column.
    static func randomCSV(rows: Int, seed: UInt64) -> String {
        var rng = SplitMix(seed: seed)
        let prefixes = ["", "a", "ab", "abcdefgh", "abcdefghij", "abcdefghijklmnopq", "Zoë ", "Ünïcødé-", "\"q\" ", "x,y"]
        var lines = ["int,dec,day,text,cat"]
        for r in 0..<rows {
            var cells: [String] = []
            let i = Int64.random(in: -50...50, using: &rng)
            if r % 2 == 1 && Int.random(in: 0..<40, using: &rng) == 0 { cells.append("n/a") }
            else { cells.append(Int.random(in: 0..<15, using: &rng) == 0 ? "" : String(i * 1_000_000_007)) }
            let d = Double(Int.random(in: -300...300, using: &rng)) / 4
            cells.append(Int.random(in: 0..<15, using: &rng) == 0 ? "" : String(d))
            let day = String(format: "%04d-%02d-%02d", Int.random(in: 1990...2030, using: &rng),
                             Int.random(in: 1...12, using: &rng), Int.random(in: 1...28, using: &rng))
            cells.append(day)
            var text = prefixes.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 0...3, using: &rng) { text += ["a", "b", "é", "\n", "\u{0}", "zz"].randomElement(using: &rng)! }
            cells.append(csvField(text))
            cells.append(["red", "green", "blue"].randomElement(using: &rng)!)
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [1, 2, 3])
    func multiKeySortMatchesReference(seed: UInt64) throws {
        let rows = 4000
        let (t, _f) = try table(Self.randomCSV(rows: rows, seed: seed))
        _ = _f
        #expect(t.rowCount == rows)
        #expect(t.columns.map(\.type) == [.integer, .decimal, .date, .text, .text])
        let data = t.allStrings()
        let types = t.columns.map(\.type)
        var rng = SplitMix(seed: seed &* 77)
        var orders: [[CSVSortKey]] = (0..<5).map { [CSVSortKey(column: $0)] } + (0..<5).map { [CSVSortKey(column: $0, descending: true)] }
        for _ in 0..<12 {
            let count = Int.random(in: 2...4, using: &rng)
            orders.append((0..<5).shuffled(using: &rng).prefix(count).map { CSVSortKey(column: $0, descending: Bool.random(using: &rng)) })
        }
        for keys in orders {
            let got = try t.page(offset: 0, limit: rows, sort: keys).rows
            let want = referenceOrder(data, types: types, keys: keys)
            #expect(got == want, "sort \(keys)")
        }
    }

    @Test func largeTextSortUsesDeepPrefixes() throws {
        // Many rows sharing 30+ byte prefixes, so the string radix goes several levels deep.
        var rng = SplitMix(seed: 9)
        var lines = ["s"]
        for _ in 0..<20_000 {
            let tail = String((0..<Int.random(in: 0...6, using: &rng)).map { _ in "abc".randomElement(using: &rng)! })
            lines.append("the same long prefix for all rows/" + tail)
        }
        let (t, _f) = try table(lines.joined(separator: "\n") + "\n")
        _ = _f
        let data = t.allStrings()
        for desc in [false, true] {
            let keys = [CSVSortKey(column: 0, descending: desc)]
            #expect(try t.page(offset: 0, limit: data.count, sort: keys).rows == referenceOrder(data, types: [.text], keys: keys))
        }
    }

    @Test func tiesKeepFileOrderSoIdsAreStable() throws {
        let (t, _f) = try table("k,v\nb,1\na,2\nb,3\na,4\nb,5\n")
        _ = _f
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0)]).rows == [1, 3, 0, 2, 4])
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0, descending: true)]).rows == [0, 2, 4, 1, 3])
        // Same order again (cached or not), and row numbers name the same rows.
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0)]).rows == [1, 3, 0, 2, 4])
        #expect(t.strings(row: 3) == ["a", "4"])
    }

    @Test func emptyCellsSortFirstAscendingLastDescending() throws {
        let (t, _f) = try table("n\n3\n\n1\n,\n2\n")
        _ = _f
        // Rows: "3", "" (from ",": first field empty), "1", "2" (the blank line is skipped).
        #expect(t.rowCount == 4)
        let asc = try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0)]).rows
        #expect(asc.map { t.strings(row: $0)[0] } == ["", "1", "2", "3"])
        let desc = try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0, descending: true)]).rows
        #expect(desc.map { t.strings(row: $0)[0] } == ["3", "2", "1", ""])
    }

    @Test func paging() throws {
        let text = "n\n" + (1...250).map(String.init).joined(separator: "\n") + "\n"
        let (t, _f) = try table(text)
        _ = _f
        #expect(try t.page(offset: 0, limit: 3) == CSVTable.Page(rows: [0, 1, 2], total: 250))
        #expect(try t.page(offset: 100, limit: 3).rows == [100, 101, 102])
        #expect(try t.page(offset: 248, limit: 10).rows == [248, 249])
        #expect(try t.page(offset: 250, limit: 10).rows == [])
        #expect(try t.page(offset: 999, limit: 10).rows == [])
        #expect(try t.page(offset: 5, limit: 0).rows == [])
        let desc = [CSVSortKey(column: 0, descending: true)]
        #expect(try t.page(offset: 0, limit: 3, sort: desc) == CSVTable.Page(rows: [249, 248, 247], total: 250))
        #expect(try t.page(offset: 100, limit: 2, sort: desc).rows == [149, 148])
        #expect(try t.page(offset: 248, limit: 10, sort: desc).rows == [1, 0])
        #expect(try t.page(offset: 0, limit: .max, sort: desc).rows.count == 250)
        #expect(try t.page(offset: 7, limit: .max, sort: desc).rows.count == 243)
        #expect(try t.page(offset: 7, limit: .max).rows.count == 243)
        #expect(try t.page(offset: 7, limit: .max, filter: "1").rows.count > 0)
    }

    @Test func filterMatchesCellsIgnoringCase() throws {
        let (t, _f) = try table("a,b\nHello,x\nfoo,\"say \"\"HELLO\"\"\"\nbar,baz\nlo,he\nnone,\"multi\nline\"\n")
        _ = _f
        #expect(try t.page(offset: 0, limit: 10, filter: "hello") == CSVTable.Page(rows: [0, 1], total: 2))
        #expect(try t.page(offset: 0, limit: 10, filter: "\"hello\"").rows == [1])
        // Not across a cell boundary.
        #expect(try t.page(offset: 0, limit: 10, filter: "lo,he").rows == [])
        #expect(try t.page(offset: 0, limit: 10, filter: "i\nl").rows == [4])
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0, descending: true)], filter: "o").rows == [4, 3, 1, 0])
        #expect(try t.page(offset: 0, limit: 10, filter: "zzz") == CSVTable.Page(rows: [], total: 0))
        #expect(try t.page(offset: 0, limit: 10, filter: "").total == 5)
    }

    @Test func cancelledSortThrows() throws {
        let (t, _f) = try table("n\n1\n2\n")
        _ = _f
        #expect(throws: CancellationError.self) {
            try t.page(offset: 0, limit: 1, sort: [CSVSortKey(column: 0)], isCancelled: { true })
        }
        // Nothing bad was cached.
        #expect(try t.page(offset: 0, limit: 2, sort: [CSVSortKey(column: 0, descending: true)]).rows == [1, 0])
    }

    @Test func backgroundIndexingServesFirstRowsEarly() throws {
        let rows = 200_000
        var text = "id,name\n"
        text.reserveCapacity(rows * 12)
        for i in 1...rows { text += "\(i),n\(i % 97)\n" }
        let file = TempFile(text)
        final class Box: @unchecked Sendable { var last: (Int, Int, Int)?; let lock = NSLock() }
        let box = Box()
        let t = try CSVTable(path: file.path, options: .init(background: true, progress: { d, a, r in
            box.lock.lock(); box.last = (d, a, r); box.lock.unlock()
        }))
        #expect(t.indexedRowCount >= RowOffsets.chunkSize)
        let first = try t.page(offset: 0, limit: 5)
        #expect(first.rows == [0, 1, 2, 3, 4])
        // A page past the indexed rows waits for them; sorting waits for the whole file.
        #expect(try t.page(offset: rows - 2, limit: 5).rows == [rows - 2, rows - 1])
        #expect(try t.page(offset: 0, limit: 1, sort: [CSVSortKey(column: 0, descending: true)]) == CSVTable.Page(rows: [rows - 1], total: rows))
        #expect(try t.waitUntilIndexed() == rows)
        #expect(t.rowCount == rows)
        box.lock.lock(); let last = box.last; box.lock.unlock()
        #expect(last?.0 == last?.1)
        #expect(last?.2 == rows)
    }
}
