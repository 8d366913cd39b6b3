/// ISO 8601 dates as sort keys: milliseconds since 1970-01-01T00:00:00Z.
///
/// Accepts what the protocol allows (section 10.3): `YYYY-MM-DD`, or a timestamp
/// `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an optional zone (`Z` or `±HH[:MM]`; none = UTC).
/// The same rules as the CSV plugin's date keys, so both sort alike.
public enum DateKey {
    /// The key of `text`, or nil when it is not such a date.
    public static func millis(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { millis(bytes: $0) }
    }

    static func millis(bytes b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count >= 10, b[4] == 0x2D, b[7] == 0x2D,
              let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var ms = daysFromCivil(year: year, month: month, day: day) * 86_400_000
        var i = 10
        if i == b.count { return ms }
        guard b[i] == 0x54 || b[i] == 0x20 || b[i] == 0x74, i + 6 <= b.count, b[i + 3] == 0x3A,
              let hour = digits(b, i + 1, 2), let minute = digits(b, i + 4, 2), hour <= 24, minute <= 59 else { return nil }
        ms += Int64(hour * 3_600_000 + minute * 60_000)
        i += 6
        if i < b.count && b[i] == 0x3A {
            guard let second = digits(b, i + 1, 2), second <= 60 else { return nil }
            ms += Int64(second * 1000)
            i += 3
            if i < b.count && (b[i] == 0x2E || b[i] == 0x2C) {
                i += 1
                let start = i
                var fraction = 0, scale = 100
                while i < b.count, b[i] &- 0x30 < 10 { fraction += Int(b[i] &- 0x30) * scale; scale /= 10; i += 1 }
                if i == start { return nil }
                ms += Int64(fraction)
            }
        }
        if i == b.count { return ms }
        if b[i] == 0x5A || b[i] == 0x7A { return i + 1 == b.count ? ms : nil }
        guard b[i] == 0x2B || b[i] == 0x2D, let oh = digits(b, i + 1, 2), oh <= 23 else { return nil }
        let sign: Int64 = b[i] == 0x2B ? 1 : -1
        var om = 0
        i += 3
        if i < b.count && b[i] == 0x3A { i += 1 }
        if i < b.count { guard let m = digits(b, i, 2), m <= 59 else { return nil }; om = m; i += 2 }
        guard i == b.count else { return nil }
        return ms - sign * Int64(oh * 3_600_000 + om * 60_000)
    }

    private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ n: Int) -> Int? {
        guard at + n <= b.count else { return nil }
        var v = 0
        for k in at..<(at + n) {
            let d = b[k] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
