/// The operator of one condition of a structured filter (PROTOCOL.md 11.11).
public enum WhereOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between
    case `in`
    case null
    case notNull

    /// How many values the operator takes: nil for "one or more" (`in`).
    public var arity: Int? {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: 1
        case .between: 2
        case .in: nil
        case .null, .notNull: 0
        }
    }
}

/// One condition of a structured filter: a column, an operator and its values (cells of the
/// column's type, PROTOCOL.md 10.3). The wire form carries one value as `value`, several as
/// `values`.
public struct WhereCondition: Hashable, Sendable {
    public var column: String
    public var op: WhereOperator
    public var values: [JSONValue]

    public init(_ column: String, _ op: WhereOperator, _ values: [JSONValue] = []) {
        self.column = column; self.op = op; self.values = values
    }

    /// Reads the wire form; checks the operator and the number of values (not their types:
    /// ``WhereClause/check(_:columns:path:)`` does that against the table's columns).
    public init(reader r: JSONReader) throws(JSONFieldError) {
        column = try r.string("column")
        let raw = try r.string("op")
        guard let op = WhereOperator(rawValue: raw) else {
            let known = WhereOperator.allCases.map(\.rawValue).joined(separator: ", ")
            throw JSONFieldError(path: r.pathOf("op"), reason: "unknown operator \"\(raw)\" (known: \(known))")
        }
        self.op = op
        switch op.arity {
        case 0: values = []
        case 1:
            guard let v = r.value("value") else { throw JSONFieldError(path: r.pathOf("value"), reason: "required for \"\(raw)\"") }
            values = [v]
        default:
            guard let vs = try r.optionalArray("values") else {
                throw JSONFieldError(path: r.pathOf("values"), reason: "required for \"\(raw)\"")
            }
            if op == .between, vs.count != 2 {
                throw JSONFieldError(path: r.pathOf("values"), reason: "\"between\" takes 2 values, got \(vs.count)")
            }
            if op == .in, vs.isEmpty { throw JSONFieldError(path: r.pathOf("values"), reason: "\"in\" takes at least 1 value") }
            values = vs
        }
    }

    public var json: JSONValue {
        var o: JSONObject = ["column": .string(column), "op": .string(op.rawValue)]
        switch op.arity {
        case 0: break
        case 1: o["value"] = values.first ?? .null
        default: o["values"] = .array(values)
        }
        return .object(o)
    }
}

/// A structured filter: conditions that must all hold (PROTOCOL.md 11.11). Empty: every row.
public typealias WhereClause = [WhereCondition]

/// Reading, checking and evaluating structured filters.
public enum Where {
    /// Reads the `where` member of request params (absent or null: no condition).
    public static func read(_ r: JSONReader) throws(JSONFieldError) -> WhereClause {
        var clause: WhereClause = []
        for c in try r.optionalObjects("where") { clause.append(try WhereCondition(reader: c)) }
        return clause
    }

    /// The wire form of a clause.
    public static func json(_ clause: WhereClause) -> JSONValue { .array(clause.map(\.json)) }

    /// Checks every condition against the table's columns: a known column, values of its
    /// type (an enum value among its `values`), no null value. The error names the member
    /// (`where[1].value`), as the protocol's `-32602` answers do.
    public static func check(_ clause: WhereClause, columns: [ColumnSpec], path: String = "params.where") throws(JSONFieldError) {
        for (i, c) in clause.enumerated() {
            let at = "\(path)[\(i)]"
            guard let column = columns.first(where: { $0.id == c.column }) else {
                throw JSONFieldError(path: at + ".column", reason: "no column \"\(c.column)\"")
            }
            for (j, v) in c.values.enumerated() {
                let place = c.op.arity == 1 ? at + ".value" : at + ".values[\(j)]"
                if let problem = problem(v, column.type) { throw JSONFieldError(path: place, reason: problem) }
            }
        }
    }

    /// Why `value` cannot be compared with cells of `type`, or nil.
    public static func problem(_ value: JSONValue, _ type: ColumnType) -> String? {
        let shown = JSONWriter.string(value, terminalSafe: true)
        switch (value, type) {
        case (.null, _): return "null is not a value (use the operator \"null\")"
        case (.int, .integer), (.int, .decimal), (.double, .decimal), (.bool, .bool): return nil
        case (.string(let s), .integer), (.string(let s), .decimal):
            return ExactNumber(s, type: type) == nil ? "\(shown) is not \(type == .integer ? "an integer" : "a number")" : nil
        case (.string, .text): return nil
        case (.string(let s), .date): return ISODateTime(s) == nil ? "\(shown) is not a date (YYYY-MM-DD or an ISO 8601 timestamp)" : nil
        case (.string(let s), .enumeration(let values)):
            return values.contains(s) ? nil : "\(shown) is not one of the column's values (\(values.joined(separator: ", ")))"
        default: return "\(shown) is not \(article(type))"
        }
    }

