#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Numbers: integers stay `Int64`; decimals are computed exactly when they can be (at most 19
/// significant digits making at most 2^53, a power of ten up to 22: one correctly rounded
/// multiplication or division), otherwise by `strtod`.
extension JSONScanner {
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw error("invalid number (leading zero)", at: start)
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while index < bytes.count, isDigit(bytes[index]) {
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            if o1 || o2 { overflow = true }
            magnitude = m2
            index += 1
        }
        var isInteger = true
        var mantissa = magnitude          // all significant digits, while they fit
        var exact = !overflow             // `mantissa` and `exponent` describe the number exactly
        var exponent = 0                  // power of ten applied to `mantissa`
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number (digit expected after '.')", at: start) }
            while index < bytes.count, isDigit(bytes[index]) {
                if exact {
                    let (m1, o1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                    if o1 || o2 { exact = false } else { mantissa = m2; exponent -= 1 }
                }
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number (digit expected in exponent)", at: start) }
            var written = 0
            while index < bytes.count, isDigit(bytes[index]) {
                if written < 10_000 { written = written * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        if isInteger && !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) + 1 { return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)) }
            } else if magnitude <= UInt64(Int64.max) {
                return .int(Int64(magnitude))
            }
        }
        if exact, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            let value = Double(mantissa)
            let result = exponent < 0 ? value / Self.powersOfTen[-exponent] : value * Self.powersOfTen[exponent]
            return .double(negative ? -result : result)
        }
        let value = parseDouble(start, index)
        // JSON has no infinity: a number too large for a double would be written back as
        // `null` (found by the `codec` fuzz target), so it is refused where it is read.
        guard value.isFinite else { throw error("number out of range (beyond ±1.8e308)", at: start) }
        return .double(value)
    }

    /// 10^0 ... 10^22, all exact in a Double.
    static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
                                        1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    func parseDouble(_ start: Int, _ end: Int) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: end - start + 1) { text in
            for i in start..<end { text[i - start] = CChar(bitPattern: bytes[i]) }
            text[end - start] = 0
            return strtod(text.baseAddress!, nil)
        }
    }
}
