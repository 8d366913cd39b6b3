/// Proleptic Gregorian dates as day counts since 1970-01-01, and instants as ISO 8601 texts in
/// UTC: the one implementation (Howard Hinnant's algorithms) behind ``ISODateTime``, date bins,
/// the summaries' date texts and the plugins that write dates.
public enum CivilDate {
    /// Days since 1970-01-01 of `year`-`month`-`day`.
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The year, month and day of a day count since 1970-01-01.
    public static func date(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }

    /// The day an instant falls on, and the milliseconds into it (0 ..< 86,400,000).
    public static func split(millis: Int64) -> (days: Int64, millisOfDay: Int64) {
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        return (days, millis - days * 86_400_000)
    }

    /// An instant as ISO 8601: `YYYY-MM-DD` when `dateOnly` and it is midnight, else
    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.mmm` before the `Z` when there are milliseconds.
    public static func isoText(millis: Int64, dateOnly: Bool) -> String {
        let (days, rest) = split(millis: millis)
        let (y, m, d) = date(days: days)
        let day = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
        if dateOnly, rest == 0 { return day }
        let secs = Int(rest / 1000), frac = Int(rest % 1000)
        let time = "\(day)T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))"
        return frac == 0 ? time + "Z" : time + ".\(pad(frac, 3))Z"
    }

    /// `v` with at least `width` digits (a sign before them).
    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(abs(v))
        return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
