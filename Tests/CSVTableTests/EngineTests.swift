import Foundation
import Testing
@testable import CSVTable

/// The engine's internal paths that small tables do not take by themselves: the most
/// significant bits split of ranges larger than the radix scratch, prefix keys of text
/// columns with too many distinct values for a dictionary, chunk boundaries of the index.
@Suite struct EngineTests {
    static let orders: [[CSVSortKey]] = [
        [CSVSortKey(column: 0)], [CSVSortKey(column: 1, descending: true)], [CSVSortKey(column: 3)],
        [CSVSortKey(column: 3, descending: true)],
        [CSVSortKey(column: 3), CSVSortKey(column: 1, descending: true)],
        [CSVSortKey(column: 1, descending: true), CSVSortKey(column: 3)],
        [CSVSortKey(column: 4), CSVSortKey(column: 2, descending: true), CSVSortKey(column: 0)],
    ]

    /// Sorts with the given scratch size and dictionary limit, straight through the Sorter.
    func sorted(_ t: CSVTable, _ keys: [CSVSortKey], scratch: Int, dictionaryLimit: Int, parallel: Int = 1 << 18) throws -> [Int] {
        let offsets = try t.index.waitComplete(isCancelled: { false })
        let specs = try keys.map { k in
            Sorter.Spec(keys: try ColumnKeys(column: k.column, type: t.columns[k.column].type, scale: t.columns[k.column].sortScale,
                                             file: t.file, scanner: t.scanner,
                                             offsets: offsets, dictionaryLimit: dictionaryLimit, isCancelled: { false }),
                        descending: k.descending)
        }
        return try Sorter(specs: specs, isCancelled: { false }, scratchRows: scratch, parallelRows: parallel).sortedOrder(count: offsets.count).map(Int.init)
    }

