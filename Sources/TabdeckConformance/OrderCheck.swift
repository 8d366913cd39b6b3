import Foundation
import TabdeckProtocol

/// How text cells may be ordered. The checker's rule (see PROTOCOL.md 11.3):
///
/// - `unicode` is the reference: text sorted by Unicode scalar values (the same as UTF-8
///   byte order, and as `memcmp`, Python's `str` comparison and SQLite's BINARY collation).
///   A plugin that sorts this way passes.
/// - The other orders are recognised, so that the failure can say which declaration (PROTOCOL.md
///   10.2: `order`, `nulls`) would describe the plugin's order. Two texts equal under the
///   folding may come in either order, or in the order of the next sort key.
public enum TextOrder: String, CaseIterable, Sendable {
    case unicode = "Unicode scalar order"
    /// Full Unicode lowercase folding ("a" = "A", "é" = "É").
    case caseInsensitive = "case-insensitive order"
    /// ASCII letters only (SQLite's NOCASE collation).
    case asciiCaseInsensitive = "ASCII case-insensitive order (like SQLite NOCASE)"
    /// Lowercased, diacritics removed ("é" = "e"): what most locale collations do first.
    case caseAndAccentInsensitive = "case- and accent-insensitive order"
}

/// The ordering rule a sequence of rows is checked against.
public struct OrderRule: Sendable, Equatable, CustomStringConvertible {
    public var text: TextOrder
    /// Nulls before every value in ascending order (after them in descending order).
    public var nullsFirst: Bool

    public init(text: TextOrder = .unicode, nullsFirst: Bool = true) {
        self.text = text; self.nullsFirst = nullsFirst
    }

    /// The reference rule: Unicode text, nulls first ascending.
    public static let reference = OrderRule()

    public var isReference: Bool { self == .reference }

    public var description: String {
        var parts: [String] = []
        if text != .unicode { parts.append("text in \(text.rawValue)") }
        if !nullsFirst { parts.append("nulls last in ascending order") }
        return parts.isEmpty ? "reference order" : parts.joined(separator: ", ")
    }

    /// Every rule the checker accepts, the reference first.
    static func candidates(hasText: Bool) -> [OrderRule] {
        let texts: [TextOrder] = hasText ? TextOrder.allCases : [.unicode]
        return [true, false].flatMap { nulls in texts.map { OrderRule(text: $0, nullsFirst: nulls) } }
    }
}

/// One key of a sort order, resolved against the table's columns.
public struct SortColumn: Sendable, Equatable {
    public var id: String
    public var index: Int
    public var type: ColumnType
    public var descending: Bool
    /// Where the column says its nulls go: `smallest` (also when the column says nothing) or
    /// `largest`; the plugin is held to it.
    public var nulls: NullOrder
    /// The column's order: `casefold` checks its text with letter case folded, `source` checks
    /// no order at all (only the plugin knows it).
    public var order: ColumnOrder

    public init(id: String, index: Int, type: ColumnType, descending: Bool, nulls: NullOrder = .smallest, order: ColumnOrder = .protocol) {
        self.id = id; self.index = index; self.type = type; self.descending = descending
        self.nulls = nulls; self.order = order
    }

    var label: String { "\(id) \(descending ? "desc" : "asc")" }
}

/// Two neighbouring rows in the wrong order.
public struct OrderViolation: Sendable, Equatable, CustomStringConvertible {
    /// Table positions of the two rows.
    public var first: Int
    public var second: Int
    public var description: String
}

/// What a sequence of rows looks like against a sort order.
public enum OrderVerdict: Sendable, Equatable {
    /// In the reference order.
    case ordered
    /// Not in the reference order, but in an accepted one (a warning).
    case orderedBy(OrderRule, reference: OrderViolation)
    /// In no accepted order; the first violation under the reference rule, and how many pairs break it.
    case unordered(OrderViolation, count: Int)
}

