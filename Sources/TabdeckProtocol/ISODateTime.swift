/// An ISO 8601 date or timestamp as the protocol carries them in `date` cells (PROTOCOL 10.3):
/// `YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an optional zone (`Z` or `±HH[[:]MM]`;
/// none = UTC). Parsed leniently (no seconds, no zone) for sorting, with
/// flags that tell whether the text is in the strict form the protocol asks plugins to send.
/// The one parser of the host: the spool's date sort keys and the conformance checker's date
/// checks both use it.
public struct ISODateTime: Hashable, Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z (fractions beyond milliseconds are dropped).
    public var millis: Int64
    /// `YYYY-MM-DD` alone (midnight UTC).
    public var dateOnly: Bool
    /// A timestamp separated by `T` or a space, with seconds and a zone.
    public var isFullTimestamp: Bool

    /// A date, or a timestamp with `T`, seconds and a zone: what plugins should send.
    public var isStrict: Bool { dateOnly || isFullTimestamp }

    init(millis: Int64, dateOnly: Bool, isFullTimestamp: Bool) {
        self.millis = millis; self.dateOnly = dateOnly; self.isFullTimestamp = isFullTimestamp
    }

    /// Parses `text`; nil when it is not such a date (a month 13, February 30, trailing text).
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    /// Parses UTF-8 bytes (the spool's hot path: no `String` needed).
    public static func parse(_ b: UnsafeBufferPointer<UInt8>) -> ISODateTime? {
        guard b.count >= 10, b[4] == 0x2D, b[7] == 0x2D,
              let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var ms = CivilDate.days(year: year, month: month, day: day) * 86_400_000
        var i = 10
        if i == b.count { return ISODateTime(millis: ms, dateOnly: true, isFullTimestamp: false) }
        // `T`, or a space as PostgreSQL writes timestamps (RFC 3339 allows it); a lowercase `t`
        // is read but not strict.
        let separatorIsStrict = b[i] == 0x54 || b[i] == 0x20
        guard b[i] == 0x54 || b[i] == 0x20 || b[i] == 0x74, i + 6 <= b.count, b[i + 3] == 0x3A,
              let hour = digits(b, i + 1, 2), let minute = digits(b, i + 4, 2), hour <= 24, minute <= 59 else { return nil }
        ms += Int64(hour * 3_600_000 + minute * 60_000)
        i += 6
        var hasSeconds = false
        if i < b.count && b[i] == 0x3A {
            guard let second = digits(b, i + 1, 2), second <= 60 else { return nil }
            ms += Int64(second * 1000)
            hasSeconds = true
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
        let full = separatorIsStrict && hasSeconds
        if i == b.count { return ISODateTime(millis: ms, dateOnly: false, isFullTimestamp: false) }
        if b[i] == 0x5A || b[i] == 0x7A {
            return i + 1 == b.count ? ISODateTime(millis: ms, dateOnly: false, isFullTimestamp: full) : nil
        }
        guard b[i] == 0x2B || b[i] == 0x2D, let oh = digits(b, i + 1, 2), oh <= 23 else { return nil }
        let sign: Int64 = b[i] == 0x2B ? 1 : -1
        let zoneHours = Int64(oh) * 3_600_000
        var om = 0
        i += 3
        if i < b.count && b[i] == 0x3A { i += 1 }
        if i < b.count { guard let m = digits(b, i, 2), m <= 59 else { return nil }; om = m; i += 2 }
        guard i == b.count else { return nil }
        let zone = zoneHours + Int64(om) * 60_000
        return ISODateTime(millis: ms - sign * zone, dateOnly: false, isFullTimestamp: full)
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
}