    @Test(arguments: [(64, ColumnKeys.dictionaryLimit, 1 << 18), (1 << 20, 0, 1 << 18), (100, 50, 1 << 18), (2, 1 << 20, 1 << 18),
                      (1 << 20, ColumnKeys.dictionaryLimit, 2), (64, 0, 100)])
    func smallScratchAndDictionaryLimitsGiveTheReferenceOrder(scratch: Int, limit: Int, parallel: Int) throws {
        let (t, _f) = try table(SortTests.randomCSV(rows: 3000, seed: 21))
        _ = _f
        let data = t.allStrings()
        let types = t.columns.map(\.type)
        for keys in Self.orders {
            #expect(try sorted(t, keys, scratch: scratch, dictionaryLimit: limit, parallel: parallel)
                        == referenceOrder(data, types: types, keys: keys),
                    "sort \(keys), scratch \(scratch), dictionary limit \(limit), parallel from \(parallel) rows")
        }
    }

    @Test func textDictionaryRanksInByteOrder() {
        var d = TextDictionary(limit: 10)
        let words = ["pear", "apple", "", "apple", "a\u{0}", "a", "Zoë", "pear", "äpfel"]
        let ids = words.map { w in Array(w.utf8).withUnsafeBufferPointer { d.id(of: $0) } }
        #expect(ids == [0, 1, 2, 1, 3, 4, 5, 0, 6])
        let rank = d.ranks()
        let distinct = ["pear", "apple", "", "a\u{0}", "a", "Zoë", "äpfel"]
        let expected = distinct.indices.sorted { Array(distinct[$0].utf8).lexicographicallyPrecedes(Array(distinct[$1].utf8)) }
        #expect(expected.map { rank[$0] } == Array(0..<UInt32(distinct.count)))
        var small = TextDictionary(limit: 2)
        #expect(Array("a".utf8).withUnsafeBufferPointer { small.id(of: $0) } == 0)
        #expect(Array("b".utf8).withUnsafeBufferPointer { small.id(of: $0) } == 1)
        #expect(Array("c".utf8).withUnsafeBufferPointer { small.id(of: $0) } == nil)
        #expect(Array("a".utf8).withUnsafeBufferPointer { small.id(of: $0) } == 0)
    }

    /// Quoted fields with line breaks, CRLF line ends and doubled quotes around the index's
    /// chunk boundary, read while the rest is indexed in the background.
    @Test func quotedRecordsAcrossChunkBoundariesInTheBackground() throws {
        let rows = RowOffsets.chunkSize + 5_000
        var text = "id\tnote\r\n"
        text.reserveCapacity(rows * 20)
        func note(_ i: Int) -> String { i % 7 == 0 ? "line \(i)\r\nnext \"q\"" : "n\(i)" }
        for i in 1...rows {
            let n = note(i)
            text += "\(i)\t" + (n.contains("\"") ? "\"" + n.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : n) + "\r\n"
        }
        let file = TempFile(text, name: "t.tsv")
        final class Box: @unchecked Sendable { var reports: [(Int, Int, Int)] = []; let lock = NSLock() }
        let box = Box()
        let t = try CSVTable(path: file.path, options: .init(background: true, progress: { d, a, r in
            box.lock.lock(); box.reports.append((d, a, r)); box.lock.unlock()
        }))
        #expect(t.delimiter == Byte.tab)
        for row in [0, 6, RowOffsets.chunkSize - 2, RowOffsets.chunkSize - 1, RowOffsets.chunkSize, RowOffsets.chunkSize + 1, rows - 1] {
            let page = try t.page(offset: row, limit: 1)
            #expect(page.rows == [row])
            #expect(t.strings(row: row) == [String(row + 1), note(row + 1)], "row \(row)")
        }
        #expect(try t.waitUntilIndexed() == rows)
        #expect(try t.page(offset: rows - 1, limit: 10) == CSVTable.Page(rows: [rows - 1], total: rows))
        // The last report comes after the index is published complete (which wakes
        // `waitUntilIndexed`), from the indexing thread: give it a moment.
        func finalReported(_ r: [(Int, Int, Int)]) -> Bool { r.last.map { $0.0 == $0.1 && $0.2 == rows } == true }
        var reports: [(Int, Int, Int)] = []
        for _ in 0..<200 {
            box.lock.lock(); reports = box.reports; box.lock.unlock()
            if finalReported(reports) { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(finalReported(reports), "\(reports.suffix(2))")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.2 <= $1.2 }, "progress only grows")
        // Sorting by the note (text with quotes and line breaks) keeps ties in file order.
        let sorted = try t.page(offset: 0, limit: rows, sort: [CSVSortKey(column: 1, descending: true)]).rows
        let data = t.allStrings()
        #expect(sorted == referenceOrder(data, types: t.columns.map(\.type), keys: [CSVSortKey(column: 1, descending: true)]))
    }

    /// Growing ids are widest at the end of the file: the width hints must fit them.
    @Test func widthHintsFitTheWidestNumbersAtTheEnd() throws {
        let rows = 150_000
        var text = "id,name,amount\n"
        text.reserveCapacity(rows * 20)
        for i in 1...rows { text += "\(i),n\(i % 13),\(i % 10 == 0 ? "12345678.25" : "1.5")\n" }
        let file = TempFile(text)
        let t = try CSVTable(path: file.path, options: .init(background: true))
        let id = t.columns[0].widthHints, amount = t.columns[2].widthHints
        #expect(id.min >= 6 && id.ideal >= 6 && id.max >= id.ideal, "\(id)")
        #expect(amount.min >= 11 && amount.ideal >= 11, "\(amount)")
        let name = t.columns[1].widthHints
        #expect(name.min <= name.ideal && name.ideal <= name.max)
        t.close()
    }

    /// Text of 16 MiB or more keeps its length outside the packed per-row word.
    @Test func textLongerThanSixteenMebibytesSortsByItsBytes() throws {
        let n = 1 << 24
        var bytes = Array("s\nb\n".utf8)
        bytes += [UInt8](repeating: 0x78, count: n + 10) + [0x0A]
        bytes += [UInt8](repeating: 0x78, count: n + 3) + [0x61, 0x0A]
        let file = TempFile(bytes: bytes)
        let t = try CSVTable(path: file.path)
        #expect(t.rowCount == 3)
        #expect(try sorted(t, [CSVSortKey(column: 0)], scratch: 1 << 20, dictionaryLimit: 0) == [0, 2, 1])
        #expect(try sorted(t, [CSVSortKey(column: 0, descending: true)], scratch: 1 << 20, dictionaryLimit: 0) == [1, 2, 0])
    }

    /// A sorted page asked for while the index is still growing: the keys are extracted
    /// chunk by chunk alongside the indexer, and the order is the whole file's.
    @Test func sortRequestedWhileIndexingGivesTheWholeFilesOrder() throws {
        let rows = 150_000
        var text = "id,name\n"
        text.reserveCapacity(rows * 14)
        for i in 1...rows { text += "\(i),n\((i &* 7919) % 1013)\n" }
        let file = TempFile(text)
        let t = try CSVTable(path: file.path, options: .init(background: true))
        let keys = [CSVSortKey(column: 1), CSVSortKey(column: 0, descending: true)]
        let page = try t.page(offset: 0, limit: rows, sort: keys)
        #expect(page.total == rows)
        #expect(page.rows == referenceOrder(t.allStrings(), types: t.columns.map(\.type), keys: keys))
    }
}
