import SeededRandom
import TabdeckProtocol

/// Generated `rows` replies for `tabdeck-bench codec`: 6 cells per row like the CSV
/// benchmark's file (integer id, name with non-ASCII letters and escapes, decimal amount,
/// ISO date, category, free text with commas, quotes and backslashes). Deterministic for a seed.
enum CodecData {
    static func pages(rows: Int, rowsPerLine: Int, seed: UInt64) -> [RowsResult] {
        var random = SplitMix(seed: seed)
        var pages: [RowsResult] = []
        var offset = 0
        while offset < rows {
            let count = min(rowsPerLine, rows - offset)
            var page: [Row] = []
            page.reserveCapacity(count)
            for i in offset..<(offset + count) { page.append(row(i + 1, &random)) }
            pages.append(RowsResult(generation: 1, offset: offset, rows: page, total: rows))
            offset += count
        }
        return pages
    }

    static let firstNames = ["Zoë", "Łukasz", "Ana", "José", "Mette", "Björn", "Chloé", "Ngozi", "Søren", "Aiko",
                             "O'Brien", "Dmitrij", "Renée", "Ümit", "李", "Émile"]
    static let lastNames = ["Müller", "Nowak", "García", "\"Bud\" Smith", "Ødegård", "Dvořák", "Kovač", "Tanaka",
                            "Smith", "Lefèvre", "Back\\slash", "Ólafsson"]
    static let categories = ["alpha", "beta", "gamma", "delta", "epsilon"]
    static let words = ["lorem", "ipsum", "dolor", "sit", "amet,", "\"quoted\"", "C:\\temp", "naïve", "café,", "x",
                        "consectetur", "adipiscing", "elit", "tab\there", "50%", "a,b,c"]

    static func row(_ id: Int, _ random: inout SplitMix) -> Row {
        let name = "\(firstNames[random.below(firstNames.count)]) \(lastNames[random.below(lastNames.count)])"
        let amount = Double(Int(random.below(10_000_000)) - 1_000_000) / 100
        let date = "20\(10 + random.below(15))-\(pad(1 + random.below(12)))-\(pad(1 + random.below(28)))"
        var text = ""
        for w in 0..<(3 + random.below(10)) { text += (w == 0 ? "" : " ") + words[random.below(words.count)] }
        let cells: [JSONValue] = [.int(Int64(id)), .string(name), .double(amount), .string(date),
                                  .string(categories[random.below(categories.count)]), .string(text)]
        return Row(id: String(id), cells: cells)
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
}