    static func article(_ type: ColumnType) -> String {
        switch type {
        case .integer: "an integer"
        case .decimal: "a number"
        case .bool: "true or false"
        case .date: "a date"
        case .text: "a text"
        case .enumeration: "one of the column's values"
        }
    }

    /// Whether a row's cells meet every condition (`columns` gives each cell's column, in
    /// order). The reference rule, used by the host's spool and the checker: a condition on a
    /// null cell holds only for `null`; the others compare by ``compare(_:_:type:)``.
    public static func matches(_ cells: [JSONValue], columns: [ColumnSpec], _ clause: WhereClause) -> Bool {
        for c in clause {
            guard let i = columns.firstIndex(where: { $0.id == c.column }) else { return false }
            let cell = i < cells.count ? cells[i] : .null
            if !holds(c, cell, type: columns[i].type, order: columns[i].order) { return false }
        }
        return true
    }

    /// Whether one condition holds for one cell.
    /// Text `=`, `!=` and `in` are exact; ordered comparisons follow the column's `order`.
    public static func holds(_ c: WhereCondition, _ cell: JSONValue, type: ColumnType, order: ColumnOrder = .protocol) -> Bool {
        if c.op == .null { return cell == .null }
        if cell == .null { return false }
        if c.op == .notNull { return true }
        let exact = [.equal, .notEqual, .in].contains(c.op)
        func cmp(_ v: JSONValue) -> Int? { compare(cell, v, type: type, order: exact ? .protocol : order) }
        switch c.op {
        case .equal: return cmp(c.values[0]) == 0
        case .notEqual: return cmp(c.values[0]).map { $0 != 0 } ?? false
        case .less: return cmp(c.values[0]).map { $0 < 0 } ?? false
        case .lessOrEqual: return cmp(c.values[0]).map { $0 <= 0 } ?? false
        case .greater: return cmp(c.values[0]).map { $0 > 0 } ?? false
        case .greaterOrEqual: return cmp(c.values[0]).map { $0 >= 0 } ?? false
        case .between:
            guard let low = cmp(c.values[0]), let high = cmp(c.values[1]) else { return false }
            return low >= 0 && high <= 0
        case .in: return c.values.contains { cmp($0) == 0 }
        case .null, .notNull: return false  // handled above
        }
    }

    /// Two non-null cells of a column of `type` by the protocol's sort order (11.3): numbers
    /// exactly (a JSON double as the decimal it is written as, `1.3`, not its binary expansion:
    /// a REAL column's 1.3 equals `"1.30"`), dates by instant (a date alone is its midnight
    /// UTC), enum values by position, `false` < `true`, text by Unicode scalars (ASCII letters
    /// folded in a `casefold` column). Nil when either does not fit the type.
    public static func compare(_ a: JSONValue, _ b: JSONValue, type: ColumnType, order: ColumnOrder = .protocol) -> Int? {
        switch type {
        case .integer, .decimal:
            if case .int(let x) = a, case .int(let y) = b { return x < y ? -1 : (x == y ? 0 : 1) }
            guard let x = number(a, type), let y = number(b, type) else { return nil }
            return ExactNumber.compare(x, y)
        case .bool:
            guard case .bool(let x) = a, case .bool(let y) = b else { return nil }
            return x == y ? 0 : (x ? 1 : -1)
        case .enumeration(let values):
            guard case .string(let x) = a, case .string(let y) = b,
                  let i = values.firstIndex(of: x), let j = values.firstIndex(of: y) else { return nil }
            return i < j ? -1 : (i == j ? 0 : 1)
        case .date:
            guard case .string(let x) = a, case .string(let y) = b,
                  let tx = ISODateTime(x)?.millis, let ty = ISODateTime(y)?.millis else { return nil }
            return tx < ty ? -1 : (tx == ty ? 0 : 1)
        case .text:
            guard case .string(let x) = a, case .string(let y) = b else { return nil }
            if order == .casefold {
                let fx = x.utf8.map(fold), fy = y.utf8.map(fold)
                if fx != fy { return fx.lexicographicallyPrecedes(fy) ? -1 : 1 }
            }
            if x.utf8.elementsEqual(y.utf8) { return 0 }
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        }
    }

    static func fold(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b | 0x20 : b }

    /// A number cell as an exact number; a JSON double by its shortest text (the one rule by
    /// which conditions, groups and their drill-downs see a double).
    public static func number(_ cell: JSONValue, _ type: ColumnType) -> ExactNumber? {
        if case .double(let d) = cell, d.isFinite {
            let text = d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
            if let n = ExactNumber(text, type: .decimal) { return n }
        }
        return ExactNumber(cell: cell, type: type)
    }
}

/// Kept (in the state file) as its wire form's JSON text.
extension WhereCondition: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try WhereCondition(reader: try JSONReader(try JSONParser.parse(text), path: "where"))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(JSONWriter.string(json))
    }
}
