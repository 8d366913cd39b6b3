/// A column of a CSV file: its header, an id unique in the table, the type inferred
/// from a sample, and display widths measured on the same sample.
public struct CSVColumn: Equatable, Sendable {
    /// The header text ("column N" when the header cell is empty).
    public var name: String
    /// Unique id: the name, with `_2`, `_3`... appended to repeats.
    public var id: String
    public var type: CSVColumnType
    /// Display width (terminal cells) of the header.
    public var headerWidth: Int
    /// The widest sampled cell, and the 90th percentile of sampled cell widths.
    public var maxWidth: Int
    public var typicalWidth: Int
    /// For a decimal column whose sampled values all have the same number of digits after the
    /// point (money: `1370.30`), that number, so the host shows `1370.30` and not `1370.3`.
    public var decimals: Int? = nil
    /// For a decimal column, the most digits after the point a sampled value has (at most
    /// 15): its sort keys are then exact whole numbers of that unit (see ``ColumnKeys``).
    var sortScale: Int? = nil
    /// How the column's cells are written (decimal commas, day-first dates), when not in the
    /// standard form.
    public var style: CellStyle = .standard
    /// True when the tab's args gave the type (``CSVTypeChoice``).
    public var typeGiven = false

    /// Width hints for a table view, honest about the sampled cells (types and widths come
    /// from a sample that includes the file's last rows, where growing ids are widest).
    ///
    /// - Numbers, dates and booleans must not be cut: `min` and `ideal` fit the widest
    ///   sampled value, and `max` leaves room for a few more characters.
    /// - Text: a narrow `min`, an `ideal` that fits most cells and the header (at most 40),
    ///   and a `max` that fits the widest sampled cell (at most 200).
    public var widthHints: (min: Int, ideal: Int, max: Int) {
        switch type {
        case .integer, .decimal, .date, .bool:
            let value = min(max(maxWidth, 1), 60)
            let ideal = max(headerWidth, value, 3)
            return (max(value, 3), ideal, ideal + 4)
        case .text:
            let ideal = min(max(headerWidth, typicalWidth, 3), 40)
            let minimum = min(max(min(headerWidth, 8), 3), ideal)
            let maximum = max(ideal, min(max(maxWidth, headerWidth), 200))
            return (minimum, ideal, maximum)
        }
    }
}

/// Infers column types and widths from a sample of rows.
struct ColumnInference {
    private static let canInteger: UInt8 = 1, canDecimal: UInt8 = 2, canBool: UInt8 = 4, canDate: UInt8 = 8
    private static let canDecimalComma: UInt8 = 16, canDayFirst: UInt8 = 32, canMonthFirst: UInt8 = 64

    private var possible: [UInt8]
    private var seen: [Bool]
    /// Per column, each sampled cell's display width and the types it parses as.
    private var widths: [[(width: Int, kinds: UInt8)]]
    /// Per column, the fewest and the most digits after the point among sampled numbers with
    /// a point (-1: none seen; a number with an exponent makes the scale unknown: 99).
    private var fractionDigits: [(min: Int, max: Int)]

    init(columns: Int) {
        possible = [UInt8](repeating: 0x7F, count: columns)
        seen = [Bool](repeating: false, count: columns)
        widths = [[(width: Int, kinds: UInt8)]](repeating: [], count: columns)
        fractionDigits = [(min: Int, max: Int)](repeating: (Int.max, -1), count: columns)
    }

    /// Adds a sampled record: its cells narrow the possible types (unless `widthsOnly`: the
    /// record may start inside a quoted field) and their display widths are recorded with
    /// the types each cell parses as, so a typed column's width counts only its values.
    mutating func add(record start: Int, scanner: FieldScanner, widthsOnly: Bool = false) {
        let columns = possible.count
        _ = scanner.scan(record: start) { j, span in
            guard j < columns else { return false }
            guard span.count > 0 else { return true }
            if span.escaped {
                if !widthsOnly { seen[j] = true; possible[j] = 0 }
                widths[j].append((DisplayWidth.of(scanner.unescaped(span)), 0))
                return true
            }
            let b = UnsafeBufferPointer(start: scanner.base + span.start, count: span.count)
            let kinds = Self.kinds(b)
            widths[j].append((DisplayWidth.of(b), kinds))
            if kinds & (Self.canDecimal | Self.canDecimalComma) != 0, let digits = Self.fractionDigits(b) {
                fractionDigits[j] = (min(fractionDigits[j].min, digits), max(fractionDigits[j].max, digits))
            }
            if !widthsOnly {
                seen[j] = true
                possible[j] &= kinds
            }
            return true
        }
    }

