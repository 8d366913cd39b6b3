/// Strings: a word-at-a-time scan for the closing quote, then one `String` per value.
extension JSONScanner {
    mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes. Eight bytes at a time while none is '"', '\' or a control
        // character, then straight to the first such byte.
        skipPlainBytes()
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let s = makeString(bytes.baseAddress! + start, count: index - start, readable: bytes.count - start)
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("control character \(describe(b)) in a string (must be escaped)") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string", at: open) }
        return try parseEscapedString(open: open, start: start)
    }

    /// The string of the `count` bytes at `start` (valid UTF-8 or repaired as `String(decoding:)`
    /// does); at most 15 ASCII bytes are made without validation (`SmallStrings`). `readable`:
    /// how many bytes from `start` may be read.
    @inline(__always) func makeString(_ start: UnsafePointer<UInt8>, count: Int, readable: Int) -> String {
        if count <= SmallStrings.maxCount, smallStrings, let small = SmallStrings.make(start, count, readable: readable) {
            return small
        }
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// Moves `index` over bytes that are not '"', '\' or a control character, eight at a time,
    /// stopping at the first such byte (or fewer than eight bytes before the end).
    @inline(__always) mutating func skipPlainBytes() {
        guard let base = bytes.baseAddress else { return }
        while index + 8 <= bytes.count {
            let mask = Self.specialBytes(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
            if mask != 0 {
                index += mask.trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    /// The high bit of each of the eight bytes of `word` (first byte lowest) that is '"', '\'
    /// or below 0x20; bits above the lowest may be false alarms, the lowest never is (a
    /// borrow only runs upwards), so it marks the first such byte.
    @inline(__always) static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & highs
    }

    /// The rest of a string that has escapes; `index` is at the first backslash. The bytes
    /// are unescaped into `unescaped`, grown when needed: unescaping never makes a string
    /// longer, so `count` never passes `index - start`. Plain bytes are copied eight at a time
    /// while they are looked at (a word is stored whole, then `count` moves past its plain
    /// bytes only), so a run costs no separate copy.
    mutating func parseEscapedString(open: Int, start: Int) throws(JSONParseError) -> String {
        var count = index - start
        var out = unescapeBuffer(capacity: count + 64, keeping: 0)
        var capacity = unescapedCapacity
        out.update(from: bytes.baseAddress! + start, count: count)
        let base = bytes.baseAddress!
        while true {
            while index + 8 <= bytes.count {
                if count + 8 > capacity {
                    out = growUnescapeBuffer(capacity: count + 8, keeping: count)
                    capacity = unescapedCapacity
                }
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(out + count).storeBytes(of: word, as: UInt64.self)
                let mask = Self.specialBytes(UInt64(littleEndian: word))
                if mask != 0 {
                    let plain = mask.trailingZeroBitCount >> 3
                    index += plain
                    count += plain
                    break
                }
                index += 8
                count += 8
            }
            guard index < bytes.count else { break }
            if count + 4 > capacity {
                out = growUnescapeBuffer(capacity: count + 4, keeping: count)
                capacity = unescapedCapacity
            }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return makeString(out, count: count, readable: count)
            }
            if b < 0x20 { throw error("control character \(describe(b)) in a string (must be escaped)") }
            if b != UInt8(ascii: "\\") {
                // A plain byte among the last seven of the line.
                out[count] = b
                count += 1
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out[count] = 0x22; count += 1
            case UInt8(ascii: "\\"): out[count] = 0x5C; count += 1
            case UInt8(ascii: "/"): out[count] = 0x2F; count += 1
            case UInt8(ascii: "b"): out[count] = 0x08; count += 1
            case UInt8(ascii: "f"): out[count] = 0x0C; count += 1
            case UInt8(ascii: "n"): out[count] = 0x0A; count += 1
            case UInt8(ascii: "r"): out[count] = 0x0D; count += 1
            case UInt8(ascii: "t"): out[count] = 0x09; count += 1
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by a low one.
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try parseHex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else { scalar = 0xFFFD }
                    } else { scalar = 0xFFFD }
                } else if (0xDC00..<0xE000).contains(scalar) {
                    scalar = 0xFFFD
                }
                count += Self.storeUTF8(scalar, at: out + count)
            default: throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: index - 2)
            }
        }
        throw error("unterminated string", at: open)
    }

    /// Stores the UTF-8 bytes of a scalar value (surrogates already resolved); returns how many.
    /// An escape takes 6 bytes of input (12 for a pair) and gives at most 3 (4 for a pair).
    static func storeUTF8(_ scalar: UInt32, at out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6); out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12); out[1] = UInt8(0x80 | scalar >> 6 & 0x3F); out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18); out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F); out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }
}
