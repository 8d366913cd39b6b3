import SeededRandom
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import CSVTable

/// The engine's typed `describe` scan against the plugin kit's ``TableSummary`` (the
/// reference: one cell at a time) fed the same rows as served: every statistic, exactly.
@Suite struct DescribeTests {
    /// A file of `rows` rows: integers with ties and empty cells, text with non-ASCII, ties,
    /// empty and quoted cells, decimals, dates alone, timestamps written two ways (one instant,
    /// two texts), booleans, and short rows (missing cells).
    static func file(rows: Int, seed: UInt64) -> String {
        var rng = SplitMix(seed: seed)
        let names = ["Zoë", "Ada", "José", "明", "Søren", "ada", "Łukasz", "Дмитрий", "O'Brien", "a, b", "say \"hi\"", ""]
        var lines = ["id,qty,name,amount,day,at,flag"]
        for i in 1...rows {
            let qty = Int.random(in: 0..<20, using: &rng) == 0 ? "" : String(Int.random(in: -50...50, using: &rng))
            let name = names[Int.random(in: 0..<names.count, using: &rng)]
            let amount = Int.random(in: 0..<10, using: &rng) == 0 ? "" : String(format: "%.2f", Double(Int.random(in: -100_000...900_000, using: &rng)) / 100)
            let day = Int.random(in: 0..<15, using: &rng) == 0 ? ""
                : "20\(10 + Int.random(in: 0..<15, using: &rng))-0\(Int.random(in: 1...9, using: &rng))-1\(Int.random(in: 0...9, using: &rng))"
            let h = Int.random(in: 10...23, using: &rng), m = Int.random(in: 10...59, using: &rng)
            let at = Int.random(in: 0..<2, using: &rng) == 0 ? "2024-03-01T\(h):\(m):00Z" : "2024-03-01 \(h):\(m):00"
            let flag = Int.random(in: 0..<7, using: &rng) == 0 ? "" : (Int.random(in: 0..<3, using: &rng) == 0 ? "true" : "FALSE")
            var cells = [String(i), qty, csvField(name), amount, day, at, flag]
            if Int.random(in: 0..<500, using: &rng) == 0 { cells.removeLast(Int.random(in: 1...4, using: &rng)) }
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func spec(_ c: CSVColumn) -> ColumnSpec {
        let type: ColumnType = switch c.type {
        case .text: .text
        case .integer: .integer
        case .decimal: .decimal
        case .bool: .bool
        case .date: .date
        }
        return ColumnSpec(id: c.id, title: c.name, type: type)
    }

    static func json(_ v: CSVValue) -> JSONValue {
        switch v {
        case .null: .null
        case .text(let s): .string(s)
        case .integer(let i): .int(i)
        case .decimal(let d): .double(d)
        case .bool(let b): .bool(b)
        }
    }

    static func statistics(_ s: CSVColumnStats) -> ColumnSummary.Statistics {
        var out = ColumnSummary.Statistics()
        out.count = s.count; out.nulls = s.nulls; out.distinct = s.distinct
        out.min = s.min.map(json); out.max = s.max.map(json); out.top = s.top.map(json); out.topCount = s.topCount
        out.sorted = s.sorted; out.seen = s.sorted.count
        out.dateOnly = s.dateOnly
        return out
    }

    /// Compares the engine's statistics of the rows kept with the kit's, column by column.
    static func check(_ table: CSVTable, filter: String? = nil, where conditions: [CSVCondition] = []) throws {
        let specs = table.columns.map(spec)
        #expect(specs.map(\.type) == [.integer, .integer, .text, .decimal, .date, .date, .bool])
        let kept = try table.page(offset: 0, limit: Int.max, filter: filter, where: conditions).rows
        var reference = TableSummary(columns: specs)
        for values in table.values(rows: kept) { reference.add(values.map(json)) }
        #expect(reference.estimates.isEmpty)
        let stats = try table.describe(filter: filter, where: conditions)
        let expected = reference.rows
        for (k, s) in stats.enumerated() {
            #expect(s.invalid == 0)
            #expect(!s.distinctEstimated)
            let row = ColumnSummary.row(spec: specs[k], statistics(s))
            for (i, column) in DescribeRequest.columns.enumerated() {
                #expect(row.cells[i] == expected[k].cells[i], "\(specs[k].id).\(column.id)")
            }
        }
    }

    @Test func typedScanAgreesWithTheKitsSummary() throws {
        // More than 65,536 rows: the scan is split in parts (on more than one core).
        let (table, file) = try table(Self.file(rows: 70_000, seed: 11))
        defer { withExtendedLifetime(file) {} }
        try Self.check(table)
    }

    @Test func typedScanAgreesUnderWhereAndFilter() throws {
        let (table, file) = try table(Self.file(rows: 70_000, seed: 12))
        defer { withExtendedLifetime(file) {} }
        try Self.check(table, where: [CSVCondition(column: 1, op: .greater, values: [.number(CSVNumber("10")!)])])
        try Self.check(table, filter: "Zoë", where: [CSVCondition(column: 3, op: .notNull, values: [])])
    }

    @Test func textPastTheLimitIsAnEstimateWithExactMinAndMax() throws {
        var text = "word\n"
        for i in 0..<3000 { text += "w\(i % 1000)x\(i)\n" }
        let (table, file) = try table(text)
        defer { withExtendedLifetime(file) {} }
        let s = try table.describe(textLimit: 100)[0]
        #expect(s.distinctEstimated)
        #expect(s.count == 3000)
        #expect(abs(s.distinct - 3000) < 150)
        #expect(s.min == .text("w0x0"))
        #expect(s.max == .text("w9x9"))
    }

    @Test func mixedCellsAreCountedAsInvalid() throws {
        // A column given a type: cells that are not of it are served as text, and counted.
        let file = TempFile("n\n1\nn/a\n3\n\n")
        let table = try CSVTable(path: file.path, options: .init(types: ["n": CSVTypeChoice("integer")!]))
        let s = try table.describe()[0]
        #expect(table.columns[0].type == .integer)
        #expect(table.values(row: 1)[0] == .text("n/a"))
        #expect(s.invalid == 1)
        #expect(s.count == 3)
        #expect(s.sorted == [1, 3])
    }
}
