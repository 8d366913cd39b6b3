import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// The order rule: type-aware comparison, nulls first ascending, Unicode text as the reference
/// and folded text orders accepted with a warning, ties in any order.
@Suite struct OrderCheckTests {
    func rows(_ cells: [[JSONValue]]) -> [Row] {
        cells.enumerated().map { Row(id: "r\($0.offset)", cells: $0.element) }
    }

    func key(_ type: ColumnType, _ index: Int = 0, desc: Bool = false) -> SortColumn {
        SortColumn(id: "c\(index)", index: index, type: type, descending: desc)
    }

    func verdict(_ values: [JSONValue], _ type: ColumnType, desc: Bool = false) -> OrderVerdict {
        OrderCheck.verify(rows(values.map { [$0] }), keys: [key(type, desc: desc)])
    }

    @Test func eachSectionIsSortedOnItsOwn() {
        // Folders (sizes null… then 7) then files: in order within each section, not across.
        let sized: [(String, JSONValue)] = [("d", 7), ("f", 1), ("f", 5)]
        let data = sized.enumerated().map { Row(id: "r\($0.offset)", cells: [$0.element.1], section: $0.element.0) }
        #expect(OrderCheck.verify(data, keys: [key(.integer)]) == .ordered)
        let mixed = rows([[7], [1], [5]])  // the same cells without sections are out of order
        #expect(OrderCheck.verify(mixed, keys: [key(.integer)]) != .ordered)
        let wrongInside = [Row(id: "a", cells: [5], section: "f"), Row(id: "b", cells: [1], section: "f")]
        #expect(OrderCheck.verify(wrongInside, keys: [key(.integer)]) != .ordered)
    }

    @Test func numbersCompareNumerically() {
        #expect(verdict([2, 10, 100], .integer) == .ordered)
        #expect(verdict([-1.5, 0, 2, 10.25], .decimal) == .ordered)
        #expect(verdict([100, 10, 2], .integer, desc: true) == .ordered)
        guard case .unordered(let v, let count) = verdict([10, 2, 100], .integer) else {
            Issue.record("10 before 2 is not ascending")
            return
        }
        #expect(v.first == 0 && v.second == 1 && count == 1)
        #expect(v.description.contains("out of order for c0 asc"))
    }

    @Test func nullsComeFirstAscendingAndLastDescending() {
        #expect(verdict([nil, nil, 1, 2], .integer) == .ordered)
        #expect(verdict([2, 1, nil], .integer, desc: true) == .ordered)
        // Nulls last ascending is accepted with a warning.
        guard case .orderedBy(let rule, _) = verdict([1, 2, nil], .integer) else {
            Issue.record("nulls last should be accepted with a warning")
            return
        }
        #expect(!rule.nullsFirst)
    }

    @Test func enumsFollowTheirDeclaredOrder() {
        let states = ColumnType.enumeration(["todo", "doing", "done"])
        #expect(verdict(["todo", "todo", "doing", "done"], states) == .ordered)
        #expect(verdict(["done", "doing", "todo"], states, desc: true) == .ordered)
        if case .unordered = verdict(["doing", "done", "todo"], states) {} else {
            Issue.record("alphabetical order is not the enum's order")
        }
    }

    @Test func boolsFalseBeforeTrue() {
        #expect(verdict([false, false, true], .bool) == .ordered)
        if case .unordered = verdict([true, false], .bool) {} else { Issue.record("true before false ascending") }
    }

    @Test func datesCompareChronologicallyAndAsISOText() {
        #expect(verdict(["2024-01-02", "2024-05-01", "2024-05-01T09:30:00Z", "2025-01-01"], .date) == .ordered)
        // 10:00+02:00 is 08:00Z: earlier than 09:00Z although its text sorts later.
        #expect(verdict(["2024-05-01T10:00:00+02:00", "2024-05-01T09:00:00Z"], .date) == .ordered)
        if case .unordered = verdict(["2024-05-02", "2024-05-01"], .date) {} else { Issue.record("May 2 before May 1") }
    }

    @Test func textInUnicodeScalarOrderPasses() {
        #expect(verdict(["Bob", "ada", "zoë", "Émile", "émile"], .text) == .ordered)
        #expect(verdict(["b", "a", "B", "A"], .text, desc: true) == .ordered)
    }

