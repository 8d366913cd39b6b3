import TabdeckProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cell as a sort key (24 bytes), and the spool's one rule for comparing two.
///
/// Nulls first, then numbers, then texts (ascending; a descending order reverses it all, so
/// nulls come last, as the protocol says); in a column with `nulls: largest`, nulls last:
/// - numbers compare by value, exactly (``ExactNumber``'s rule): integers as integers, a
///   decimal as its exact binary value, a number text of an integer or decimal column (PROTOCOL.md
///   10.3, *Exact numbers*) as its decimal value (`-Infinity` < numbers < `Infinity` < `NaN`);
///   `false` and `true` are 0 and 1; a date that parses is its milliseconds since 1970, an enum
///   value its position in `values`;
/// - texts compare by their UTF-8 bytes (Unicode scalar order, the protocol's reference), or
///   with ASCII letters folded in an `order: casefold` column; a nested value (array, object) is
///   its JSON text, a date that does not parse, an unknown enum value or a text that is not a
///   number in a number column its text.
struct SortCell {
    enum Rank: UInt8 { case null, number, text, nullLargest }
    /// How a number or a text is held.
    enum Form: UInt8 {
        /// `word` is an Int64.
        case integer
        /// `word` is a Double's bits.
        case double
        /// A number text: `word` holds the bits of its ``ExactNumber/approximation(_:)`` (as a
        /// double's), `prefix` and `count` place it in the records.
        case numberText
        /// A text (`word`, `count`, `prefix`: its first 8 bytes).
        case bytes
        /// A text compared with ASCII letters folded (`prefix`: its first 8 bytes folded).
        case folded
    }

    /// An integer, a decimal's bits (or a number text's approximation's), or a text's offset
    /// in the mapped records.
    var word: UInt64
    /// A text's first 8 bytes, big-endian, zero-padded (folded in a casefold column): most
    /// comparisons end here, without reading the records; or a number text's offset.
    var prefix: UInt64 = 0
    /// A text's length in bytes.
    var count: UInt32
    var rank: Rank
    var form: Form

    static let null = SortCell(word: 0, count: 0, rank: .null, form: .integer)
    static let nullLargest = SortCell(word: 0, count: 0, rank: .nullLargest, form: .integer)

    static func integer(_ v: Int64) -> SortCell { SortCell(word: UInt64(bitPattern: v), count: 0, rank: .number, form: .integer) }

    /// The key of `cell` (read from the records at `base`) in a column keyed by `keying`, whose
    /// nulls are the largest values if `nullsLargest`.
    @inline(__always)
    static func key(_ cell: RecordCell, _ keying: SortColumn.Keying, nullsLargest: Bool = false, base: UnsafeRawPointer) -> SortCell {
        switch cell.tag {
        case .null: return nullsLargest ? .nullLargest : .null
        case .no: return .integer(0)
        case .yes: return .integer(1)
        case .int: return SortCell(word: cell.word, count: 0, rank: .number, form: .integer)
        case .double: return SortCell(word: cell.word, count: 0, rank: .number, form: .double)
        case .json: return text(cell.text, base: base, folded: keying == .casefold)
        case .text:
            switch keying {
            case .plain: break
            case .casefold: return text(cell.text, base: base, folded: true)
            case .date:
                let s = String(decoding: UnsafeRawBufferPointer(start: base + cell.text.offset, count: cell.text.count), as: UTF8.self)
                if let ms = ISODateTime(s)?.millis { return .integer(ms) }
            case .ranks(let ranks):
                let s = String(decoding: UnsafeRawBufferPointer(start: base + cell.text.offset, count: cell.text.count), as: UTF8.self)
                if let rank = ranks[s] { return .integer(rank) }
            case .number(let type):
                let bytes = UnsafeRawBufferPointer(start: base + cell.text.offset, count: cell.text.count)
                if ExactNumber.isNumberText(bytes, type: type), let approximation = ExactNumber.approximation(bytes) {
                    return SortCell(word: approximation.bitPattern, prefix: UInt64(cell.text.offset),
                                    count: UInt32(clamping: cell.text.count), rank: .number, form: .numberText)
                }
            }
            return text(cell.text, base: base, folded: false)
        }
    }

    @inline(__always) static func text(_ span: TextSpan, base: UnsafeRawPointer, folded: Bool) -> SortCell {
        var prefix: UInt64 = 0
        let n = min(8, span.count)
        if folded {
            for i in 0..<n { prefix |= UInt64(fold(base.load(fromByteOffset: span.offset + i, as: UInt8.self))) << (56 - 8 * i) }
        } else {
            for i in 0..<n { prefix |= UInt64(base.load(fromByteOffset: span.offset + i, as: UInt8.self)) << (56 - 8 * i) }
        }
        return SortCell(word: UInt64(span.offset), prefix: prefix, count: UInt32(clamping: span.count), rank: .text,
                        form: folded ? .folded : .bytes)
    }

