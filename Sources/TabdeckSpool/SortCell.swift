import TabdeckProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cell as a sort key (24 bytes), and the spool's one rule for comparing two.
///
/// Nulls first, then numbers, then texts (ascending; a descending order reverses it all, so
/// nulls come last, as the protocol says):
/// - numbers compare by value, integers exactly; `false` and `true` are 0 and 1; a date that
///   parses is its milliseconds since 1970, an enum value its position in `values`;
/// - texts compare by their UTF-8 bytes (Unicode scalar order, the protocol's reference); a
///   nested value (array, object) is its JSON text, a date that does not parse or an unknown
///   enum value its text.
struct SortCell {
    enum Rank: UInt8 { case null, number, text }

    /// An integer, a decimal's bits, or a text's offset in the mapped records.
    var word: UInt64
    /// A text's first 8 bytes, big-endian, zero-padded: most comparisons end here, without
    /// reading the records.
    var prefix: UInt64 = 0
    /// A text's length in bytes.
    var count: UInt32
    var rank: Rank
    var isInteger: Bool

    static let null = SortCell(word: 0, count: 0, rank: .null, isInteger: false)

    static func integer(_ v: Int64) -> SortCell { SortCell(word: UInt64(bitPattern: v), count: 0, rank: .number, isInteger: true) }

    /// The key of `cell` (read from the records at `base`) in a column keyed by `keying`.
    @inline(__always)
    static func key(_ cell: RecordCell, _ keying: SortColumn.Keying, base: UnsafeRawPointer) -> SortCell {
        switch cell.tag {
        case .null: return .null
        case .no: return .integer(0)
        case .yes: return .integer(1)
        case .int: return SortCell(word: cell.word, count: 0, rank: .number, isInteger: true)
        case .double: return SortCell(word: cell.word, count: 0, rank: .number, isInteger: false)
        case .json: return text(cell.text, base: base)
        case .text:
            switch keying {
            case .plain: break
            case .date:
                let s = String(decoding: UnsafeRawBufferPointer(start: base + cell.text.offset, count: cell.text.count), as: UTF8.self)
                if let ms = ISODateTime(s)?.millis { return .integer(ms) }
            case .ranks(let ranks):
                let s = String(decoding: UnsafeRawBufferPointer(start: base + cell.text.offset, count: cell.text.count), as: UTF8.self)
                if let rank = ranks[s] { return .integer(rank) }
            }
            return text(cell.text, base: base)
        }
    }

    @inline(__always) static func text(_ span: TextSpan, base: UnsafeRawPointer) -> SortCell {
        var prefix: UInt64 = 0
        let n = min(8, span.count)
        for i in 0..<n { prefix |= UInt64(base.load(fromByteOffset: span.offset + i, as: UInt8.self)) << (56 - 8 * i) }
        return SortCell(word: UInt64(span.offset), prefix: prefix, count: UInt32(clamping: span.count), rank: .text, isInteger: false)
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b` (ascending).
    @inline(__always)
    static func compare(_ a: SortCell, _ b: SortCell, base: UnsafeRawPointer?) -> Int {
        if a.rank != b.rank { return a.rank.rawValue < b.rank.rawValue ? -1 : 1 }
        switch a.rank {
        case .null:
            return 0
        case .number:
            if a.isInteger && b.isInteger {
                let x = Int64(bitPattern: a.word), y = Int64(bitPattern: b.word)
                return x < y ? -1 : x > y ? 1 : 0
            }
            let x = a.isInteger ? Double(Int64(bitPattern: a.word)) : Double(bitPattern: a.word)
            let y = b.isInteger ? Double(Int64(bitPattern: b.word)) : Double(bitPattern: b.word)
            return x < y ? -1 : x > y ? 1 : 0
        case .text:
            // Padded prefixes that differ order the texts as their bytes do; equal ones leave it
            // to the bytes after them (a zero byte and the padding look alike).
            if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
            let n = Int(min(a.count, b.count))
            if n > 8, let base {
                let c = memcmp(base + Int(a.word) + 8, base + Int(b.word) + 8, n - 8)
                if c != 0 { return c < 0 ? -1 : 1 }
            }
            return a.count < b.count ? -1 : a.count > b.count ? 1 : 0
        }
    }
}
