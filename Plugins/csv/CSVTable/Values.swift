#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TabdeckProtocol

/// The type of a column, inferred from a sample of its cells.
public enum CSVColumnType: String, Sendable, Equatable {
    case text, integer, decimal, bool, date
}

/// One cell's value as served to the host.
public enum CSVValue: Equatable, Sendable {
    case null
    case text(String)
    case integer(Int64)
    case decimal(Double)
    case bool(Bool)
}

/// Parsers for the typed cells, working on raw bytes. Each returns nil if the bytes are not
/// exactly a value of its type (no surrounding spaces).
enum ValueParser {
    /// An integer: optional sign and digits; no leading zeros (so "007" stays text).
    static func integer(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if i < b.count && (b[i] == 0x2D || b[i] == 0x2B) { negative = b[i] == 0x2D; i += 1 }
        let digits = b.count - i
        guard digits > 0, digits <= 19 else { return nil }
        if digits > 1 && b[i] == 0x30 { return nil }
        var v: UInt64 = 0
        while i < b.count {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            v = v &* 10 &+ UInt64(d)
            i += 1
        }
        if negative { return v <= UInt64(Int64.max) + 1 ? Int64(bitPattern: 0 &- v) : nil }
        return v <= UInt64(Int64.max) ? Int64(v) : nil
    }

    private static let powersOf10: [Double] = (0...22).map { pow(10.0, Double($0)) }

    /// A decimal number: optional sign, digits with an optional fraction, optional exponent.
    /// Integers are decimals too. Leading zeros before more digits are refused ("007.5").
    static func decimal(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let parts = decimalParts(b) else { return nil }
        if parts.exact && parts.mantissa < (1 << 53) && parts.fracDigits <= 22 {
            let v = Double(parts.mantissa) / powersOf10[parts.fracDigits]
            return parts.negative ? -v : v
        }
        return slowDouble(b)
    }

    /// A decimal cell as a whole number of `10^-scale` units, when that is exact.
    enum Scaled: Equatable {
        /// The value times `10^scale`, exact (its magnitude is below 2^53).
        case scaled(Int64)
        /// A decimal with more fraction digits than `scale`, an exponent or too many digits:
        /// only its `Double` (``decimal(_:)``) stands for it.
        case unscaled(Double)
        /// Not a decimal.
        case invalid
    }

    /// `b` as a whole number of `10^-scale` units (`scale` 0...22): the same cells as
    /// ``decimal(_:)`` accepts, and for each the exact value where it fits, which orders
    /// exactly like the `Double` (``scaledAsDouble(_:scale:)`` gives that `Double` back).
    static func decimal(_ b: UnsafeBufferPointer<UInt8>, scale: Int) -> Scaled {
        guard let parts = decimalParts(b) else { return .invalid }
        if parts.exact && parts.fracDigits <= scale && parts.mantissa < (1 << 53) {
            let (m, overflow) = parts.mantissa.multipliedReportingOverflow(by: powersOf10Int[scale - parts.fracDigits])
            if !overflow && m < (1 << 53) { return .scaled(parts.negative ? -Int64(m) : Int64(m)) }
        }
        return decimal(b).map { .unscaled($0) } ?? .invalid
    }

    /// The `Double` of a scaled decimal: exactly what ``decimal(_:)`` gives for its text
    /// (both are the correctly rounded quotient of two exact doubles).
    static func scaledAsDouble(_ v: Int64, scale: Int) -> Double {
        Double(v) / powersOf10[scale]
    }

    private static let powersOf10Int: [UInt64] = (0...19).map { e in (0..<e).reduce(UInt64(1)) { v, _ in v * 10 } }

    /// The pieces of a decimal's text: sign, up to 18 significant digits as one number,
    /// the fraction digits among them, and whether they are the whole value (no exponent,
    /// no digits dropped).
    private struct DecimalParts {
        var negative: Bool
        var mantissa: UInt64
        var fracDigits: Int
        var exact: Bool
    }

    private static func decimalParts(_ b: UnsafeBufferPointer<UInt8>) -> DecimalParts? {
        var i = 0
        var negative = false
        if i < b.count && (b[i] == 0x2D || b[i] == 0x2B) { negative = b[i] == 0x2D; i += 1 }
        var mantissa: UInt64 = 0
        var exact = true
        let intStart = i
        while i < b.count, b[i] &- 0x30 < 10 {
            if mantissa < 100_000_000_000_000_000 { mantissa = mantissa * 10 + UInt64(b[i] &- 0x30) } else { exact = false }
            i += 1
        }
        let intDigits = i - intStart
        if intDigits > 1 && b[intStart] == 0x30 { return nil }
        var fracDigits = 0
        if i < b.count && b[i] == 0x2E {
            i += 1
            let fracStart = i
            while i < b.count, b[i] &- 0x30 < 10 {
                if mantissa < 100_000_000_000_000_000 { mantissa = mantissa * 10 + UInt64(b[i] &- 0x30); fracDigits += 1 } else { exact = false }
                i += 1
            }
            if i == fracStart { return nil }
        }
        if intDigits == 0 && fracDigits == 0 && exact { return nil }
        if i < b.count && (b[i] == 0x65 || b[i] == 0x45) {
            exact = false
            i += 1
            if i < b.count && (b[i] == 0x2D || b[i] == 0x2B) { i += 1 }
            let expStart = i
            while i < b.count, b[i] &- 0x30 < 10 { i += 1 }
            if i == expStart { return nil }
        }
        guard i == b.count else { return nil }
        return DecimalParts(negative: negative, mantissa: mantissa, fracDigits: fracDigits, exact: exact)
    }

    private static func slowDouble(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var text = [CChar](repeating: 0, count: b.count + 1)
        for i in 0..<b.count { text[i] = CChar(bitPattern: b[i]) }
        let v = strtod(text, nil)
        return v.isFinite ? v : nil
    }

    /// `true`/`false` in any letter case.
    static func bool(_ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        if b.count == 4, b[0] | 0x20 == 0x74, b[1] | 0x20 == 0x72, b[2] | 0x20 == 0x75, b[3] | 0x20 == 0x65 { return true }
        if b.count == 5, b[0] | 0x20 == 0x66, b[1] | 0x20 == 0x61, b[2] | 0x20 == 0x6C, b[3] | 0x20 == 0x73, b[4] | 0x20 == 0x65 { return false }
        return nil
    }

    /// An ISO 8601 date or date-time, as milliseconds since 1970-01-01T00:00Z (local times
    /// without an offset count as UTC), read by the host's one parser (``ISODateTime``).
    static func date(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        ISODateTime.parse(b)?.millis
    }
}