    /// `memcmp` of `count` bytes with ASCII letters folded.
    @inline(never)
    static func foldedCompare(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Int32 {
        for i in 0..<count {
            let p = fold(a.load(fromByteOffset: i, as: UInt8.self)), q = fold(b.load(fromByteOffset: i, as: UInt8.self))
            if p != q { return p < q ? -1 : 1 }
        }
        return 0
    }

    /// An ASCII capital letter as its lower case; any other byte as it is.
    @inline(__always) static func fold(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// -1, 0 or 1 as `a` sorts before, with or after `b` (ascending).
    @inline(__always)
    static func compare(_ a: SortCell, _ b: SortCell, base: UnsafeRawPointer?) -> Int {
        if a.rank != b.rank { return a.rank.rawValue < b.rank.rawValue ? -1 : 1 }
        switch a.rank {
        case .null, .nullLargest:
            return 0
        case .number:
            if a.form == .integer && b.form == .integer {
                let x = Int64(bitPattern: a.word), y = Int64(bitPattern: b.word)
                return x < y ? -1 : x > y ? 1 : 0
            }
            // As doubles first (a number text's is correctly rounded, so monotonic); only equal
            // ones need more, and only a number text needs its digits.
            let x = a.form == .integer ? Double(Int64(bitPattern: a.word)) : Double(bitPattern: a.word)
            let y = b.form == .integer ? Double(Int64(bitPattern: b.word)) : Double(bitPattern: b.word)
            let c = x < y ? -1 : x > y ? 1 : 0
            if _slowPath(c == 0 && (a.form != b.form || a.form == .numberText)) { return exactCompare(a, b, base: base) }
            return c
        case .text:
            // Padded prefixes that differ order the texts as their bytes do; equal ones leave it
            // to the bytes after them (a zero byte and the padding look alike).
            if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
            let n = Int(min(a.count, b.count))
            if n > 8, let base {
                let c = a.form == .folded ? foldedCompare(base + Int(a.word) + 8, base + Int(b.word) + 8, n - 8)
                    : memcmp(base + Int(a.word) + 8, base + Int(b.word) + 8, n - 8)
                if c != 0 { return c < 0 ? -1 : 1 }
            }
            return a.count < b.count ? -1 : a.count > b.count ? 1 : 0
        }
    }

    /// Two numbers of other forms, or two number texts, whose doubles are equal, by
    /// ``ExactNumber``'s rule: number texts are compared in place; an integer and a double
    /// (equal as doubles: the double is a whole number) exactly as integers; a number text
    /// and a JSON number through the number's exact decimal text.
    @inline(never)
    static func exactCompare(_ a: SortCell, _ b: SortCell, base: UnsafeRawPointer?) -> Int {
        if a.form == .numberText && b.form == .numberText {
            guard let base else { return 0 }
            return ExactNumber.compare(UnsafeRawBufferPointer(start: base + Int(a.prefix), count: Int(a.count)),
                                       UnsafeRawBufferPointer(start: base + Int(b.prefix), count: Int(b.count))) ?? 0
        }
        if a.form == .integer && b.form == .double { return wholeCompare(Int64(bitPattern: a.word), Double(bitPattern: b.word)) }
        if a.form == .double && b.form == .integer { return -wholeCompare(Int64(bitPattern: b.word), Double(bitPattern: a.word)) }
        guard let x = a.exact(base: base), let y = b.exact(base: base) else { return 0 }
        return ExactNumber.compare(x, y)
    }

    /// An integer against a whole-number double no further from it than a double's rounding.
    static func wholeCompare(_ i: Int64, _ d: Double) -> Int {
        if d >= 9_223_372_036_854_775_808.0 { return -1 }  // 2^63: above every Int64
        let j = Int64(d)
        return i < j ? -1 : i > j ? 1 : 0
    }

    /// The number as an ``ExactNumber`` (nil for a text without the records).
    func exact(base: UnsafeRawPointer?) -> ExactNumber? {
        switch form {
        case .integer: return ExactNumber(Int64(bitPattern: word))
        case .double: return ExactNumber(Double(bitPattern: word))
        case .numberText:
            guard let base else { return nil }
            let text = String(decoding: UnsafeRawBufferPointer(start: base + Int(prefix), count: Int(count)), as: UTF8.self)
            return ExactNumber(text)
        case .bytes, .folded: return nil
        }
    }
}
