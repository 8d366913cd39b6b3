import Foundation
import SeededRandom
import Testing
@testable import CSVTable

/// The structured filter (`where`, PROTOCOL.md 11.11) and group counts (`aggregate`, 11.12)
/// of the engine, checked against a reference computed here from the file's raw cells
/// (``CSVTable/strings(row:)``), with exact decimals (Foundation's `Decimal`) and dates parsed
/// by this file's own parser: nothing of the engine's scan, parsing or comparison.
@Suite struct WhereAggregateTests {
    // MARK: Data

    /// Columns: id (integer), name (text: ties, non-ASCII, empty), amount (decimal: scales
    /// `3`/`3.0`/`3.00`, empty), day (date: dates and timestamps, one instant written two
    /// ways, empty), ok (bool, empty), short rows (missing cells).
    static func generated(rows: Int, seed: UInt64) -> String {
        var rng = SplitMix(seed: seed)
        let names = ["Ada", "ada", "Zoë", "Zoe", "Łukasz", "明", "", "O'Brien", "Émile", "emile", "Ada Lovelace", "B"]
        let amounts = ["3", "3.0", "3.00", "-0.5", "0.1", "0.10", "", "12.5", "1000", "-7.25", "19.99", "0", "-0", "2.5", "7"]
        let days = ["2024-05-01", "2024-05-01T00:00:00Z", "2024-05-01T09:30:00Z", "2024-05-01T11:30:00+02:00",
                    "2023-12-31", "2024-02-29T23:59:59Z", "", "2025-01-15"]
        let oks = ["true", "false", "TRUE", ""]
        var lines = ["id,name,amount,day,ok"]
        for i in 0..<rows {
            let name = names[rng.below(names.count)]
            let cells = [String(i % 97), csvField(name), amounts[rng.below(amounts.count)], days[rng.below(days.count)],
                         oks[rng.below(oks.count)]]
            // Now and then a short row: the cells after the second are missing (null).
            lines.append(rng.below(40) == 0 ? cells.prefix(2).joined(separator: ",") : cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let european = """
        name;amount;booked
        a;9998,54;31.12.2025
        b;-0,5;01.02.2024
        c;;15.06.2024 08:30
        d;12;02.01.2024
        e;1000,00;28.02.2023
        f;12,0;31.12.2025
        g;-0,50;
        h;3;15.06.2024 08:30

        """

    // MARK: Reference

    enum Ref: Hashable {
        case null, number(Decimal), date(Double), bool(Bool), text(String), invalid(String)
        /// `Infinity`, `-Infinity` (values only).
        case infinity(negative: Bool)
    }

    /// The reference value of a raw cell of a column (nil raw: a missing cell).
    static func ref(_ raw: String?, _ column: CSVColumn) -> Ref {
        guard let raw else { return .null }
        if raw.isEmpty { return column.type == .text ? .text("") : .null }
        switch column.type {
        case .text: return .text(raw)
        case .integer: return Int64(raw).map { .number(Decimal($0)) } ?? .invalid(raw)
        case .decimal:
            let text = column.style == .decimalComma ? raw.replacingOccurrences(of: ",", with: ".") : raw
            guard text.allSatisfy({ "0123456789.-+".contains($0) }), let d = Decimal(string: text) else { return .invalid(raw) }
            return .number(d)
        case .bool: return raw.lowercased() == "true" ? .bool(true) : raw.lowercased() == "false" ? .bool(false) : .invalid(raw)
        case .date: return date(raw, dayFirst: column.style == .dayFirst).map { .date($0) } ?? .invalid(raw)
        }
    }

    /// Seconds since 1970 of `YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM]` or `DD.MM.YYYY[ HH:MM]` (UTC
    /// unless an offset is given), by Foundation's calendar.
    static func date(_ s: String, dayFirst: Bool) -> Double? {
        var c = DateComponents()
        var rest: Substring
        if dayFirst {
            let parts = s.split(separator: " ")
            let dmy = parts[0].split(separator: ".")
            guard dmy.count == 3 else { return nil }
            c.day = Int(dmy[0]); c.month = Int(dmy[1]); c.year = Int(dmy[2])
            rest = parts.count > 1 ? "T" + parts[1] : ""
        } else {
            guard s.count >= 10 else { return nil }
            let ymd = s.prefix(10).split(separator: "-")
            c.year = Int(ymd[0]); c.month = Int(ymd[1]); c.day = Int(ymd[2])
            rest = s.dropFirst(10)
        }
        var offset = 0
        if rest.hasSuffix("Z") { rest = rest.dropLast() }
        if rest.count > 6, let sign = rest.dropFirst(6).lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = rest[sign...].dropFirst().split(separator: ":")
            offset = (Int(zone[0])! * 3600 + (zone.count > 1 ? Int(zone[1])! * 60 : 0)) * (rest[sign] == "-" ? -1 : 1)
            rest = rest[..<sign]
        }
        if rest.hasPrefix("T") {
            let hms = rest.dropFirst().split(separator: ":")
            c.hour = Int(hms[0]); c.minute = Int(hms[1]); c.second = hms.count > 2 ? Int(hms[2]) : 0
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let d = calendar.date(from: c) else { return nil }
        return d.timeIntervalSince1970 - Double(offset)
    }

    /// The reference value of a condition's value.
    static func ref(_ v: CSVWhereValue, _ column: CSVColumn) -> Ref {
        switch v {
        case .number(let n):
            switch n.kind {
            case .negativeInfinity: return .infinity(negative: true)
            case .infinity, .nan: return .infinity(negative: false)
            case .finite:
                if n.digits.isEmpty { return .number(0) }
                let significand = Decimal(string: n.digits.map(String.init).joined())!
                return .number(Decimal(sign: n.negative ? .minus : .plus, exponent: n.exponent - n.digits.count, significand: significand))
            }
        case .date(let ms): return .date(Double(ms) / 1000)
        case .bool(let b): return .bool(b)
        case .text(let s): return .text(s)
        }
    }

    static func compare(_ a: Ref, _ b: Ref) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.number, .infinity(let negative)): return negative ? 1 : -1
        case (.date(let x), .date(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.text(let x), .text(let y)):
            if x.utf8.elementsEqual(y.utf8) { return 0 }
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        default: return nil
        }
    }

    /// Whether a condition holds for a reference cell: null meets only `null`.
    static func holds(_ c: CSVCondition, _ cell: Ref, _ column: CSVColumn) -> Bool {
        if c.op == .null { return cell == .null }
        if cell == .null { return false }
        if c.op == .notNull { return true }
        let cmp = { (v: CSVWhereValue) in compare(cell, ref(v, column)) }
        switch c.op {
        case .equal: return cmp(c.values[0]) == 0
        case .notEqual: return cmp(c.values[0]).map { $0 != 0 } ?? false
        case .less: return cmp(c.values[0]).map { $0 < 0 } ?? false
        case .lessOrEqual: return cmp(c.values[0]).map { $0 <= 0 } ?? false
        case .greater: return cmp(c.values[0]).map { $0 > 0 } ?? false
        case .greaterOrEqual: return cmp(c.values[0]).map { $0 >= 0 } ?? false
        case .between: return (cmp(c.values[0]).map { $0 >= 0 } ?? false) && (cmp(c.values[1]).map { $0 <= 0 } ?? false)
        case .oneOf: return c.values.contains { cmp($0) == 0 }
        case .null, .notNull: return false
        }
    }

    /// The rows (file order) the reference keeps for a text filter and conditions.
    static func reference(_ t: CSVTable, filter: String?, _ conditions: [CSVCondition]) -> [Int] {
        let n = t.rowCount!
        return (0..<n).filter { row in
            let raw = t.strings(row: row)
            if let filter, !raw.contains(where: { $0.map { $0.lowercased().contains(filter.lowercased()) } ?? false }) { return false }
            return conditions.allSatisfy { c in holds(c, ref(raw[c.column], t.columns[c.column]), t.columns[c.column]) }
        }
    }

    static func num(_ s: String) -> CSVWhereValue { .number(CSVNumber(s)!) }
    static func day(_ s: String) -> CSVWhereValue { .date(Int64((date(s, dayFirst: false)! * 1000).rounded())) }

    /// Conditions on every column and operator, values written at other scales than the cells.
    static let conditions: [[CSVCondition]] = [
        [CSVCondition(column: 2, op: .equal, values: [num("3.000")])],
        [CSVCondition(column: 2, op: .equal, values: [num("0.1")])],
        [CSVCondition(column: 2, op: .notEqual, values: [num("3")])],
        [CSVCondition(column: 2, op: .less, values: [num("0")])],
        [CSVCondition(column: 2, op: .lessOrEqual, values: [num("-0.50")])],
        [CSVCondition(column: 2, op: .greater, values: [num("1e1")])],
        [CSVCondition(column: 2, op: .between, values: [num("-0.5"), num("3")])],
        [CSVCondition(column: 2, op: .oneOf, values: [num("2.50"), num("7"), num("-0")])],
        [CSVCondition(column: 2, op: .null)],
        [CSVCondition(column: 2, op: .notNull)],
        [CSVCondition(column: 2, op: .less, values: [.number(CSVNumber("Infinity")!)])],
        [CSVCondition(column: 0, op: .between, values: [num("10"), num("20")])],
        [CSVCondition(column: 0, op: .greaterOrEqual, values: [num("95.5")])],
        [CSVCondition(column: 1, op: .equal, values: [.text("Ada")])],
        [CSVCondition(column: 1, op: .equal, values: [.text("")])],
        [CSVCondition(column: 1, op: .notEqual, values: [.text("Ada")])],
        [CSVCondition(column: 1, op: .less, values: [.text("Zoe")])],
        [CSVCondition(column: 1, op: .between, values: [.text("B"), .text("Émile")])],
        [CSVCondition(column: 1, op: .oneOf, values: [.text("Zoë"), .text("明"), .text("zoë")])],
        [CSVCondition(column: 1, op: .null)],
        [CSVCondition(column: 3, op: .equal, values: [day("2024-05-01")])],
        [CSVCondition(column: 3, op: .equal, values: [day("2024-05-01T09:30:00Z")])],
        [CSVCondition(column: 3, op: .greater, values: [day("2024-05-01T00:00:00Z")])],
        [CSVCondition(column: 3, op: .between, values: [day("2024-01-01"), day("2024-12-31")])],
        [CSVCondition(column: 3, op: .null)],
        [CSVCondition(column: 4, op: .equal, values: [.bool(true)])],
        [CSVCondition(column: 4, op: .less, values: [.bool(true)])],
        [CSVCondition(column: 4, op: .notNull)],
        [CSVCondition(column: 2, op: .greaterOrEqual, values: [num("0")]), CSVCondition(column: 1, op: .notEqual, values: [.text("ada")]),
         CSVCondition(column: 3, op: .lessOrEqual, values: [day("2024-05-01T10:00:00Z")])],
    ]

    // MARK: where

    @Test func whereKeepsTheRowsTheReferenceKeepsForEveryOperatorAndType() throws {
        let (t, _f) = try table(Self.generated(rows: 3000, seed: 7))
        _ = _f
        #expect(t.columns.map(\.type) == [.integer, .text, .decimal, .date, .bool])
        for conditions in Self.conditions {
            for filter in [nil, "a"] as [String?] {
                let expected = Self.reference(t, filter: filter, conditions)
                let page = try t.page(offset: 0, limit: 10_000, filter: filter, where: conditions)
                #expect(page.rows == expected, "\(conditions) filter \(filter ?? "-")")
                #expect(page.total == expected.count)
                // Sorted: the same rows, in the order of the whole table's sort restricted to them.
                let sort = [CSVSortKey(column: 2, descending: true), CSVSortKey(column: 1)]
                let all = try t.page(offset: 0, limit: 10_000, sort: sort).rows
                let kept = Set(expected)
                let sorted = try t.page(offset: 0, limit: 10_000, sort: sort, filter: filter, where: conditions)
                #expect(sorted.rows == all.filter { kept.contains($0) }, "sorted \(conditions)")
                // Paging and locate agree with the whole order.
                if sorted.rows.count > 10 {
                    #expect(try t.page(offset: 5, limit: 3, sort: sort, filter: filter, where: conditions).rows == Array(sorted.rows[5..<8]))
                    let row = sorted.rows[7]
                    #expect(try t.position(ofRow: row, sort: sort, filter: filter, where: conditions) == 7)
                }
                if let out = (0..<t.rowCount!).first(where: { !kept.contains($0) }) {
                    #expect(try t.position(ofRow: out, sort: sort, filter: filter, where: conditions) == nil)
                }
            }
        }
    }

    @Test func scaleAndNullsAreExactOnSmallCases() throws {
        let (t, _f) = try table("n,x\n1,3\n2,3.0\n3,3.00\n4,\n5,3.01\n6,0.1\n7,2.99999999999999999999\n")
        _ = _f
        func rows(_ c: CSVCondition) throws -> [Int] { try t.page(offset: 0, limit: 100, where: [c]).rows.map { $0 + 1 } }
        #expect(try rows(CSVCondition(column: 1, op: .equal, values: [Self.num("3")])) == [1, 2, 3])
        #expect(try rows(CSVCondition(column: 1, op: .notEqual, values: [Self.num("3")])) == [5, 6, 7])      // the null row: no
        #expect(try rows(CSVCondition(column: 1, op: .less, values: [Self.num("3")])) == [6, 7])            // exact, not by doubles
        #expect(try rows(CSVCondition(column: 1, op: .oneOf, values: [Self.num("0.1000")])) == [6])
        #expect(try rows(CSVCondition(column: 1, op: .null)) == [4])
    }

    @Test func europeanDecimalCommasAndDayFirstDatesCompareAsNumbersAndInstants() throws {
        let (t, _f) = try table(Self.european)
        _ = _f
        #expect(t.columns.map(\.style) == [.standard, .decimalComma, .dayFirst])
        let cases: [[CSVCondition]] = [
            [CSVCondition(column: 1, op: .equal, values: [Self.num("-0.5")])],
            [CSVCondition(column: 1, op: .equal, values: [Self.num("12")])],
            [CSVCondition(column: 1, op: .greater, values: [Self.num("999.99")])],
            [CSVCondition(column: 2, op: .equal, values: [Self.day("2025-12-31")])],
            [CSVCondition(column: 2, op: .equal, values: [Self.day("2024-06-15T08:30:00Z")])],
            [CSVCondition(column: 2, op: .less, values: [Self.day("2024-02-01T00:00:01Z")])],
            [CSVCondition(column: 2, op: .null)],
        ]
        let expected = [[1, 6], [3, 5], [0, 4], [0, 5], [2, 7], [1, 3, 4], [6]]
        for (c, rows) in zip(cases, expected) {
            #expect(try t.page(offset: 0, limit: 100, where: c).rows == rows, "\(c)")
            #expect(Self.reference(t, filter: nil, c) == rows, "reference \(c)")
        }
    }

    // MARK: aggregate

    /// The reference groups: a dictionary count of each row's group key, a typed value as
    /// `values(row:)` serves it, a date by its instant.
    static func referenceGroups(_ t: CSVTable, columns: [Int], rows: [Int]) -> [[Ref]: Int] {
        var counts: [[Ref]: Int] = [:]
        for row in rows {
            let raw = t.strings(row: row)
            counts[columns.map { c in
                let r = ref(raw[c], t.columns[c])
                // Decimals group as the doubles they are served as (-0 = 0).
                if case .number = r, t.columns[c].type == .decimal, let raw = raw[c] {
                    let d = Double(t.columns[c].style == .decimalComma ? raw.replacingOccurrences(of: ",", with: ".") : raw)!
                    return .text("number \(d == 0 ? 0 : d)")
                }
                return r
            }, default: 0] += 1
        }
        return counts
    }

    /// The engine's groups keyed like the reference.
    static func keyed(_ t: CSVTable, columns: [Int], _ groups: [CSVGroup]) -> [[Ref]: Int] {
        var out: [[Ref]: Int] = [:]
        for g in groups {
            let key = zip(columns, g.values).map { c, v -> Ref in
                switch v {
                case .null: return .null
                case .integer(let i): return .number(Decimal(i))
                case .decimal(let d): return .text("number \(d == 0 ? 0 : d)")
                case .bool(let b): return .bool(b)
                case .text(let s): return t.columns[c].type == .date ? (date(s, dayFirst: false).map { .date($0) } ?? .invalid(s)) : ref(s, t.columns[c])
                }
            }
            #expect(out[key] == nil, "one group per value: \(key)")
            out[key] = g.count
        }
        return out
    }

    @Test func groupCountsMatchADictionaryCountUnderEveryFilter() throws {
        let (t, _f) = try table(Self.generated(rows: 3000, seed: 11))
        _ = _f
        let groupings: [[Int]] = [[1], [2], [3], [4], [0], [1, 2], [4, 3], [2, 4, 1]]
        let filters: [(String?, [CSVCondition])] = [
            (nil, []), ("a", []), (nil, Self.conditions[6]), ("o", Self.conditions.last!), (nil, Self.conditions[8]),
        ]
        for columns in groupings {
            for (filter, conditions) in filters {
                let groups = try t.groups(columns: columns, filter: filter, where: conditions)
                let rows = Self.reference(t, filter: filter, conditions)
                #expect(Self.keyed(t, columns: columns, groups) == Self.referenceGroups(t, columns: columns, rows: rows),
                        "group by \(columns), filter \(filter ?? "-"), where \(conditions)")
                #expect(groups.reduce(0) { $0 + $1.count } == rows.count)
            }
        }
        // 3, 3.0 and 3.00 are one group; 2024-05-01 and 2024-05-01T00:00:00Z too (shown as the shorter).
        let amounts = try t.groups(columns: [2])
        #expect(amounts.filter { $0.values == [.decimal(3)] }.count == 1)
        let days = try t.groups(columns: [3]).map(\.values[0])
        #expect(days.contains(.text("2024-05-01")) && !days.contains(.text("2024-05-01T00:00:00Z")))
        #expect(days.contains(.text("2024-05-01T09:30:00Z")) != days.contains(.text("2024-05-01T11:30:00+02:00")))
    }

