import SeededRandom
import Testing
@testable import CSVTable

/// Files that are not quite CSV (random bytes over a CSV alphabet: quotes, delimiters, CR, LF,
/// NUL, broken UTF-8) open, page, sort and filter without trapping: a trap would crash the
/// plugin under a person's tab. Seeded, so a failure can be replayed.
@Suite struct GarbageFileTests {
    static let alphabet: [[UInt8]] = [
        [0x2C], [0x22], [0x0A], [0x0D], [0x0D, 0x0A], [0x09], [0x3B], [0x00], [0x20],
        Array("a".utf8), Array("1".utf8), Array("-2.5".utf8), Array("2024-02-29".utf8), Array("true".utf8),
        Array("é".utf8), [0xC3], [0xFF, 0xFE], [0xE2, 0x82], Array("界".utf8), Array("1e400".utf8),
        Array("9223372036854775808".utf8), Array("\"\"".utf8),
    ]

    @Test(arguments: Array(UInt64(1)...24))
    func randomBytesOpenPageSortAndFilter(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        var bytes: [UInt8] = []
        let pieces = Int.random(in: 0...3000, using: &rng)
        for _ in 0..<pieces { bytes += Self.alphabet.randomElement(using: &rng)! }
        let file = TempFile(bytes: bytes, name: seed % 3 == 0 ? "t.tsv" : "t.csv")
        let table: CSVTable
        do {
            table = try CSVTable(path: file.path, options: .init(background: seed % 2 == 0))
        } catch {
            return  // refused with an error (an empty file, say): fine, as long as it did not trap
        }
        let total = try table.waitUntilIndexed()
        for row in 0..<min(total, 200) {
            _ = table.values(row: row)
            _ = table.strings(row: row)
        }
        for column in table.columns.indices {
            for descending in [false, true] {
                let page = try table.page(offset: 0, limit: 50, sort: [CSVSortKey(column: column, descending: descending)])
                #expect(page.total == total)
            }
        }
        if table.columns.count >= 2 {
            _ = try table.page(offset: max(0, total - 5), limit: 50, sort: [CSVSortKey(column: 1), CSVSortKey(column: 0, descending: true)])
        }
        for text in ["a", "\"", "é", "界"] {
            let page = try table.page(offset: 0, limit: 10, filter: text)
            #expect((page.total ?? 0) <= total)
        }
        table.close()
    }
}