    @Test func caseInsensitiveTextIsAcceptedWithAWarning() {
        guard case .orderedBy(let rule, let reference) = verdict(["ada", "Bob", "carol", "Dave"], .text) else {
            Issue.record("case-insensitive order should be accepted")
            return
        }
        #expect(rule.text == .caseInsensitive)
        #expect(reference.description.contains("\"Bob\""))
        // SQLite NOCASE: ASCII letters folded, others by code point, so "Éz" before "éa".
        if case .orderedBy(let nocase, _) = verdict(["apple", "Banana", "Éz", "éa"], .text) {
            #expect(nocase.text == .asciiCaseInsensitive)
        } else {
            Issue.record("NOCASE order should be accepted")
        }
        // Locale-like: accents folded ("é" sorts with "e").
        if case .orderedBy(let accents, _) = verdict(["eagle", "Éclair", "egg", "zebra"], .text) {
            #expect(accents.text == .caseAndAccentInsensitive)
        } else {
            Issue.record("accent-insensitive order should be accepted")
        }
    }

    @Test func textInNoAcceptedOrderFails() {
        if case .unordered(_, let count) = verdict(["b", "c", "a", "d", "a"], .text) {
            #expect(count == 2)
        } else {
            Issue.record("b c a d a is not sorted")
        }
    }

    @Test func multiKeyOrderUsesTheSecondKeyOnTies() {
        let states = ColumnType.enumeration(["todo", "done"])
        let data = rows([["todo", 3], ["todo", 1], ["done", 9], ["done", 2]])
        let keys = [key(states, 0), key(.integer, 1, desc: true)]
        #expect(OrderCheck.verify(data, keys: keys) == .ordered)
        let wrong = rows([["todo", 1], ["todo", 3], ["done", 9]])
        if case .unordered(let v, _) = OrderCheck.verify(wrong, keys: keys) {
            #expect(v.description.contains("c1 desc"))
        } else {
            Issue.record("the second key is descending")
        }
    }

    @Test func foldedTiesMayBeBrokenByTextOrByTheNextKey() {
        // "ada" and "Ada" are equal case-insensitively: either the exact text or the next key may order them.
        let keys = [key(.text, 0), key(.integer, 1)]
        let byText = rows([["Ada", 2], ["ada", 1], ["Bob", 0]])
        let byNextKey = rows([["ada", 1], ["Ada", 2], ["bob", 0]])
        for data in [byText, byNextKey] {
            switch OrderCheck.verify(data, keys: keys) {
            case .ordered, .orderedBy: break
            case .unordered(let v, _): Issue.record("should be accepted: \(v)")
            }
        }
    }

    @Test func cellsOfTheWrongTypeConstrainNothing() {
        #expect(verdict([1, "n/a", 0], .integer) == .ordered)
    }

    @Test func isoDates() {
        #expect((ISODateTime("2024-05-01")?.isStrict == true))
        #expect((ISODateTime("2024-05-01T09:30:00Z")?.isStrict == true))
        #expect((ISODateTime("2024-05-01T09:30:00.250+02:00")?.isStrict == true))
        #expect(!(ISODateTime("2024-05-01T09:30:00")?.isStrict == true), "a timestamp needs a zone")
        #expect(!(ISODateTime("01/05/2024")?.isStrict == true))
        #expect(!(ISODateTime("2024-13-01")?.isStrict == true))
        // Lenient forms parse (for sorting) but are not what plugins should send.
        #expect(ISODateTime("2024-05-01 09:30:00Z")?.isStrict == true, "a space for the T, as PostgreSQL writes it")
        #expect(ISODateTime("2025-10-26 02:30:00.123456+02")?.isStrict == true, "a zone in hours only")
        #expect(ISODateTime("2025-10-26 02:30:00+02")?.millis == ISODateTime("2025-10-26T00:30:00Z")?.millis)
        #expect(ISODateTime("2024-05-01T09:30Z")?.isStrict == false)
        #expect(ISODateTime("2024-02-30") == nil)
        #expect(ISODateTime("1970-01-02")?.millis == 86_400_000)
        #expect(ISODateTime("2024-05-01T10:00:00+02:00")?.millis == ISODateTime("2024-05-01T08:00:00Z")?.millis)
    }
}