/// Checks that rows come in the order a sort list asks for, comparing cells by column type:
/// integer and decimal numerically and exactly (JSON numbers and number texts alike,
/// ``ExactNumber``); text by Unicode scalars (or an accepted folding, with a warning; in a
/// `casefold` column with letter case folded, ASCII or full); bool false before true; enum by
/// the position of the value in `values`; date chronologically when both parse as ISO 8601
/// (otherwise as text; for dates written the same way this is ISO text order); null before
/// every value ascending, or after every value in a column that says `nulls: largest`. A column
/// in its source's own order (`order: source`), and a cell whose JSON type does not fit its
/// column (reported by the cell checks), constrain nothing. Rows equal in every key may come
/// in any order.
public enum OrderCheck {
    /// Whether `rows` (at table positions `positions`, increasing) are in the order of `keys`.
    public static func verify(_ rows: [Row], positions: [Int]? = nil, keys: [SortColumn]) -> OrderVerdict {
        let positions = positions ?? Array(rows.indices)
        let hasText = keys.contains { $0.type == .text }
        var reference: (OrderViolation, Int)?
        for rule in OrderRule.candidates(hasText: hasText) {
            let violations = self.violations(rows, positions: positions, keys: keys, rule: rule, stopAfterFirst: !rule.isReference)
            if violations.first == nil {
                guard let reference else { return .ordered }
                return .orderedBy(rule, reference: reference.0)
            }
            if rule.isReference { reference = (violations.first!, violations.count) }
        }
        return .unordered(reference!.0, count: reference!.1)
    }

    /// The pairs of neighbouring rows out of order under `rule` (the first only, if asked).
    static func violations(_ rows: [Row], positions: [Int], keys: [SortColumn], rule: OrderRule, stopAfterFirst: Bool) -> [OrderViolation] {
        var found: [OrderViolation] = []
        guard rows.count > 1 else { return found }
        for i in 1..<rows.count {
            // Each section is sorted on its own (PROTOCOL.md 10.6): no order across a section boundary.
            if let a = rows[i - 1].section, let b = rows[i].section, a != b { continue }
            if let key = brokenKey(rows[i - 1], rows[i], keys: keys, rule: rule) {
                found.append(describe(rows[i - 1], rows[i], at: (positions[i - 1], positions[i]), key: key))
                if stopAfterFirst { break }
            }
        }
        return found
    }

    /// nil when `a` may come before `b`; else the key that says it may not.
    static func brokenKey(_ a: Row, _ b: Row, keys: [SortColumn], rule: OrderRule) -> SortColumn? {
        for key in keys {
            let x = key.index < a.cells.count ? a.cells[key.index] : .null
            let y = key.index < b.cells.count ? b.cells[key.index] : .null
            var c = compare(x, y, key: key, rule: rule)
            if key.descending { c = c.reversed }
            switch c {
            case .less, .tiedLess, .unknown: return nil
            case .greater: return key
            case .equal, .tiedGreater: continue
            }
        }
        return nil
    }

    static func describe(_ a: Row, _ b: Row, at positions: (Int, Int), key: SortColumn) -> OrderViolation {
        func cell(_ r: Row) -> String {
            key.index < r.cells.count ? JSONWriter.string(r.cells[key.index]) : "null"
        }
        var text = "rows \(positions.0) and \(positions.1) are out of order for \(key.label): "
            + "\(clip(cell(a))) (id \(a.id)) comes before \(clip(cell(b))) (id \(b.id))"
        if key.nulls == .largest, cell(a) == "null" || cell(b) == "null" { text += " (the column says \"nulls\": \"largest\")" }
        if key.order == .casefold { text += " (the column says \"order\": \"casefold\")" }
        return OrderViolation(first: positions.0, second: positions.1, description: text)
    }

    // MARK: Cells

    /// The result of comparing two cells.
    enum Comparison: Equatable {
        case less, equal, greater
        /// Equal under the rule but not the same text; the exact text order is given.
        case tiedLess, tiedGreater
        /// At least one cell does not fit the column type: no constraint.
        case unknown

        var reversed: Comparison {
            switch self {
            case .less: .greater
            case .greater: .less
            case .tiedLess: .tiedGreater
            case .tiedGreater: .tiedLess
            case .equal, .unknown: self
            }
        }
    }