    @Test func europeanGroupsAreTypedValues() throws {
        let (t, _f) = try table(Self.european)
        _ = _f
        func counts(_ column: Int) throws -> [String: Int] {
            Dictionary(uniqueKeysWithValues: try t.groups(columns: [column]).map { ("\($0.values[0])", $0.count) })
        }
        let amounts: [(CSVValue, Int)] = [(.decimal(9998.54), 1), (.decimal(-0.5), 2), (.null, 1), (.decimal(12), 2), (.decimal(1000), 1), (.decimal(3), 1)]
        #expect(try counts(1) == Dictionary(uniqueKeysWithValues: amounts.map { ("\($0.0)", $0.1) }))
        let booked: [(CSVValue, Int)] = [(.text("2025-12-31"), 2), (.text("2024-02-01"), 1), (.text("2024-06-15T08:30"), 2), (.text("2024-01-02"), 1),
                                         (.text("2023-02-28"), 1), (.null, 1)]
        #expect(try counts(2) == Dictionary(uniqueKeysWithValues: booked.map { ("\($0.0)", $0.1) }))
    }

    /// Big enough for the scan to be split over the cores (each part has its own texts, merged
    /// after), with progress reports and cancellation.
    @Test func aLargeFileIsCountedInPartsWithProgressAndCanBeCancelled() throws {
        let (t, _f) = try table(Self.generated(rows: 150_000, seed: 3))
        _ = _f
        let reports = Reports()
        let groups = try t.groups(columns: [1, 3], where: [CSVCondition(column: 2, op: .notNull)],
                                  progress: { done, all in reports.add(done, all) })
        let rows = try t.page(offset: 0, limit: 200_000, where: [CSVCondition(column: 2, op: .notNull)]).rows
        #expect(Self.keyed(t, columns: [1, 3], groups) == Self.referenceGroups(t, columns: [1, 3], rows: rows))
        #expect(reports.last.map { $0 == 150_000 && $1 == 150_000 } == true)
        #expect(reports.count >= 2)
        #expect(throws: CancellationError.self) { try t.groups(columns: [0], isCancelled: { true }) }
        #expect(throws: CancellationError.self) { try t.page(offset: 0, limit: 10, where: [CSVCondition(column: 0, op: .null)], isCancelled: { true }) }
        // The where-filtered view of the parallel scan is the reference's.
        let c = [CSVCondition(column: 1, op: .oneOf, values: [.text("Zoë"), .text("")]), CSVCondition(column: 0, op: .less, values: [Self.num("50")])]
        #expect(try t.page(offset: 0, limit: 200_000, filter: "2", where: c).rows == Self.reference(t, filter: "2", c))
    }

