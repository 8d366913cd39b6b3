/// A number a plugin sends exactly, as a JSON string (PROTOCOL.md 10.3, *Exact numbers*), and
/// the host's one exact rule for comparing numbers: number texts with each other and with JSON
/// integers and doubles.
///
/// The grammar: `-?[0-9]+(\.[0-9]+)?`, and in a `decimal` column also `NaN`, `Infinity` and
/// `-Infinity`; an `integer` column's texts have no fraction. The order: `-Infinity` < every
/// number < `Infinity` < `NaN`; `-0` = `0`; a value written with another scale is equal
/// (`3.0` = `3.00`). A JSON double compares as its exact binary value (`0.1` is
/// `0.1000000000000000055511151231257827…`), written out in full by ``init(_:)-(Double)``.
///
/// Equality (`==`, `hash`) is numeric, as the order; ``text`` keeps what was sent.
public struct ExactNumber: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The class of a number, in sort order.
    public enum Kind: UInt8, Comparable, Sendable {
        case negativeInfinity, finite, infinity, nan

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// The text as sent (for a JSON number, its exact decimal value).
    public let text: String
    public let kind: Kind

    /// A number text of a column of `type` (`integer`: digits; `decimal`: the whole grammar);
    /// nil for a text that is not one, or a column of another type.
    public init?(_ text: String, type: ColumnType) {
        switch type {
        case .integer: self.init(text, fraction: false, specials: false)
        case .decimal: self.init(text, fraction: true, specials: true)
        default: return nil
        }
    }

    /// A number text: `-?[0-9]+`, with a fraction `(\.[0-9]+)?` if `fraction`, and `NaN`,
    /// `Infinity` and `-Infinity` if `specials`; nil for anything else.
    public init?(_ text: String, fraction: Bool = true, specials: Bool = true) {
        var text = text
        guard let shape = text.withUTF8({ Shape.parse(UnsafeRawBufferPointer($0), fraction: fraction, specials: specials) }) else {
            return nil
        }
        self.text = text
        kind = shape.kind
    }

    /// A JSON integer.
    public init(_ value: Int64) {
        text = String(value)
        kind = .finite
    }

    /// A JSON double, by its exact value (every finite double is a finite decimal); NaN and
    /// the infinities as their kinds.
    public init(_ value: Double) {
        if value.isNaN { text = "NaN"; kind = .nan; return }
        if value.isInfinite { text = value < 0 ? "-Infinity" : "Infinity"; kind = value < 0 ? .negativeInfinity : .infinity; return }
        text = Self.expansion(value)
        kind = .finite
    }

    /// A cell of a column of `type` as a number: a JSON integer or double, or a number text
    /// (``init(_:type:)``); nil for any other cell.
    public init?(cell: JSONValue, type: ColumnType) {
        switch cell {
        case .int(let i): self.init(i)
        case .double(let d): self.init(d)
        case .string(let s): self.init(s, type: type)
        default: return nil
        }
    }

    public var description: String { text }

    /// -1, 0 or 1 as `a` is below, equal to or above `b`.
    public static func compare(_ a: ExactNumber, _ b: ExactNumber) -> Int {
        var x = a.text, y = b.text
        return x.withUTF8 { xs in y.withUTF8 { ys in Self.compare(UnsafeRawBufferPointer(xs), UnsafeRawBufferPointer(ys))! } }
    }

    public static func < (a: ExactNumber, b: ExactNumber) -> Bool { compare(a, b) < 0 }
    public static func == (a: ExactNumber, b: ExactNumber) -> Bool { compare(a, b) == 0 }

    public func hash(into hasher: inout Hasher) {
        var t = text
        t.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            let s = Shape.parse(raw, fraction: true, specials: true)!
            hasher.combine(s.kind)
            guard s.kind == .finite, !s.isZero else { return }
            hasher.combine(s.negative)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[s.integer]))
            hasher.combine(0xFF as UInt8)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[s.fraction]))
        }
    }

    // MARK: Texts as bytes

    /// -1, 0 or 1 as the number text `a` is below, equal to or above the number text `b`
    /// (UTF-8 bytes, the whole grammar); nil when either is not a number text. Reads the bytes
    /// in place: the spool compares the texts in its records with it.
    public static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int? {
        guard let x = Shape.parse(a, fraction: true, specials: true), let y = Shape.parse(b, fraction: true, specials: true) else {
            return nil
        }
        return Shape.compare(x, a, y, b)
    }

    /// A double no further from the number text `bytes` than its neighbours, such that a text
    /// whose approximation is below another's is below it (correct rounding is monotonic): the
    /// spool compares these first and ``compare(_:_:)-(UnsafeRawBufferPointer,_)`` only when
    /// they are equal. NaN's approximation is `+infinity` (NaN sorts above `Infinity`, and a
    /// double NaN would compare with nothing); nil when `bytes` is not a number text.
    public static func approximation(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard let shape = Shape.parse(bytes, fraction: true, specials: true) else { return nil }
        switch shape.kind {
        case .negativeInfinity: return -.infinity
        case .infinity, .nan: return .infinity
        case .finite: return Double(String(decoding: bytes, as: UTF8.self)) ?? 0
        }
    }

    /// Whether the UTF-8 bytes are a number text of a column of `type`.
    public static func isNumberText(_ bytes: UnsafeRawBufferPointer, type: ColumnType) -> Bool {
        switch type {
        case .integer: Shape.parse(bytes, fraction: false, specials: false) != nil
        case .decimal: Shape.parse(bytes, fraction: true, specials: true) != nil
        default: false
        }
    }

    // MARK: Shape

    /// Where a number text's significant digits lie: the integer digits without leading zeros
    /// and the fraction digits without trailing zeros (byte ranges into the text).
    struct Shape {
        var kind: Kind
        var negative: Bool
        var integer: Range<Int>
        var fraction: Range<Int>

        var isZero: Bool { kind == .finite && integer.isEmpty && fraction.isEmpty }

        static func parse(_ b: UnsafeRawBufferPointer, fraction allowFraction: Bool, specials: Bool) -> Shape? {
            let n = b.count
            if specials, n >= 3, b[0] == 0x4E || b[0] == 0x49 || b[0] == 0x2D && b[1] == 0x49 {
                if equal(b, "NaN") { return Shape(kind: .nan, negative: false, integer: 0..<0, fraction: 0..<0) }
                if equal(b, "Infinity") { return Shape(kind: .infinity, negative: false, integer: 0..<0, fraction: 0..<0) }
                if equal(b, "-Infinity") { return Shape(kind: .negativeInfinity, negative: true, integer: 0..<0, fraction: 0..<0) }
                return nil
            }
            var i = 0
            let negative = n > 0 && b[0] == 0x2D
            if negative { i = 1 }
            let intStart = i
            while i < n, isDigit(b[i]) { i += 1 }
            let intEnd = i
            guard intEnd > intStart else { return nil }
            var fracStart = i, fracEnd = i
            if i < n {
                guard allowFraction, b[i] == 0x2E else { return nil }
                i += 1
                fracStart = i
                while i < n, isDigit(b[i]) { i += 1 }
                guard i == n, i > fracStart else { return nil }
                fracEnd = i
            }
            var lead = intStart
            while lead < intEnd, b[lead] == 0x30 { lead += 1 }
            while fracEnd > fracStart, b[fracEnd - 1] == 0x30 { fracEnd -= 1 }
            return Shape(kind: .finite, negative: negative, integer: lead..<intEnd, fraction: fracStart..<fracEnd)
        }

        @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

        static func equal(_ b: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
            guard b.count == word.utf8CodeUnitCount else { return false }
            let w = word.utf8Start
            for i in 0..<b.count where b[i] != w[i] { return false }
            return true
        }

        /// -1, 0 or 1 for `x` (a shape of the bytes `a`) against `y` (of `b`).
        static func compare(_ x: Shape, _ a: UnsafeRawBufferPointer, _ y: Shape, _ b: UnsafeRawBufferPointer) -> Int {
            if x.kind != y.kind { return x.kind < y.kind ? -1 : 1 }
            guard x.kind == .finite else { return 0 }
            let xs = x.isZero ? 0 : (x.negative ? -1 : 1), ys = y.isZero ? 0 : (y.negative ? -1 : 1)
            if xs != ys { return xs < ys ? -1 : 1 }
            if xs == 0 { return 0 }
            return xs * magnitude(x, a, y, b)
        }

        /// -1, 0 or 1 for |x| against |y|.
        static func magnitude(_ x: Shape, _ a: UnsafeRawBufferPointer, _ y: Shape, _ b: UnsafeRawBufferPointer) -> Int {
            if x.integer.count != y.integer.count { return x.integer.count < y.integer.count ? -1 : 1 }
            for k in 0..<x.integer.count {
                let p = a[x.integer.lowerBound + k], q = b[y.integer.lowerBound + k]
                if p != q { return p < q ? -1 : 1 }
            }
            // Without trailing zeros, a fraction that is a prefix of the other is the smaller.
            let common = min(x.fraction.count, y.fraction.count)
            for k in 0..<common {
                let p = a[x.fraction.lowerBound + k], q = b[y.fraction.lowerBound + k]
                if p != q { return p < q ? -1 : 1 }
            }
            return x.fraction.count == y.fraction.count ? 0 : (x.fraction.count < y.fraction.count ? -1 : 1)
        }
    }

    // MARK: A double's exact value

    /// The exact decimal value of a finite double: `m × 2^e` written out (for `e < 0`, as
    /// `m × 5^-e` with the point `-e` digits from the right). At most 767 significant digits.
    static func expansion(_ d: Double) -> String {
        if d == 0 { return d.sign == .minus ? "-0" : "0" }
        let bits = d.bitPattern
        let rawExponent = Int((bits >> 52) & 0x7FF)
        let fraction = bits & ((1 << 52) - 1)
        let m = rawExponent == 0 ? fraction : fraction | (1 << 52)
        let e = (rawExponent == 0 ? 1 : rawExponent) - 1075
        // Little-endian limbs of 9 decimal digits.
        var limbs: [UInt64] = []
        var v = m
        while v > 0 { limbs.append(v % 1_000_000_000); v /= 1_000_000_000 }
        func multiply(by factor: UInt64) {
            var carry: UInt64 = 0
            for i in limbs.indices {
                let p = limbs[i] * factor + carry
                limbs[i] = p % 1_000_000_000
                carry = p / 1_000_000_000
            }
            while carry > 0 { limbs.append(carry % 1_000_000_000); carry /= 1_000_000_000 }
        }
        // Factors below 2^31, so a limb (< 10^9) times one stays below 2^64.
        var count = abs(e)
        if e >= 0 {
            while count > 0 { let k = min(count, 30); multiply(by: 1 << UInt64(k)); count -= k }
        } else {
            while count > 0 { let k = min(count, 13); var f: UInt64 = 1; for _ in 0..<k { f *= 5 }; multiply(by: f); count -= k }
        }
        var digits = String(limbs.last!)
        for limb in limbs.dropLast().reversed() {
            let s = String(limb)
            digits += String(repeating: "0", count: 9 - s.count) + s
        }
        let sign = d < 0 ? "-" : ""
        guard e < 0 else { return sign + digits }
        let point = -e
        if digits.count <= point { digits = String(repeating: "0", count: point - digits.count + 1) + digits }
        var integer = String(digits.prefix(digits.count - point))
        var fractionDigits = String(digits.suffix(point))
        while fractionDigits.last == "0" { fractionDigits.removeLast() }
        if integer.isEmpty { integer = "0" }
        return fractionDigits.isEmpty ? sign + integer : sign + integer + "." + fractionDigits
    }
}
