import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// The order check with the column rules of PROTOCOL.md 10.2 and 10.3: exact numbers sent as
/// text, a declared `nulls`, `order: casefold` and `order: source`.
@Suite struct ColumnOrderCheckTests {
    func verdict(_ values: [JSONValue], _ type: ColumnType, desc: Bool = false, nulls: NullOrder = .smallest,
                 order: ColumnOrder = .protocol) -> OrderVerdict {
        let rows = values.enumerated().map { Row(id: "r\($0.offset)", cells: [$0.element]) }
        return OrderCheck.verify(rows, keys: [SortColumn(id: "c0", index: 0, type: type, descending: desc, nulls: nulls, order: order)])
    }

    func isUnordered(_ v: OrderVerdict) -> Bool { if case .unordered = v { true } else { false } }

    @Test func numberTextsAndJSONNumbersInOneColumnCompareExactly() {
        let ascending: [JSONValue] = [
            nil, "-Infinity", -1e300, "-123456789012345678901234567890", "-0", 0, "0.00", 0.1, "0.10000000000000001",
            3, "3.00", 3.0, "959.50", "123456789012.12345678", "123456789012.12345679",
            "1234444433332222.44434321", "1234444433332222.44434322", 9_007_199_254_740_992, "9007199254740993",
            "123456789012345678901234567890", 1e300, "Infinity", "NaN",
        ]
        #expect(verdict(ascending, .decimal) == .ordered)
        #expect(verdict(ascending.reversed(), .decimal, desc: true) == .ordered)
        // One double apart from nothing, still out of order.
        #expect(isUnordered(verdict(["1234444433332222.44434322", "1234444433332222.44434321"], .decimal)))
        #expect(isUnordered(verdict(["9007199254740993", 9_007_199_254_740_992], .decimal)))
        #expect(isUnordered(verdict(["NaN", "Infinity"], .decimal)))
        // Past 64 bits in an integer column.
        #expect(verdict([.int(Int64.max), "9223372036854775808", "123456789012345678901234567890"], .integer) == .ordered)
        #expect(isUnordered(verdict(["123456789012345678901234567890", .int(Int64.max)], .integer)))
        // A text that is no number of its column constrains nothing (the cell checks report it).
        #expect(verdict([2, "1.5", 1], .integer) == .ordered)
        #expect(isUnordered(verdict([2, "1.5", 1], .decimal)))
        #expect(verdict([1, "n/a", 0], .decimal) == .ordered)
    }

    @Test func numberTextsFitTheirColumns() {
        #expect(CellType.problem("1234444433332222.44434322", .decimal) == nil)
        #expect(CellType.problem("-Infinity", .decimal) == nil)
        #expect(CellType.problem("123456789012345678901234567890", .integer) == nil)
        #expect(CellType.problem("1.5", .integer)?.contains("expected an integer") == true)
        #expect(CellType.problem("12 apples", .decimal)?.contains("expected a number") == true)
    }

    @Test func aColumnThatDeclaresNullsLargestIsHeldToIt() {
        // Nulls last ascending, first descending: in order, no warning.
        #expect(verdict([1, "2.5", nil, nil], .decimal, nulls: .largest) == .ordered)
        #expect(verdict([nil, "2.5", 1], .decimal, desc: true, nulls: .largest) == .ordered)
        #expect(verdict(["a", "b", nil], .text, nulls: .largest) == .ordered)
        // The other way round fails: the plugin said where its nulls go.
        #expect(isUnordered(verdict([nil, 1, 2], .integer, nulls: .largest)))
        #expect(isUnordered(verdict([2, 1, nil], .integer, desc: true, nulls: .largest)))
        // Undeclared (smallest): nulls last is still accepted with a warning, as before.
        guard case .orderedBy(let rule, _) = verdict([1, 2, nil], .integer) else {
            Issue.record("nulls last should be accepted with a warning")
            return
        }
        #expect(!rule.nullsFirst)
    }

    @Test func aCasefoldColumnIsCheckedWithCaseFolded() {
        // In order for the column, no warning.
        #expect(verdict(["ada", "Bob", "carol", "Dave"], .text, order: .casefold) == .ordered)
        #expect(verdict(["_x", "Ada", "ada", "b", "B"], .text, order: .casefold) == .ordered)
        #expect(verdict(["Dave", "carol", "bob", "Ada"], .text, desc: true, order: .casefold) == .ordered)
        // ASCII at least: a plugin that also folds other letters passes too.
        #expect(verdict(["Éz", "éa"], .text, order: .casefold) == .ordered)
        #expect(verdict(["éa", "Éz"], .text, order: .casefold) == .ordered)
        // Not in a case-folded order.
        #expect(isUnordered(verdict(["b", "a", "c"], .text, order: .casefold)))
        // Byte order is not the column's order ("B" < "a" by bytes).
        #expect(isUnordered(verdict(["B", "a"], .text, order: .casefold)))
    }

    @Test func aSourceOrderColumnConstrainsNothing() {
        #expect(verdict(["10.0.0.2", "9.0.0.1", nil, "10.0.0.1"], .text, order: .source) == .ordered)
        #expect(verdict(["1 day", "2 hours"], .text, desc: true, order: .source) == .ordered)
    }
}