    final class Reports: @unchecked Sendable {
        let lock = NSLock()
        var all: [(Int, Int)] = []
        func add(_ a: Int, _ b: Int) { lock.lock(); all.append((a, b)); lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return all.count }
        var last: (Int, Int)? { lock.lock(); defer { lock.unlock() }; return all.last }
    }

    @Test func numbersParseAndCompareExactly() {
        func n(_ s: String) -> CSVNumber { CSVNumber(s)! }
        #expect(CSVNumber.compare(n("3"), n("3.00")) == 0)
        #expect(CSVNumber.compare(n("-0"), n("0.0")) == 0)
        #expect(CSVNumber.compare(n("0.1"), n("1e-1")) == 0)
        #expect(CSVNumber.compare(n("2.99999999999999999999"), n("3")) == -1)
        #expect(CSVNumber.compare(n("-2.99999999999999999999"), n("-3")) == 1)
        #expect(CSVNumber.compare(n("123456789012345678901234567890"), n("123456789012345678901234567891")) == -1)
        #expect(CSVNumber.compare(n("-Infinity"), n("-1e300")) == -1)
        #expect(CSVNumber.compare(n("NaN"), n("Infinity")) == 1)
        #expect(CSVNumber("abc") == nil && CSVNumber("") == nil && CSVNumber("1e") == nil)
    }
}
