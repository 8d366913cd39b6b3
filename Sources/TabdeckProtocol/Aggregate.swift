#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One group column of an `aggregate` request: its values, or bins when it has more than
/// `bins` distinct values (PROTOCOL.md 11.12).
public struct AggregateGroup: Hashable, Sendable {
    public var column: String
    public var bins: Int?

    public init(_ column: String, bins: Int? = nil) { self.column = column; self.bins = bins }

    public init(reader r: JSONReader) throws(JSONFieldError) {
        column = try r.string("column")
        bins = try r.optionalInt("bins")
        if let bins, bins < 1 { throw JSONFieldError(path: r.pathOf("bins"), reason: "must be ≥ 1, got \(bins)") }
    }

    public var json: JSONValue {
        var o: JSONObject = ["column": .string(column)]
        if let bins { o["bins"] = .int(Int64(bins)) }
        return .object(o)
    }
}

/// The `aggregate` request (capability `aggregate`, PROTOCOL.md 11.12): group counts of a
/// table under its filters, answered as a new table.
public struct AggregateRequest: Hashable, Sendable {
    public var table: String
    public var filter: String?
    public var `where`: WhereClause
    public var group: [AggregateGroup]

    public init(table: String, filter: String? = nil, where clause: WhereClause = [], group: [AggregateGroup]) {
        self.table = table; self.filter = filter; self.where = clause; self.group = group
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var group: [AggregateGroup] = []
        for g in try r.objects("group") { group.append(try AggregateGroup(reader: g)) }
        guard !group.isEmpty else { throw JSONFieldError(path: r.pathOf("group"), reason: "at least one column") }
        self.init(table: try r.string("table"), filter: try r.optionalString("filter"), where: try Where.read(r), group: group)
    }

    public var json: JSONValue {
        var o: JSONObject = ["table": .string(table), "filter": filter.map { .string($0) } ?? .null,
                             "group": .array(group.map(\.json))]
        if !`where`.isEmpty { o["where"] = Where.json(`where`) }
        return .object(o)
    }
}

/// How a binned column was cut: a width (numbers) or a calendar unit (dates).
public enum BinSize: Hashable, Sendable {
    /// The width as a decimal text (`"2.5"`, `"50"`).
    case width(String)
    case unit(DateBinUnit)

    public init(reader r: JSONReader) throws(JSONFieldError) {
        if let unit = try r.optionalString("unit") {
            guard let u = DateBinUnit(rawValue: unit) else {
                throw JSONFieldError(path: r.pathOf("unit"), reason: "expected hour, day, month or year, got \"\(unit)\"")
            }
            self = .unit(u)
            return
        }
        switch r.value("width") {
        case .string(let s)? where ExactNumber(s, type: .decimal) != nil: self = .width(s)
        case .int(let i)?: self = .width(String(i))
        case .double(let d)?: self = .width(Bins.text(d))
        default: throw JSONFieldError(path: r.pathOf("width"), reason: "a bin needs a width (a number) or a unit")
        }
    }

    public var json: JSONValue {
        switch self {
        case .width(let w): ["width": .string(w)]
        case .unit(let u): ["unit": .string(u.rawValue)]
        }
    }
}

/// The calendar units of date bins, finest first.
public enum DateBinUnit: String, Hashable, Sendable, CaseIterable {
    case hour, day, month, year
}

/// The answer to `aggregate`: the description of the new table of groups, with the rows
/// counted, the largest count and how binned columns were cut.
public struct AggregateResult: Hashable, Sendable {
    public var description: TableDescription
    /// The source rows counted (those the filters keep).
    public var rows: Int
    /// The largest group count.
    public var largest: Int
    /// Binned column ids and their bin size.
    public var bins: [String: BinSize]

    public init(description: TableDescription, rows: Int, largest: Int, bins: [String: BinSize] = [:]) {
        self.description = description; self.rows = rows; self.largest = largest; self.bins = bins
    }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        var bins: [String: BinSize] = [:]
        if let b = try r.optionalObject("bins") {
            for key in b.object.keys.sorted() {
                guard let inner = try b.optionalObject(key) else { continue }
                bins[key] = try BinSize(reader: inner)
            }
        }
        let rows = try r.int("rows"), largest = try r.int("largest")
        guard rows >= 0 else { throw JSONFieldError(path: r.pathOf("rows"), reason: "must be ≥ 0, got \(rows)") }
        guard largest >= 0 else { throw JSONFieldError(path: r.pathOf("largest"), reason: "must be ≥ 0, got \(largest)") }
        self.init(description: try TableDescription(value, path: path), rows: rows, largest: largest, bins: bins)
    }

    public var json: JSONValue {
        guard case .object(var o) = description.json else { return description.json }
        o["rows"] = .int(Int64(rows))
        o["largest"] = .int(Int64(largest))
        if !bins.isEmpty {
            var b: JSONObject = [:]
            for key in bins.keys.sorted() { b[key] = bins[key]!.json }
            o["bins"] = .object(b)
        }
        return .object(o)
    }

    /// The columns an aggregate table has after its group columns.
    public static let countColumns: [ColumnSpec] = [
        ColumnSpec(id: "count", title: "Count", type: .integer),
        ColumnSpec(id: "percent", title: "%", type: .decimal),
        ColumnSpec(id: "cumulative", title: "Cumulative %", type: .decimal),
    ]
}

