import Foundation
import SeededRandom
import TabdeckProtocol
import Testing
@testable import CSVTable

/// `find` (PROTOCOL.md 11.15): the first row of the view `page` serves holding a text by the
/// filter's rule, from a position on or back, wrapping or not.
@Suite struct FindTests {
    /// Small pieces, checks and walk: every path of the search (pieces shared out and stopped,
    /// a sorted view walked then settled by a pass) on tables of a few rows.
    static let small = FindScan.Tuning(firstPiece: 2, mostPiece: 8, checkEvery: 3, walk: 5)

    static let people = #"""
        id,name,amount,note
        1,Ada,10.5,"hello, world"
        2,alan,,plain
        3,Grace,3.25,"line one
        line two"
        4,ADA2,10.5,x
        5,Linus,7,"say ""hi"""
        6,Bob,,ada's

        """#

    /// Position, row and wrapped of a hit, for short expectations.
    static func at(_ hit: CSVFindHit?) -> [Int]? { hit.map { [$0.position, $0.row, $0.wrapped ? 1 : 0] } }

    @Test func forwardFindsTheNextRowHoldingTheText() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        #expect(Self.at(try t.find("ada", from: 0)) == [0, 0, 0])
        #expect(Self.at(try t.find("ADA", from: 1)) == [3, 3, 0])
        #expect(Self.at(try t.find("ada", from: 4)) == [5, 5, 0])
        #expect(try t.find("ada", from: 6) == nil)
        #expect(try t.find("Grace", from: 3) == nil)
    }

    @Test func backwardLooksAtFromThenBefore() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        #expect(Self.at(try t.find("ada", from: 5, backward: true)) == [5, 5, 0])
        #expect(Self.at(try t.find("ada", from: 4, backward: true)) == [3, 3, 0])
        #expect(Self.at(try t.find("ada", from: 2, backward: true)) == [0, 0, 0])
        #expect(try t.find("linus", from: 3, backward: true) == nil)
    }

    @Test func wrapGoesOnFromTheOtherEnd() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        // Forward past the end: on from row 0, up to `from`.
        #expect(Self.at(try t.find("grace", from: 3, wrap: true)) == [2, 2, 1])
        #expect(Self.at(try t.find("ada2", from: 3, wrap: true)) == [3, 3, 0])
        #expect(Self.at(try t.find("ada2", from: 4, wrap: true)) == [3, 3, 1])
        // Backward past the start: on from the last row, down to `from`.
        #expect(Self.at(try t.find("linus", from: 3, backward: true, wrap: true)) == [4, 4, 1])
        #expect(Self.at(try t.find("bob", from: 0, backward: true, wrap: true)) == [5, 5, 1])
        #expect(try t.find("nowhere", from: 2, wrap: true) == nil)
        #expect(try t.find("nowhere", from: 2, backward: true, wrap: true) == nil)
    }

    @Test func fromPastTheEnd() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        #expect(try t.find("ada", from: 99) == nil)
        #expect(Self.at(try t.find("ada", from: 99, wrap: true)) == [0, 0, 1])
        #expect(Self.at(try t.find("ada", from: 99, backward: true)) == [5, 5, 0])
        #expect(Self.at(try t.find("ada", from: 99, backward: true, wrap: true)) == [5, 5, 0])
        let (empty, emptyFile) = try table("id,name\n")
        defer { empty.close(); _ = emptyFile }
        #expect(try empty.find("a", from: 0, wrap: true) == nil)
    }

    @Test func positionsFollowASortWithTiesAndNulls() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        // amount ascending: nulls first (rows 1, 5), 3.25, 7, then the tie 10.5 (rows 0, 3) in file order.
        let sort = [CSVSortKey(column: 2)]
        #expect(try t.page(offset: 0, limit: 10, sort: sort).rows == [1, 5, 2, 4, 0, 3])
        #expect(Self.at(try t.find("10.5", from: 0, sort: sort)) == [4, 0, 0])
        #expect(Self.at(try t.find("10.5", from: 5, backward: true, sort: sort)) == [5, 3, 0])
        #expect(Self.at(try t.find("ada", from: 2, sort: sort)) == [4, 0, 0])
        #expect(Self.at(try t.find("ada", from: 2, backward: true, sort: sort)) == [1, 5, 0])
        let down = [CSVSortKey(column: 2, descending: true), CSVSortKey(column: 0, descending: true)]
        #expect(try t.page(offset: 0, limit: 10, sort: down).rows == [3, 0, 4, 2, 5, 1])
        #expect(Self.at(try t.find("ada", from: 0, sort: down)) == [0, 3, 0])
        #expect(Self.at(try t.find("alan", from: 0, sort: down, tuning: Self.small)) == [5, 1, 0])
        #expect(Self.at(try t.find("ADA", from: 5, wrap: true, sort: down, tuning: Self.small)) == [0, 3, 1])
    }

    @Test func positionsFollowAFilterAndAWhere() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        // Filter "l": rows 0 (hello), 1 (alan), 2 (line), 4 (Linus).
        #expect(try t.page(offset: 0, limit: 10, filter: "l").rows == [0, 1, 2, 4])
        #expect(Self.at(try t.find("linus", from: 0, filter: "l")) == [3, 4, 0])
        #expect(try t.find("ada", from: 1, filter: "l") == nil)
        #expect(Self.at(try t.find("ada", from: 1, wrap: true, filter: "l")) == [0, 0, 1])
        #expect(try t.find("bob", from: 0, wrap: true, filter: "l") == nil)
        // amount > 5: rows 0, 3, 4.
        let over5 = [CSVCondition(column: 2, op: .greater, values: [.number(CSVNumber("5")!)])]
        #expect(try t.page(offset: 0, limit: 10, where: over5).rows == [0, 3, 4])
        #expect(Self.at(try t.find("linus", from: 0, where: over5)) == [2, 4, 0])
        #expect(Self.at(try t.find("ada", from: 1, where: over5)) == [1, 3, 0])
        #expect(try t.find("grace", from: 0, wrap: true, where: over5) == nil)
        // Both, under a sort: rows 0 (Ada), 4 (Linus).
        let sort = [CSVSortKey(column: 1, descending: true)]
        #expect(try t.page(offset: 0, limit: 10, sort: sort, filter: "l", where: over5).rows == [4, 0])
        #expect(Self.at(try t.find("ada", from: 0, sort: sort, filter: "l", where: over5)) == [1, 0, 0])
        #expect(Self.at(try t.find("7", from: 1, wrap: true, sort: sort, filter: "l", where: over5, tuning: Self.small)) == [0, 4, 1])
        #expect(try t.find("ada2", from: 0, wrap: true, sort: sort, filter: "l", where: over5) == nil)
    }

    @Test func aTextInNoRowIsNotFound() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        for backward in [false, true] {
            for tuning in [FindScan.Tuning(), Self.small] {
                #expect(try t.find("zebra", from: 3, backward: backward, wrap: true, tuning: tuning) == nil)
                #expect(try t.find("zebra", from: 3, backward: backward, wrap: true, sort: [CSVSortKey(column: 1)], tuning: tuning) == nil)
            }
        }
        // A header name is no row's text.
        #expect(try t.find("note", from: 0, wrap: true) == nil)
    }

    @Test func numbersAndQuotedFieldsMatchByTheirRawText() throws {
        let (t, file) = try table(Self.people)
        defer { t.close(); _ = file }
        #expect(t.columns[2].type == .decimal)
        // Only in the number column.
        #expect(Self.at(try t.find("3.25", from: 0)) == [2, 2, 0])
        #expect(Self.at(try t.find(".5", from: 1)) == [3, 3, 0])
        // In quoted fields: an embedded comma, an embedded line break, a doubled quote.
        #expect(Self.at(try t.find("o, w", from: 0, wrap: true)) == [0, 0, 0])
        #expect(Self.at(try t.find("one\nLINE", from: 0)) == [2, 2, 0])
        #expect(Self.at(try t.find("say \"hi\"", from: 0)) == [4, 4, 0])
        // Not across two cells, nor the quotes of the file itself.
        #expect(try t.find("ada,10", from: 0, wrap: true) == nil)
        #expect(try t.find("\"hello", from: 0, wrap: true) == nil)
    }

    /// A table long enough for the default pieces to be shared out between the cores.
    @Test func largeTablesAreSearchedInPiecesOnEveryCore() throws {
        var text = "id,name,score\n"
        for i in 0..<50_000 {
            let name = i == 30_001 || i == 45_000 || i == 7 ? "needle\(i)" : "hay\(i % 977)"
            text += "\(i),\(name),\((i * 7919) % 1000)\n"
        }
        let (t, file) = try table(text)
        defer { t.close(); _ = file }
        #expect(Self.at(try t.find("NEEDLE", from: 8)) == [30_001, 30_001, 0])
        #expect(Self.at(try t.find("needle", from: 30_002)) == [45_000, 45_000, 0])
        #expect(Self.at(try t.find("needle", from: 45_001, wrap: true)) == [7, 7, 1])
        #expect(Self.at(try t.find("needle", from: 44_999, backward: true)) == [30_001, 30_001, 0])
        #expect(Self.at(try t.find("needle", from: 6, backward: true, wrap: true)) == [45_000, 45_000, 1])
        let down = [CSVSortKey(column: 0, descending: true)]
        #expect(Self.at(try t.find("needle", from: 0, sort: down)) == [4_999, 45_000, 0])
        #expect(Self.at(try t.find("needle", from: 5_000, sort: down, tuning: FindScan.Tuning(walk: 1000))) == [19_998, 30_001, 0])
        #expect(try t.find("needle", from: 49_993, sort: down) == nil)
        final class Seen: @unchecked Sendable { var last = (0, 0); let lock = NSLock() }
        let seen = Seen()
        #expect(try t.find("absent", from: 0, wrap: true, progress: { done, all in
            seen.lock.lock(); if done >= seen.last.0 { seen.last = (done, all) }; seen.lock.unlock()
        }) == nil)
        #expect(seen.last == (50_000, 50_000))
        // Stopped by a cancel that comes once the scan runs (the order is cached: the scan
        // is the only thing left to ask).
        final class Calls: @unchecked Sendable {
            var n = 0; let lock = NSLock()
            func cancelled() -> Bool { lock.lock(); defer { lock.unlock() }; n += 1; return n > 2 }
        }
        for sort in [[], down] {
            let calls = Calls()
            #expect(throws: CancellationError.self, "sort \(sort)") {
                try t.find("absent", from: 0, wrap: true, sort: sort, isCancelled: calls.cancelled)
            }
        }
    }

    /// For random tables, texts, views and positions, `find` answers what a naive look along
    /// the rows `page` serves answers.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8]) func findAgreesWithANaiveLookAtThePages(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let names = ["Ada", "ada", "Zoë", "a, b", "say \"hi\"", "two\nlines", "", "Łukasz", "O'Brien", "ALAN"]
        let rows = 1 + rng.below(60)
        var lines = ["id,name,amount,flag"]
        for i in 0..<rows {
            let amount = rng.below(4) == 0 ? "" : String(format: "%.2f", Double(rng.below(2000) - 500) / 100)
            let flag = rng.below(3) == 0 ? "" : (rng.below(2) == 0 ? "true" : "false")
            var cells = [String(rng.below(10) == 0 ? i / 2 : i), csvField(names[rng.below(names.count)]), amount, flag]
            if rng.below(12) == 0 { cells.removeLast(1 + rng.below(2)) }
            if rng.below(15) == 0 { cells.append("extra ada") }
            lines.append(cells.joined(separator: ","))
        }
        let (t, file) = try table(lines.joined(separator: "\n") + "\n")
        defer { t.close(); _ = file }
        let texts = ["a", "AD", "1", ".5", "0", "-", ", ", "\"", "o\nl", "true", "ada", "zz", "extra", "ł"]
        let sorts: [[CSVSortKey]] = [[], [CSVSortKey(column: 1)], [CSVSortKey(column: 2, descending: true), CSVSortKey(column: 1)],
                                     [CSVSortKey(column: 3), CSVSortKey(column: 0, descending: true)]]
        let wheres: [[CSVCondition]] = [[], [CSVCondition(column: 2, op: .greater, values: [.number(CSVNumber("0")!)])],
                                        [CSVCondition(column: 3, op: .notNull)]]
        let filters: [String?] = [nil, nil, "a", "1", "zz"]
        for _ in 0..<40 {
            let text = texts[rng.below(texts.count)]
            let sort = sorts[rng.below(sorts.count)], clause = wheres[rng.below(wheres.count)]
            let filter = filters[rng.below(filters.count)]
            let from = rng.below(rows + 3), backward = rng.below(2) == 0, wrap = rng.below(2) == 0
            let want = try Self.naive(t, text, from: from, backward: backward, wrap: wrap, sort: sort, filter: filter, where: clause)
            let label = "seed \(seed): \(text.debugDescription) from \(from) backward \(backward) wrap \(wrap) sort \(sort) filter \(filter ?? "-") where \(clause)"
            for tuning in [FindScan.Tuning(), Self.small, FindScan.Tuning(firstPiece: 1, mostPiece: 1, checkEvery: 1, walk: 0)] {
                let got = try t.find(text, from: from, backward: backward, wrap: wrap, sort: sort, filter: filter, where: clause, tuning: tuning)
                #expect(got == want, "\(label) tuning \(tuning)")
            }
            // Once a filter by the text is cached, its matches answer without reading the file.
            _ = try t.page(offset: 0, limit: 1, filter: text)
            #expect(try t.find(text, from: from, backward: backward, wrap: wrap, sort: sort, filter: filter, where: clause) == want,
                    "\(label) (cached)")
        }
    }

    /// The answer of a look along the view `page` serves, row by row, by a matcher of its own.
    static func naive(_ t: CSVTable, _ text: String, from: Int, backward: Bool, wrap: Bool, sort: [CSVSortKey],
                      filter: String?, where clause: [CSVCondition]) throws -> CSVFindHit? {
        let view = try t.page(offset: 0, limit: Int.max, sort: sort, filter: filter, where: clause).rows
        let needle = Array(text.utf8).map(lower)
        func holds(_ row: Int) -> Bool {
            t.strings(row: row).contains { cell in
                guard let cell else { return false }
                let hay = Array(cell.utf8).map(lower)
                return hay.count >= needle.count && (0...(hay.count - needle.count)).contains { Array(hay[$0..<($0 + needle.count)]) == needle }
            }
        }
        let n = view.count
        guard n > 0 else { return nil }
        // Looked at in order: (position, wrapped).
        var look: [(Int, Bool)] = []
        if backward {
            let start = min(from, n - 1)
            look = stride(from: start, through: 0, by: -1).map { ($0, false) }
            if wrap && from < n { look += stride(from: n - 1, to: start, by: -1).map { ($0, true) } }
        } else if from >= n {
            look = wrap ? (0..<n).map { ($0, true) } : []
        } else {
            look = (from..<n).map { ($0, false) } + (wrap ? (0..<from).map { ($0, true) } : [])
        }
        for (p, wrapped) in look where holds(view[p]) { return CSVFindHit(position: p, row: view[p], wrapped: wrapped) }
        return nil
    }

    static func lower(_ b: UInt8) -> UInt8 { (65...90).contains(b) ? b + 32 : b }
}