    /// The types a cell parses as.
    static func kinds(_ b: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var k: UInt8 = 0
        if ValueParser.integer(b) != nil { k |= canInteger }
        if ValueParser.decimal(b) != nil { k |= canDecimal }
        if ValueParser.bool(b) != nil { k |= canBool }
        if ValueParser.date(b) != nil { k |= canDate }
        var normal: [UInt8] = []
        if CellStyle.decimalComma.normalize(b, into: &normal) { k |= canDecimalComma }
        if let parts = CellStyle.dateParts(b) {
            // Nobody writes the month first with points (31.12.2025 is a day first).
            if CellStyle.dayFirst.normalize(b, into: &normal), normal.withUnsafeBufferPointer({ ValueParser.date($0) }) != nil {
                k |= canDayFirst
            }
            if parts.separator != 0x2E, CellStyle.monthFirst.normalize(b, into: &normal),
               normal.withUnsafeBufferPointer({ ValueParser.date($0) }) != nil {
                k |= canMonthFirst
            }
        }
        return k
    }

    /// The digits after the point of a number (nil without a point; 99 with an exponent).
    static func fractionDigits(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let point = b.firstIndex(where: { $0 == 0x2E || $0 == 0x2C }) else { return b.contains(where: { $0 | 0x20 == 0x65 }) ? 99 : nil }
        var digits = 0
        for i in (point + 1)..<b.count {
            if b[i] | 0x20 == 0x65 { return 99 }
            digits += 1
        }
        return digits
    }

    /// The digits after the point every sampled number with a point of column `j` has, when
    /// they agree (and there are at most 15); nil otherwise.
    func decimals(of j: Int) -> Int? {
        let f = fractionDigits[j]
        guard f.max >= 0, f.min == f.max, f.max <= 15 else { return nil }
        return f.max
    }

    /// The most digits after the point a sampled number of column `j` has (0 when none has
    /// a point), when at most 15; nil otherwise (an exponent, or more digits).
    func sortScale(of j: Int) -> Int? {
        let f = fractionDigits[j]
        return f.max <= 15 ? max(f.max, 0) : nil
    }

    func type(of j: Int) -> CSVColumnType { typeAndStyle(of: j).type }

    /// The column's type and how its cells are written: standard forms first; then decimal
    /// commas; then dates with the day first or the month first, when only one of the two
    /// reads every sampled cell (`01/02/2025` alone is ambiguous, and stays text).
    func typeAndStyle(of j: Int) -> (type: CSVColumnType, style: CellStyle) {
        guard seen[j] else { return (.text, .standard) }
        let p = possible[j]
        if p & Self.canInteger != 0 { return (.integer, .standard) }
        if p & Self.canBool != 0 { return (.bool, .standard) }
        if p & Self.canDate != 0 { return (.date, .standard) }
        if p & Self.canDecimal != 0 { return (.decimal, .standard) }
        if p & Self.canDecimalComma != 0 { return (.decimal, .decimalComma) }
        let day = p & Self.canDayFirst != 0, month = p & Self.canMonthFirst != 0
        if day && !month { return (.date, .dayFirst) }
        if month && !day { return (.date, .monthFirst) }
        return (.text, .standard)
    }

    /// The widest and the 90th percentile width of the sampled cells of column `j` that are
    /// values of `type` (all cells for text).
    func widths(of j: Int, type: CSVColumnType, style: CellStyle = .standard) -> (max: Int, typical: Int) {
        let flag: UInt8 = switch (type, style) {
        case (.text, _): 0
        case (.integer, _): Self.canInteger
        case (.decimal, .decimalComma): Self.canDecimalComma
        case (.decimal, _): Self.canDecimal
        case (.bool, _): Self.canBool
        case (.date, .dayFirst): Self.canDayFirst
        case (.date, .monthFirst): Self.canMonthFirst
        case (.date, _): Self.canDate
        }
        let w = widths[j].filter { flag == 0 || $0.kinds & flag != 0 }.map(\.width).sorted()
        guard let last = w.last else { return (0, 0) }
        return (last, w[min(w.count - 1, (w.count * 9) / 10)])
    }
}

/// Terminal display width of UTF-8 text: East Asian wide and emoji count 2, combining
/// marks and control characters 0, the rest 1.
enum DisplayWidth {
    static func of<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8 {
        var width = 0
        var it = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&it) {
            case .scalarValue(let s): width += of(scalar: s.value)
            case .error: width += 1
            case .emptyInput: break loop
            }
        }
        return width
    }

    static func of(scalar v: UInt32) -> Int {
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }
        if (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) || (0xFE00...0xFE0F).contains(v) { return 0 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v) || (0x1F900...0x1F9FF).contains(v)
            || (0x20000...0x3FFFD).contains(v) { return 2 }
        return 1
    }
}