/// The protocol's one rule for bins (PROTOCOL.md 11.12), so that every engine, the host's spool
/// and the checker cut alike.
public enum Bins {
    /// The width of number bins for values from `min` to `max` in about `count` bins: the
    /// smallest of 1, 2, 2.5 and 5 times a power of ten that is at least (max − min) / count;
    /// on an integer column at least 1 and whole.
    public static func width(min: Double, max: Double, count: Int, integer: Bool) -> Double {
        let raw = (max - min) / Double(Swift.max(count, 1))
        if raw <= 0 || !raw.isFinite { return 1 }
        var exponent = Int(floor(log10(raw))) - 1
        while true {
            let scale = pow(10, Double(exponent))
            for m in [1.0, 2.0, 2.5, 5.0] {
                let w = m * scale
                if integer && (w < 1 || w != w.rounded()) { continue }
                // A relative tolerance: 0.1 × 3 is not 0.3 in binary.
                if w >= raw * (1 - 1e-12) { return w }
            }
            exponent += 1
        }
    }

    /// A width or a bin start as short decimal text (`2.5`, `50`, `0.001`).
    public static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        // Twelve decimals at most, without trailing zeros.
        let scaled = (abs(value) * 1e12).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let digits = String(Int64(scaled))
        let padded = String(repeating: "0", count: max(0, 13 - digits.count)) + digits
        var fraction = String(padded.suffix(12))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let whole = String(padded.dropLast(12))
        return (value < 0 ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// The start of the bin holding `value`.
    /// Computed in doubles, with a quotient that is a whole number but for binary rounding
    /// (0.3 / 0.1 = 2.9999999999999996) taken as that number, so that it agrees with an engine
    /// that computes in exact decimals.
    public static func start(_ value: Double, width: Double) -> Double {
        var q = value / width
        let nearest = q.rounded()
        if abs(q - nearest) <= 1e-9 * Swift.max(1, abs(q)) { q = nearest }
        return floor(q) * width
    }

    /// The unit of date bins from `min` to `max` (milliseconds since 1970): the finest of hour,
    /// day, month, year that gives at most `count` bins.
    public static func unit(minMillis: Int64, maxMillis: Int64, count: Int) -> DateBinUnit {
        for unit in DateBinUnit.allCases where binCount(minMillis, maxMillis, unit) <= count { return unit }
        return .year
    }

    static func binCount(_ a: Int64, _ b: Int64, _ unit: DateBinUnit) -> Int {
        let x = startMillis(a, unit), y = startMillis(b, unit)
        switch unit {
        case .hour: return Int((y - x) / 3_600_000) + 1
        case .day: return Int((y - x) / 86_400_000) + 1
        case .month, .year:
            let (ya, ma) = yearMonth(x), (yb, mb) = yearMonth(y)
            return unit == .year ? yb - ya + 1 : (yb - ya) * 12 + (mb - ma) + 1
        }
    }

    /// The start of the bin of `millis` (since 1970, UTC) in `unit`.
    public static func startMillis(_ millis: Int64, _ unit: DateBinUnit) -> Int64 {
        func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
        switch unit {
        case .hour: return floorDiv(millis, 3_600_000) * 3_600_000
        case .day: return floorDiv(millis, 86_400_000) * 86_400_000
        case .month, .year:
            let (y, m) = yearMonth(millis)
            return CivilDate.days(year: y, month: unit == .year ? 1 : m, day: 1) * 86_400_000
        }
    }

    /// The start of the bin after the one that starts at `millis`.
    public static func next(_ millis: Int64, _ unit: DateBinUnit) -> Int64 {
        switch unit {
        case .hour: return millis + 3_600_000
        case .day: return millis + 86_400_000
        case .month, .year:
            let (y, m) = yearMonth(millis)
            if unit == .year { return CivilDate.days(year: y + 1, month: 1, day: 1) * 86_400_000 }
            return CivilDate.days(year: m == 12 ? y + 1 : y, month: m == 12 ? 1 : m + 1, day: 1) * 86_400_000
        }
    }

    /// The ISO text of a bin start: a date for day, month and year bins of a date-only column,
    /// else a UTC timestamp.
    public static func text(_ millis: Int64, _ unit: DateBinUnit, dateOnly: Bool) -> String {
        let days = Int64((Double(millis) / 86_400_000).rounded(.down))
        let (y, m, d) = CivilDate.date(days: days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(repeating: "0", count: max(0, 4 - String(y).count)) + String(y)
        let date = "\(year)-\(two(m))-\(two(d))"
        if dateOnly && unit != .hour { return date }
        let hour = Int((millis - days * 86_400_000) / 3_600_000)
        return date + "T\(two(hour)):00:00Z"
    }

    static func yearMonth(_ millis: Int64) -> (Int, Int) {
        let (y, m, _) = CivilDate.date(days: Int64((Double(millis) / 86_400_000).rounded(.down)))
        return (y, m)
    }
}
