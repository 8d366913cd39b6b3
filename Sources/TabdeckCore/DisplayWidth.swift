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
