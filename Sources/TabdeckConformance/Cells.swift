import TabdeckProtocol

/// Whether a cell's JSON value fits its column's type (docs/PROTOCOL.md, section 10.3).
enum CellType {
    /// The JSON kind fits: integers for `integer`, numbers for `decimal`, booleans for `bool`,
    /// strings for `text` and `date`, a declared value for `enum`. `null` fits every column.
    static func matches(_ value: JSONValue, _ type: ColumnType) -> Bool {
        switch (value, type) {
        case (.null, _): return true
        case (.int, .integer), (.int, .decimal), (.double, .decimal): return true
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
        if case .date = type, case .string(let s) = value, !ISODate.isValid(s) {
            return "\(shown(value)) is not an ISO 8601 date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS with a zone)"
        }
        return nil
    }

    static func expected(_ type: ColumnType) -> String {
        switch type {
        case .text: "a string"
        case .integer: "an integer"
        case .decimal: "a number"
        case .bool: "a boolean"
        case .date: "an ISO 8601 string"
        case .enumeration: "one of the enum's values"
        }
    }

    static func shown(_ value: JSONValue) -> String { OrderCheck.clip(JSONWriter.string(value), 30) }
}

/// ISO 8601 dates and timestamps as the protocol writes them: `2024-05-01`,
/// `2024-05-01T09:30:00Z`, `2024-05-01T09:30:00.250+02:00`.
enum ISODate {
    /// Seconds since 1970-01-01T00:00:00Z (a date alone is midnight UTC; a timestamp without a
    /// zone is read as UTC), or nil if the text is not of that form.
    static func seconds(_ text: String) -> Double? { parse(text)?.seconds }

    /// A date, or a timestamp with seconds and a zone.
    static func isValid(_ text: String) -> Bool {
        guard let parsed = parse(text) else { return false }
        return parsed.dateOnly || parsed.hasZone
    }

    static func parse(_ text: String) -> (seconds: Double, dateOnly: Bool, hasZone: Bool)? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= b.count else { return nil }
            var n = 0
            for k in i..<(i + digits) {
                guard (0x30...0x39).contains(b[k]) else { return nil }
                n = n * 10 + Int(b[k] - 0x30)
            }
            i += digits
            return n
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = Double(daysFromCivil(year, month, day))
        if i == b.count { return (days * 86400, true, false) }
        guard expect("T"), let hour = number(2), expect(":"), let minute = number(2),
              expect(":"), let second = number(2), hour < 24, minute < 60, second <= 60 else { return nil }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            if i == start { return nil }
        }
        var offset = 0
        var hasZone = false
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let zh = number(2) else { return nil }
                _ = expect(":")
                guard let zm = number(2) else { return nil }
                offset = sign * (zh * 3600 + zm * 60)
            } else {
                return nil
            }
            hasZone = true
        }
        guard i == b.count else { return nil }
        let seconds = days * 86400 + Double(hour * 3600 + minute * 60 + second - offset) + fraction
        return (seconds, false, hasZone)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
