import Foundation
import SeededRandom
import Testing
@testable import CSVTable

/// The first page from a partial sort (issue 14, point 2): the same rows, in the same order,
/// as the first rows of the full sort, for every kind of key (empties, unparseable cells,
/// long shared text prefixes, ties), on one thread and split between two.
@Suite struct TopRowsTests {
    @Test(arguments: [1, 2])
    func firstRowsAreThoseOfTheFullSort(seed: UInt64) throws {
        let rows = 3000
        let (t, file) = try table(SortTests.randomCSV(rows: rows, seed: seed))
        _ = file
        let data = t.allStrings()
        let types = t.columns.map(\.type)
        var rng = SplitMix(seed: seed &* 31)
        var orders: [[CSVSortKey]] = (0..<5).map { [CSVSortKey(column: $0, descending: $0 % 2 == 1)] }
        for _ in 0..<6 {
            let count = Int.random(in: 2...3, using: &rng)
            orders.append((0..<5).shuffled(using: &rng).prefix(count).map { CSVSortKey(column: $0, descending: Bool.random(using: &rng)) })
        }
        let offsets = t.index.snapshot()
        for keys in orders {
            let specs = try keys.map { Sorter.Spec(keys: try t.columnKeys($0.column, offsets: offsets, isCancelled: { false }), descending: $0.descending) }
            let want = referenceOrder(data, types: types, keys: keys)
            for (k, split) in [(1, 2), (50, 2), (50, 1 << 20), (rows, 700), (rows + 5, 2)] {
                let got = try TopRows(specs: specs, isCancelled: { false }, splitRows: split).first(k, count: rows)
                #expect(got.map { Int($0) } == Array(want.prefix(k)), "sort \(keys), k \(k), split at \(split)")
            }
        }
    }

    @Test func aFirstPageComesFromThePartialSortAndLaterPagesFromTheFullOne() throws {
        let rows = 2000
        let (t, file) = try table(SortTests.randomCSV(rows: rows, seed: 9))
        _ = file
        let keys = [CSVSortKey(column: 3), CSVSortKey(column: 1, descending: true)]
        let want = referenceOrder(t.allStrings(), types: t.columns.map(\.type), keys: keys)
        let top = try #require(try t.firstRows(sort: keys, offsets: t.index.snapshot(), upTo: 100, isCancelled: { false }, minimumRows: 0))
        #expect(top.map { Int($0) } == Array(want.prefix(100)))
        // The partial sort kept more rows than asked: the next page (the host reads one ahead)
        // and a bigger first page come from it, with no pass of their own.
        #expect(t.caches.top(keys, count: CSVTable.topRowsKept)?.map { Int($0) } == Array(want.prefix(CSVTable.topRowsKept)))
        #expect(try t.firstRows(sort: keys, offsets: t.index.snapshot(), upTo: 200, isCancelled: { false }, minimumRows: 0)?
                    .map { Int($0) } == Array(want.prefix(200)))
        // The full order (computed in the background or by this call, whichever comes first).
        #expect(try t.page(offset: 0, limit: rows, sort: keys).rows == want)
        // Once it is known, no partial sort is made again.
        #expect(try t.firstRows(sort: keys, offsets: t.index.snapshot(), upTo: 100, isCancelled: { false }, minimumRows: 0) == nil)
        // Below the minimum size, or for a page too far down, the full order is the way.
        let other = [CSVSortKey(column: 0)]
        #expect(try t.firstRows(sort: other, offsets: t.index.snapshot(), upTo: 100, isCancelled: { false }) == nil)
        #expect(try t.firstRows(sort: other, offsets: t.index.snapshot(), upTo: CSVTable.topRowsLimit + 1,
                                isCancelled: { false }, minimumRows: 0) == nil)
    }
}
