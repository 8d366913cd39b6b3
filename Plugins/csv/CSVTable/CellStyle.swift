/// How a typed column's cells are written when they are not in the standard form (a point
/// before the fraction; ISO 8601 dates): European and American spreadsheets' exports.
///
/// A styled cell is rewritten into the standard form (``normalize(_:into:)``) before it is
/// parsed, so sorting, values and dates sent to the host all see one form; the file's text is
/// what filters match and what the detail view shows.
public enum CellStyle: String, Equatable, Sendable {
    /// Points and ISO dates.
    case standard
    /// A decimal comma: `9998,54`, `-0,5` (no other separators).
    case decimalComma
    /// Day first: `31.12.2025`, `31/12/2025`, `31-12-2025`, optionally with ` HH:MM[:SS]`.
    case dayFirst
    /// Month first: `12/31/2025`, `12-31-2025`, optionally with ` HH:MM[:SS]`.
    case monthFirst

    /// Writes the standard form of `b` into `out` (cleared first): `9998.54`, `2025-12-31`,
    /// `2025-12-31T08:30:00`. False when `b` is not a cell of this style.
    public func normalize(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        switch self {
        case .standard:
            return false
        case .decimalComma:
            // As a decimal with a point: no leading zeros before more digits (zip codes stay text).
            var comma = false, digits = 0, leadingZero = false
            for (i, c) in b.enumerated() {
                if (c == 0x2D || c == 0x2B) && i == 0 { out.append(c); continue }
                if c == 0x2C && !comma && digits > 0 { comma = true; out.append(0x2E); digits = 0; continue }
                guard c &- 0x30 < 10 else { return false }
                if !comma && digits == 0 { leadingZero = c == 0x30 } else if !comma && leadingZero { return false }
                digits += 1
                out.append(c)
            }
            return digits > 0
        case .dayFirst, .monthFirst:
            guard let parts = Self.dateParts(b) else { return false }
            let (day, month) = self == .dayFirst ? (parts.first, parts.second) : (parts.second, parts.first)
            guard (1...12).contains(month), (1...31).contains(day) else { return false }
            out.append(contentsOf: Self.padded(parts.year, 4))
            out.append(0x2D); out.append(contentsOf: Self.padded(month, 2))
            out.append(0x2D); out.append(contentsOf: Self.padded(day, 2))
            if let time = parts.time {
                out.append(0x54)
                out.append(contentsOf: time)
            }
            return true
        }
    }

    /// `A sep B sep YYYY` with sep one of `.`, `/`, `-` (the same twice), A and B of one or two
    /// digits, then optionally a space and `HH:MM` or `HH:MM:SS` (kept as written).
    static func dateParts(_ b: UnsafeBufferPointer<UInt8>) -> (first: Int, second: Int, year: Int, separator: UInt8, time: ArraySlice<UInt8>?)? {
        var i = 0
        func number(maxDigits: Int) -> Int? {
            var v = 0, n = 0
            while i < b.count, b[i] &- 0x30 < 10, n < maxDigits { v = v * 10 + Int(b[i] &- 0x30); i += 1; n += 1 }
            return n > 0 ? v : nil
        }
        guard let first = number(maxDigits: 2), i < b.count else { return nil }
        let separator = b[i]
        guard separator == 0x2E || separator == 0x2F || separator == 0x2D else { return nil }
        i += 1
        guard let second = number(maxDigits: 2), i < b.count, b[i] == separator else { return nil }
        i += 1
        let yearStart = i
        guard let year = number(maxDigits: 4), i - yearStart == 4 else { return nil }
        if i == b.count { return (first, second, year, separator, nil) }
        // A time: " HH:MM" or " HH:MM:SS".
        guard b[i] == 0x20, b.count - i == 6 || b.count - i == 9 else { return nil }
        let time = Array(b[(i + 1)...])[...]
        let shape: [Bool] = time.map { $0 &- 0x30 < 10 }
        guard shape[0], shape[1], time[time.startIndex + 2] == 0x3A, shape[3], shape[4] else { return nil }
        if time.count == 8 { guard time[time.startIndex + 5] == 0x3A, shape[6], shape[7] else { return nil } }
        return (first, second, year, separator, time)
    }

    private static func padded(_ v: Int, _ width: Int) -> [UInt8] {
        var digits = Array(String(v).utf8)
        while digits.count < width { digits.insert(0x30, at: 0) }
        return digits
    }
}

/// A column type given in the tab's args (`"types": {"amount": "decimal-comma"}`), which
/// replaces the inferred one.
public struct CSVTypeChoice: Equatable, Sendable {
    public var type: CSVColumnType
    public var style: CellStyle

    /// The names the args accept.
    public static let names: [String: CSVTypeChoice] = [
        "text": .init(type: .text, style: .standard),
        "integer": .init(type: .integer, style: .standard),
        "decimal": .init(type: .decimal, style: .standard),
        "decimal-comma": .init(type: .decimal, style: .decimalComma),
        "bool": .init(type: .bool, style: .standard),
        "date": .init(type: .date, style: .standard),
        "date-dmy": .init(type: .date, style: .dayFirst),
        "date-mdy": .init(type: .date, style: .monthFirst),
    ]

    public init(type: CSVColumnType, style: CellStyle) { self.type = type; self.style = style }

    /// The choice called `name`, if it is one of ``names``.
    public init?(_ name: String) {
        guard let choice = Self.names[name] else { return nil }
        self = choice
    }
}
