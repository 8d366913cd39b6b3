#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Strings of at most 15 ASCII bytes made straight from their bytes, for the scanner's hot path
/// (ids, dates, categories, short names: most cells of a page).
///
/// `String(decoding:as:)` validates UTF-8, checks for ASCII a second time and copies through
/// generic code: about as much work as scanning the row. A Swift string of at most 15 UTF-8
/// bytes is stored inline in its two words ("small string": the bytes, then a count and flags
/// byte); for ASCII bytes there is nothing to validate, so the two words are put together here.
/// That layout is the standard library's, not public API: it is checked once at start-up
/// against `String(decoding:as:)` for every length from 0 to 15, and if anything differs this
/// path is off and every string is made by `String(decoding:as:)` as before.
enum SmallStrings {
    /// The longest string made here.
    static let maxCount = 15

    /// Whether the layout check passed (computed once).
    static let enabled: Bool = {
        guard MemoryLayout<String>.size == 16 else { return false }
        let sample = Array("0123456789-Az :/0123456789-Az :/".utf8)
        for count in 0...maxCount {
            let bytes = Array(sample.prefix(count))
            let reference = String(decoding: bytes, as: UTF8.self)
            let b = unsafeBitCast(reference, to: (UInt64, UInt64).self)
            for readable in [count, sample.count] {
                guard let made = sample.withUnsafeBufferPointer({ make($0.baseAddress!, count, readable: readable) }) else { return false }
                let a = unsafeBitCast(made, to: (UInt64, UInt64).self)
                guard a == b, made == reference, made.utf8.count == count, Array(made.utf8) == bytes else { return false }
            }
        }
        return true
    }()

    /// The string of the `count` (at most 15) bytes at `start` if they are all ASCII, else nil.
    /// `readable` is how many bytes from `start` may be read: with 16 or more, the bytes are
    /// loaded as two words and masked; otherwise they are copied first.
    @inline(__always) static func make(_ start: UnsafePointer<UInt8>, _ count: Int, readable: Int) -> String? {
        var low: UInt64 = 0, high: UInt64 = 0
        if readable >= 16 {
            let raw = UnsafeRawPointer(start)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if count < 8 {
                low &= (1 << (8 * UInt64(count))) &- 1
                high = 0
            } else {
                high &= (1 << (8 * UInt64(count - 8))) &- 1
            }
        } else {
            withUnsafeMutableBytes(of: &low) { $0.baseAddress!.copyMemory(from: start, byteCount: min(count, 8)) }
            if count > 8 { withUnsafeMutableBytes(of: &high) { $0.baseAddress!.copyMemory(from: start + 8, byteCount: count - 8) } }
            low = UInt64(littleEndian: low); high = UInt64(littleEndian: high)
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        high |= (0xE0 | UInt64(count)) << 56  // small, ASCII, count
        return unsafeBitCast((low, high), to: String.self)
    }
}
