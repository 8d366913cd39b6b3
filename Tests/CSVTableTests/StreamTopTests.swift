import Foundation
import SeededRandom
import Testing
@testable import CSVTable

/// The first rows of an order read straight from the records (issue 28, `StreamTop`): the same
/// rows, in the same order, as the full sort and as the partial sort over the keys (`TopRows`),
/// for every kind of cell (empties, cells not of the column's type, quoted text with doubled
/// quotes and line breaks, long shared prefixes, ties), on one thread and on two sharing chunks.
@Suite struct StreamTopTests {
    static func orders(seed: UInt64) -> [[CSVSortKey]] {
        var rng = SplitMix(seed: seed &* 31)
        var orders: [[CSVSortKey]] = (0..<5).map { [CSVSortKey(column: $0, descending: $0 % 2 == 1)] }
        for _ in 0..<6 {
            let count = Int.random(in: 2...3, using: &rng)
            orders.append((0..<5).shuffled(using: &rng).prefix(count).map { CSVSortKey(column: $0, descending: Bool.random(using: &rng)) })
        }
        return orders
    }

    func stream(_ t: CSVTable, _ keys: [CSVSortKey], threads: Int) throws -> StreamTop {
        var s = try #require(StreamTop(sort: keys, table: t.columns, file: t.file, scanner: t.scanner,
                                       rows: RowSource(offsets: t.index.snapshot()), isCancelled: { false }))
        s.threads = threads
        return s
    }

    @Test(arguments: [1, 2])
    func firstRowsAreThoseOfTheFullSort(seed: UInt64) throws {
        let rows = 3000
        let (t, file) = try table(SortTests.randomCSV(rows: rows, seed: seed))
        _ = file
        let data = t.allStrings()
        let types = t.columns.map(\.type)
        for keys in Self.orders(seed: seed) {
            let want = referenceOrder(data, types: types, keys: keys)
            for k in [1, 50, 512, rows, rows + 5] {
                for threads in [1, 2] {
                    let got = try #require(try stream(t, keys, threads: threads).first(k), "sort \(keys): gave up")
                    #expect(got.map { Int($0) } == Array(want.prefix(k)), "sort \(keys), k \(k), \(threads) threads")
                }
            }
        }
    }

    /// Past one chunk of the index (65,536 rows), the chunks are shared out between the threads
    /// and their best rows merged: the rows of `TopRows` over the keys.
    @Test func rowsOfSeveralChunksAreThoseOfTheKeys() throws {
        let rows = 140_000
        let (t, file) = try table(SortTests.randomCSV(rows: rows, seed: 5))
        _ = file
        let offsets = t.index.snapshot()
        #expect(offsets.chunks.count == 3)
        for keys in [[CSVSortKey(column: 3), CSVSortKey(column: 1, descending: true)],
                     [CSVSortKey(column: 1, descending: true), CSVSortKey(column: 3)],
                     [CSVSortKey(column: 4), CSVSortKey(column: 2, descending: true), CSVSortKey(column: 0)]] {
            let specs = try keys.map { Sorter.Spec(keys: try t.columnKeys($0.column, offsets: offsets, isCancelled: { false }), descending: $0.descending) }
            let want = try TopRows(specs: specs, isCancelled: { false }).first(512, count: rows)
            for threads in [1, 2, 3] {
                #expect(try stream(t, keys, threads: threads).first(512) == want, "sort \(keys), \(threads) threads")
            }
        }
    }

    /// Where the cells read here could order otherwise than the keys, it gives up: a decimal
    /// with more digits than the column's sort scale (its keys become `Double`s), and a column
    /// with a style (decimal comma).
    @Test func givesUpWhereTheKeysWouldOrderOtherwise() throws {
        // Row 2,001 is neither sampled (every 5th row of 10,000) nor in the last 64 KiB.
        var text = "name,amount\n"
        for i in 0..<10_000 { text += i == 2001 ? "x,1.125\n" : "n\(i % 7),\(i).25\n" }
        let (t, file) = try table(text)
        _ = file
        #expect(t.columns[1].type == .decimal)
        #expect(try stream(t, [CSVSortKey(column: 1)], threads: 2).first(10) == nil)
        var comma = "name,amount\n"
        for i in 0..<200 { comma += "n\(i),\"\(i),5\"\n" }
        let (styled, file2) = try table(comma)
        _ = file2
        if styled.columns[1].style != .standard {
            #expect(StreamTop(sort: [CSVSortKey(column: 1)], table: styled.columns, file: styled.file, scanner: styled.scanner,
                              rows: RowSource(offsets: styled.index.snapshot()), isCancelled: { false }) == nil)
        }
    }

    /// A first sorted page asked while the file is indexed in the background comes from it,
    /// and equals the page of the same order once everything is sorted.
    @Test func aFirstPageWhileIndexingIsTheFullOrdersFirstPage() throws {
        let rows = 200_000
        let text = SortTests.randomCSV(rows: rows, seed: 11)
        let file = TempFile(text, name: "big.csv")
        let keys = [CSVSortKey(column: 3), CSVSortKey(column: 1, descending: true)]
        let streamed = try CSVTable(path: file.path, options: .init(background: true))
        let first = try streamed.page(offset: 0, limit: 50, sort: keys)
        #expect(first.total == rows)
        let whole = try CSVTable(path: file.path)
        let order = try whole.order(sort: keys, selection: Selection(filter: nil, conditions: []),
                                    offsets: whole.index.snapshot(), isCancelled: { false })
        #expect(first.rows == order.prefix(50).map { Int($0) })
    }
}