    /// Two cells of the column of `key` (its direction aside) under `rule`: the column's own
    /// `nulls` and `order` override the rule's.
    static func compare(_ a: JSONValue, _ b: JSONValue, key: SortColumn, rule: OrderRule) -> Comparison {
        if key.order == .source { return .unknown }
        var rule = rule
        if key.nulls == .largest { rule.nullsFirst = false }
        if key.order == .casefold, key.type == .text {
            guard case .string(let x) = a, case .string(let y) = b else { return compare(a, b, type: key.type, rule: rule) }
            return compareCasefold(x, y, rule.text)
        }
        return compare(a, b, type: key.type, rule: rule)
    }

    static func compare(_ a: JSONValue, _ b: JSONValue, type: ColumnType, rule: OrderRule) -> Comparison {
        switch (a, b) {
        case (.null, .null): return .equal
        case (.null, _): return rule.nullsFirst ? .less : .greater
        case (_, .null): return rule.nullsFirst ? .greater : .less
        default: break
        }
        guard CellType.matches(a, type), CellType.matches(b, type) else { return .unknown }
        switch type {
        case .integer, .decimal:
            if case .int(let x) = a, case .int(let y) = b { return order(x, y) }
            let c = ExactNumber.compare(ExactNumber(cell: a, type: type)!, ExactNumber(cell: b, type: type)!)
            return c < 0 ? .less : (c > 0 ? .greater : .equal)
        case .bool:
            return order(a.boolValue! ? 1 : 0, b.boolValue! ? 1 : 0)
        case .enumeration(let values):
            return order(values.firstIndex(of: a.stringValue!)!, values.firstIndex(of: b.stringValue!)!)
        case .date:
            let (x, y) = (a.stringValue!, b.stringValue!)
            if let tx = ISODateTime(x)?.millis, let ty = ISODateTime(y)?.millis {
                let c = order(tx, ty)
                guard c == .equal else { return c }
                let exact = unicodeOrder(x, y)
                return exact == .equal ? .equal : (exact == .less ? .tiedLess : .tiedGreater)
            }
            return unicodeOrder(x, y)
        case .text:
            return compareText(a.stringValue!, b.stringValue!, rule.text)
        }
    }

    static func compareText(_ x: String, _ y: String, _ order: TextOrder) -> Comparison {
        let exact = unicodeOrder(x, y)
        if order == .unicode || exact == .equal { return exact }
        let folded = unicodeOrder(fold(x, order), fold(y, order))
        if folded != .equal { return folded }
        return exact == .less ? .tiedLess : .tiedGreater
    }

    /// A `casefold` column's texts: with ASCII letters folded (the protocol's floor, SQLite's
    /// `NOCASE`), or failing that with full Unicode case folding (the protocol says "ASCII at
    /// least"); texts equal when folded may come in either order. Under a rule that folds more
    /// (accents), that rule's folding.
    static func compareCasefold(_ x: String, _ y: String, _ order: TextOrder) -> Comparison {
        if order == .caseAndAccentInsensitive { return compareText(x, y, order) }
        let ascii = compareText(x, y, .asciiCaseInsensitive)
        guard ascii == .greater else { return ascii }
        let full = compareText(x, y, .caseInsensitive)
        return full == .greater ? .greater : full
    }

    /// Unicode scalar order, which is UTF-8 byte order.
    static func unicodeOrder(_ x: String, _ y: String) -> Comparison {
        if x.utf8.elementsEqual(y.utf8) { return .equal }
        return x.utf8.lexicographicallyPrecedes(y.utf8) ? .less : .greater
    }

    static func fold(_ s: String, _ order: TextOrder) -> String {
        switch order {
        case .unicode: return s
        case .caseInsensitive: return s.lowercased()
        case .asciiCaseInsensitive:
            return String(decoding: s.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        case .caseAndAccentInsensitive:
            var scalars = String.UnicodeScalarView()
            for scalar in s.decomposedStringWithCanonicalMapping.unicodeScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                scalars.append(scalar)
            }
            return String(scalars).lowercased()
        }
    }

    static func order<T: Comparable>(_ x: T, _ y: T) -> Comparison {
        x < y ? .less : (x == y ? .equal : .greater)
    }

    static func clip(_ s: String, _ limit: Int = 40) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }
}
