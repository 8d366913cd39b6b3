import TabdeckProtocol

/// A column's type, inferred from the sample of a stream that arrived before `open` was
/// answered, and the cells sent for it.
public enum PipeColumnType: String, Equatable, Sendable {
    case integer, decimal, bool, date, text

    /// The narrowest type every non-empty value fits: integer (no leading zeros, so codes such
    /// as `007` stay text), decimal (digits with an optional fraction), bool (`true`/`false`),
    /// date (ISO 8601, the protocol's dates), else text. No values: text.
    public static func infer<S: Sequence>(_ values: S) -> PipeColumnType where S.Element == String? {
        var candidates: Set<PipeColumnType> = [.integer, .decimal, .bool, .date]
        var any = false
        for case let value? in values {
            any = true
            if candidates.contains(.integer) && !isInteger(value) { candidates.remove(.integer) }
            if candidates.contains(.decimal) && !isDecimal(value) { candidates.remove(.decimal) }
            if candidates.contains(.bool) && !isBool(value) { candidates.remove(.bool) }
            if candidates.contains(.date) && ISODateTime(value)?.isStrict != true { candidates.remove(.date) }
            if candidates.isEmpty { return .text }
        }
        guard any else { return .text }
        for type in [PipeColumnType.integer, .decimal, .bool, .date] where candidates.contains(type) { return type }
        return .text
    }

    /// The cell for `value` in a column of this type. Numbers go as their exact text (PROTOCOL
    /// 10.3), or as a JSON integer when one fits; a value that does not fit the column's type is
    /// sent as its text, which the protocol allows (nothing is lost).
    public func cell(_ value: String?) -> JSONValue {
        guard let value else { return .null }
        switch self {
        case .integer:
            if Self.isInteger(value), value.count < 18, let n = Int64(value) { return .int(n) }
            return .string(value)
        case .bool:
            switch value.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return .string(value)
            }
        case .decimal, .date, .text:
            return .string(value)
        }
    }

    static func isInteger(_ s: String) -> Bool {
        var u = Substring(s).utf8[...]
        if u.first == UInt8(ascii: "-") { u = u.dropFirst() }
        guard let first = u.first, u.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return first != 0x30 || u.count == 1
    }

    static func isDecimal(_ s: String) -> Bool {
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard isInteger(String(parts[0])) || parts[0] == "-0" else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    static func isBool(_ s: String) -> Bool {
        let l = s.lowercased()
        return l == "true" || l == "false"
    }
}
