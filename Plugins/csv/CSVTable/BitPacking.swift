/// Unsigned codes of one fixed bit width packed end to end: the compact form of the csv
/// plugin's per-row numbers (record offsets in ``OffsetChunk``, sort keys in ``PackedKeys``).
///
/// Code `i` of width `w` starts at bit `i * w`; it is read with one unaligned 8-byte load,
/// a shift (at most 7) and a mask, so widths go up to 57 bits. A packed run is followed by 8
/// bytes of padding so that the last load stays inside it.
enum BitPacking {
    /// The widest code: a shift of up to 7 bits must leave it whole in 64.
    static let maxWidth = 57

    /// The bits a code needs to hold values up to `maxCode` (0 for 0).
    @inline(__always) static func width(ofMaxCode maxCode: UInt64) -> Int {
        maxCode == 0 ? 0 : 64 - maxCode.leadingZeroBitCount
    }

    /// The mask of a code of `width` bits.
    @inline(__always) static func mask(width: Int) -> UInt64 {
        width == 0 ? 0 : (UInt64(1) << UInt64(width)) &- 1
    }

    /// Bytes that `count` codes of `width` bits take, padding included.
    static func byteCount(count: Int, width: Int) -> Int { (count * width + 7) / 8 + 8 }

    /// Writes `count` codes (each below `1 << width`) at `destination`, which must hold
    /// ``byteCount(count:width:)`` bytes (8-byte aligned), a 64-bit word at a time.
    static func write(_ destination: UnsafeMutableRawPointer, count: Int, width: Int, code: (Int) -> UInt64) {
        precondition(width <= maxWidth)
        let size = byteCount(count: count, width: width)
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        if width == 0 { return }
        let words = destination.bindMemory(to: UInt64.self, capacity: size / 8)
        var word = 0, filled = 0
        var pending: UInt64 = 0
        for i in 0..<count {
            let c = code(i)
            pending |= c << UInt64(filled)
            filled += width
            if filled >= 64 {
                words[word] = pending
                word += 1
                filled -= 64
                // The bits of `c` that did not fit (none when `filled` is 0).
                pending = filled == 0 ? 0 : c >> UInt64(width - filled)
            }
        }
        if filled > 0 { words[word] = pending }
    }

    /// Code `i` of the packed run at `source`.
    @inline(__always) static func read(_ source: UnsafeRawPointer, _ i: Int, width: Int, mask: UInt64) -> UInt64 {
        let bit = i &* width
        return (source + (bit >> 3)).loadUnaligned(as: UInt64.self) >> UInt64(bit & 7) & mask
    }
}
