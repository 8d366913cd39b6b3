/// Makes plugin text safe for the terminal: control characters and escape sequences are
/// shown escaped (`\e[31m`), never sent raw. Bidirectional formatting characters (U+202E
/// and friends) are escaped too (`\u202e`): they would reorder the cells around them and make
/// text read differently from what it is (the "Trojan Source" trick).
public enum Sanitizer {
    /// `text` with C0/C1 controls, DEL and bidi controls replaced by visible escapes; tabs become a space.
    public static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else { out.unicodeScalars.append(scalar); continue }
            switch scalar.value {
            case 0x1B: out += "\\e"
            case 0x09: out += " "
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case let v where v > 0xFF: out += "\\u" + String(v, radix: 16)
            default: out += "\\x" + hex2(scalar.value)
            }
        }
        return out
    }

    @inline(__always) static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (s.value >= 0x7F && s.value < 0xA0) || isBidiControl(s.value)
    }

    /// The explicit directional formatting characters: ALM, LRM, RLM, LRE…RLO, LRI…PDI.
    @inline(__always) static func isBidiControl(_ v: UInt32) -> Bool {
        v >= 0x61C && (v == 0x61C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v))
    }

    static func hex2(_ v: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return v > 0xFF ? String(v, radix: 16) : String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
    }
}

/// The number of terminal cells text takes: wide (CJK, emoji) characters take two,
/// combining marks none.
public enum DisplayWidth {
    /// Cells taken by one scalar.
    public static func of(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v < 0x300 { return v < 0x20 || (v >= 0x7F && v < 0xA0) ? 0 : 1 }
        if isZeroWidth(v) { return 0 }
        return isWide(v) ? 2 : 1
    }

    /// Cells taken by a string.
    public static func of(_ text: String) -> Int {
        var n = 0
        for s in text.unicodeScalars { n += of(s) }
        return n
    }

    static func isZeroWidth(_ v: UInt32) -> Bool {
        (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) || (0xFE00...0xFE0F).contains(v)
            || (0x1AB0...0x1AFF).contains(v) || (0x20D0...0x20FF).contains(v) || v == 0x200D || (0xE0100...0xE01EF).contains(v)
    }

    static func isWide(_ v: UInt32) -> Bool {
        (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x1F680...0x1F6FF).contains(v) || (0x20000...0x3FFFD).contains(v)
            || (0x2600...0x26FF).contains(v) && isEmojiPresentation(v)
    }

    static func isEmojiPresentation(_ v: UInt32) -> Bool {
        [0x2614, 0x2615, 0x2648, 0x2649, 0x264A, 0x264B, 0x264C, 0x264D, 0x264E, 0x264F, 0x2650, 0x2651, 0x2652, 0x2653,
         0x267F, 0x2693, 0x26A1, 0x26AA, 0x26AB, 0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2, 0x26F3,
         0x26F5, 0x26FA, 0x26FD].contains(v)
    }

    /// `text` cut to at most `width` cells (with `…` when cut), padded to exactly `width`.
    public static func fit(_ text: String, _ width: Int, alignRight: Bool = false) -> String {
        guard width > 0 else { return "" }
        var w = of(text)
        var s = text
        if w > width {
            var out = ""
            var used = 0
            for ch in text.unicodeScalars {
                let cw = of(ch)
                if used + cw > width - 1 { break }
                out.unicodeScalars.append(ch); used += cw
            }
            s = out + "…"; w = used + 1
        }
        let pad = String(repeating: " ", count: max(0, width - w))
        return alignRight ? pad + s : s + pad
    }
}
