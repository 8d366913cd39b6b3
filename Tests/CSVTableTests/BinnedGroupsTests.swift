import Foundation
import SeededRandom
import Testing
import TabdeckProtocol
@testable import CSVTable

/// Bins counted in the engine's scan (``CSVTable/binnedGroups(columns:bins:filter:where:isCancelled:progress:)``)
/// against the reference: every distinct value grouped (``CSVTable/groups(columns:filter:where:isCancelled:progress:)``),
/// then cut by the protocol's rule on the groups (``GroupBins/apply(_:columns:bins:)``).
struct BinnedGroupsTests {
    static func json(_ value: CSVValue) -> JSONValue {
        switch value {
        case .null: .null
        case .text(let s): .string(s)
        case .integer(let i): .int(i)
        case .decimal(let d): .double(d)
        case .bool(let b): .bool(b)
        }
    }

    static func spec(_ t: CSVTable, _ c: Int) -> ColumnSpec {
        let type: ColumnType = switch t.columns[c].type {
        case .text: .text
        case .integer: .integer
        case .decimal: .decimal
        case .bool: .bool
        case .date: .date
        }
        return ColumnSpec(id: t.columns[c].id, title: t.columns[c].name, type: type)
    }

    /// A file with nulls, negatives, ties, decimals, dates (date-only, timestamps, one instant
    /// written two ways) and a few cells not of their column's type.
    static func generated(rows: Int, seed: UInt64) -> String {
        var rng = SplitMix(seed: seed)
        var lines = ["id,amount,qty,day,cat,stamp"]
        let cats = ["a", "b", "c", "", "d e"]
        for i in 0..<rows {
            let r = rng.next() % 100
            let amount: String = r < 5 ? "" : r < 7 ? "3.00" : r < 9 ? "-0" : r == 9 && i == 17 ? "n/a"
                : String(format: "%.2f", Double(Int(rng.next() % 200_000)) / 100 - 700)
            let qty = r < 4 ? "" : String(Int(rng.next() % 2001) - 1000)
            let d = Int(rng.next() % 900)
            let day = r < 3 ? "" : String(format: "20%02d-%02d-%02d", 20 + d / 300, 1 + (d / 25) % 12, 1 + d % 25)
            let h = Int(rng.next() % 72)
            let stamp = r < 3 ? "" : r < 6 ? "2024-05-0\(1 + h % 3)" : r < 8 ? "2024-05-01T00:00:00Z"
                : String(format: "2024-05-%02dT%02d:30:00Z", 1 + h / 24, h % 24)
            lines.append("\(i),\(amount),\(qty),\(day),\(cats[Int(rng.next() % 5)]),\(stamp)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func sorted(_ groups: [Group]) -> [String] {
        groups.map { "\($0.cells) \($0.count)" }.sorted()
    }

    /// Returns the ids of the columns that were cut.
    @discardableResult
    static func check(_ t: CSVTable, columns: [Int], bins: [Int?], filter: String? = nil, where conditions: [CSVCondition] = []) throws -> Set<String> {
        let specs = columns.map { spec(t, $0) }
        let reference = try t.groups(columns: columns, filter: filter, where: conditions)
            .map { Group(cells: $0.values.map(json), count: $0.count) }
        let (expected, expectedSizes) = GroupBins.apply(reference, columns: specs, bins: bins)
        let (found, sizes) = try t.binnedGroups(columns: columns, bins: bins, filter: filter, where: conditions)
        let groups = found.map { Group(cells: $0.values.map(json), count: $0.count) }
        let named = Dictionary(uniqueKeysWithValues: sizes.map { (specs[$0.key].id, $0.value) })
        #expect(sorted(groups) == sorted(expected), "columns \(columns) bins \(bins) filter \(filter ?? "-") where \(conditions)")
        #expect(named == expectedSizes, "columns \(columns) bins \(bins)")
        return Set(named.keys)
    }

    @Test func binsInTheScanMatchBinningEveryGroup() throws {
        let (t, _f) = try table(Self.generated(rows: 4000, seed: 5))
        _ = _f
        #expect(t.columns.map(\.type) == [.integer, .decimal, .integer, .date, .text, .date])
        let wheres: [(String?, [CSVCondition])] = [
            (nil, []), ("a", []),
            (nil, [CSVCondition(column: 1, op: .less, values: [.number(CSVNumber("0")!)])]),
            (nil, [CSVCondition(column: 4, op: .equal, values: [.text("b")])]),
        ]
        var cut = Set<String>()
        for (filter, conditions) in wheres {
            for bins in [1, 3, 7, 10, 25, 100, 5000] {
                for column in [0, 1, 2, 3, 5] {
                    cut.formUnion(try Self.check(t, columns: [column], bins: [bins], filter: filter, where: conditions))
                }
                // Two dimensions: a binned number × a text column, and a text × a binned date.
                try Self.check(t, columns: [1, 4], bins: [bins, nil], filter: filter, where: conditions)
                try Self.check(t, columns: [4, 3], bins: [nil, bins], filter: filter, where: conditions)
                try Self.check(t, columns: [2, 5, 4], bins: [bins, bins, nil], filter: filter, where: conditions)
            }
        }
        #expect(cut == Set([0, 1, 2, 3, 5].map { t.columns[$0].id }), "every number and date column was cut somewhere")
    }

    @Test func binsOfAColumnWithFewValuesAreItsValues() throws {
        let (t, _f) = try table("n,d\n1,2024-01-01\n2,\n1,2024-01-02\n,2024-01-01T10:00:00Z\n")
        _ = _f
        let (groups, sizes) = try t.binnedGroups(columns: [0, 1], bins: [2, 3])
        #expect(sizes.isEmpty)
        #expect(groups.count == 4)
        let (cut, cutSizes) = try t.binnedGroups(columns: [0], bins: [1])
        #expect(cutSizes == [0: .width("1")])
        #expect(cut.map(\.values).sorted { "\($0)" < "\($1)" } == [[.integer(1)], [.integer(2)], [.null]].sorted { "\($0)" < "\($1)" })
    }
}
