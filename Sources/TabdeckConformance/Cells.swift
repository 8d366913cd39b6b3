import TabdeckProtocol

/// Whether a cell's JSON value fits its column's type (docs/PROTOCOL.md, section 10.3).
enum CellType {
    /// The JSON kind fits: integers for `integer`, numbers for `decimal` (either also as an
    /// exact number's text), booleans for `bool`,
    /// strings for `text` and `date`, a declared value for `enum`. `null` fits every column.
    static func matches(_ value: JSONValue, _ type: ColumnType) -> Bool {
        switch (value, type) {
        case (.null, _): return true
        case (.int, .integer), (.int, .decimal), (.double, .decimal): return true
        // An exact number as text (PROTOCOL.md 10.3): digits in an integer column, the decimal
        // grammar with NaN and the infinities in a decimal one.
        case (.string(let s), .integer), (.string(let s), .decimal): return ExactNumber(s, type: type) != nil
        case (.bool, .bool): return true
        case (.string, .text), (.string, .date): return true
        case (.string(let s), .enumeration(let values)): return values.contains(s)
        default: return false
        }
    }

    /// Why a cell does not fit its column, or nil when it does. Dates must also be ISO 8601.
    static func problem(_ value: JSONValue, _ type: ColumnType) -> String? {
        if case .array = value { return "\(value.typeDescription): a cell must be a string, number, boolean or null" }
        if case .object = value { return "\(value.typeDescription): a cell must be a string, number, boolean or null" }
        if !matches(value, type) {
            if case .enumeration = type, case .string = value { return "\(shown(value)) is not one of the enum's values" }
            return "\(shown(value)) is \(value.typeDescription), expected \(expected(type))"
        }
        if case .date = type, case .string(let s) = value, ISODateTime(s)?.isStrict != true {
            return "\(shown(value)) is not an ISO 8601 date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS with a zone)"
        }
        return nil
    }

    static func expected(_ type: ColumnType) -> String {
        switch type {
        case .text: "a string"
        case .integer: "an integer (or its digits as a string)"
        case .decimal: "a number (or its exact decimal text as a string)"
        case .bool: "a boolean"
        case .date: "an ISO 8601 string"
        case .enumeration: "one of the enum's values"
        }
    }

    static func shown(_ value: JSONValue) -> String { OrderCheck.clip(JSONWriter.string(value), 30) }
}
