import TabdeckCore
import TabdeckProtocol

/// Fitting sanitized text into a number of cells.
enum TextFit {
    /// Cells `text` takes once sanitized.
    static func width(_ text: String) -> Int {
        if ASCII.isPrintable(text) { return text.utf8.count }
        if ScreenBuffer.isSingleScalarText(text) { return text.unicodeScalars.count }
        var n = 0
        for ch in Sanitizer.clean(text) { n += ScreenBuffer.width(of: ch) }
        return n
    }

    /// `text` (sanitized) cut to `width` cells with `…` when cut, then aligned and padded to exactly `width`.
    static func fit(_ text: String, _ width: Int, alignment: Alignment = .left) -> String {
        guard width > 0 else { return "" }
        if ASCII.isPrintable(text) { return ASCII.fit(text, width, alignment: alignment) }
        let (s, w) = cut(Sanitizer.clean(text), width)
        let pad = max(0, width - w)
        switch alignment {
        case .left: return s + String(repeating: " ", count: pad)
        case .right: return String(repeating: " ", count: pad) + s
        case .center: return String(repeating: " ", count: pad / 2) + s + String(repeating: " ", count: pad - pad / 2)
        }
    }

    enum Alignment { case left, right, center }

    /// Sanitized `clean` text within `width` cells (at least 1): as is when it fits, else cut
    /// on a character boundary with `…`; and the cells it takes.
    static func cut(_ clean: String, _ width: Int) -> (text: String, width: Int) {
        let total = self.width(clean)
        guard total > width else { return (clean, total) }
        var out = ""
        var used = 0
        for ch in clean {
            let cw = ScreenBuffer.width(of: ch)
            if used + cw > width - 1 { break }
            out.append(ch); used += cw
        }
        return (out + "…", used + 1)
    }

    /// `text` cut to `width` cells like ``fit(_:_:alignment:)``, without the padding: the text
    /// and how many cells from the left it starts.
    static func placed(_ text: String, _ width: Int, alignment: Alignment) -> (text: String, offset: Int) {
        let p = placedText(text, width, alignment: alignment)
        return (p.text, p.offset)
    }

    /// ``placed(_:_:alignment:)`` with the kind of the text returned (for
    /// ``ScreenBuffer/set(x:y:_:kind:style:maxWidth:)``).
    static func placedText(_ text: String, _ width: Int, alignment: Alignment)
        -> (text: String, offset: Int, kind: ScreenBuffer.TextKind) {
        guard width > 0 else { return ("", 0, .ascii) }
        let s: String
        let w: Int
        let kind: ScreenBuffer.TextKind
        if ASCII.isPrintable(text) {
            let n = text.utf8.count
            (s, w) = n > width ? (String(decoding: text.utf8.prefix(width - 1), as: UTF8.self) + "…", width) : (text, n)
            kind = n > width ? .singleScalar : .ascii
        } else if ScreenBuffer.isSingleScalarText(text) {
            kind = .singleScalar
            // Nothing to sanitize, one cell per scalar.
            let n = text.unicodeScalars.count
            if n <= width {
                (s, w) = (text, n)
            } else {
                var cut = String.UnicodeScalarView()
                cut.append(contentsOf: text.unicodeScalars.prefix(width - 1))
                (s, w) = (String(cut) + "…", width)
            }
        } else {
            kind = .general
            (s, w) = cut(Sanitizer.clean(text), width)
        }
        switch alignment {
        case .left: return (s, 0, kind)
        case .right: return (s, max(0, width - w), kind)
        case .center: return (s, max(0, width - w) / 2, kind)
        }
    }

    /// `text` broken into lines of at most `width` cells, at spaces when possible; newlines in
    /// `text` break lines, every line is sanitized.
    static func wrap(_ text: String, _ width: Int) -> [String] {
        guard width > 0 else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { wrapLine(String($0), width) }
    }

    private static func wrapLine(_ text: String, _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var used = 0
        for ch in Sanitizer.clean(text) {
            let cw = ScreenBuffer.width(of: ch)
            while used + cw > width && !line.isEmpty {
                if let cut = line.lastIndex(of: " "), cut > line.startIndex {
                    lines.append(String(line[..<cut]))
                    line = String(line[line.index(after: cut)...])
                    used = self.width(line)
                } else {
                    lines.append(line)
                    line = ""; used = 0
                }
            }
            if ch == " " && line.isEmpty && !lines.isEmpty { continue }
            line.append(ch); used += cw
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}

/// Fast paths for the common case of text that is all printable ASCII: one byte, one cell,
/// nothing to sanitize, no grapheme clusters to find (the frame's hot path).
enum ASCII {
    /// Whether every byte of `text` is printable ASCII (space to `~`).
    @inline(__always) static func isPrintable(_ text: String) -> Bool {
        var s = text
        return s.withUTF8 { bytes in
            for b in bytes where b < 0x20 || b >= 0x7F { return false }
            return true
        }
    }

    /// ``TextFit/fit(_:_:alignment:)`` for printable ASCII text.
    static func fit(_ text: String, _ width: Int, alignment: TextFit.Alignment) -> String {
        var s = text
        var w = text.utf8.count
        if w > width {
            s = String(decoding: text.utf8.prefix(width - 1), as: UTF8.self) + "…"
            w = width
        }
        let pad = max(0, width - w)
        if pad == 0 { return s }
        switch alignment {
        case .left: return s + String(repeating: " ", count: pad)
        case .right: return String(repeating: " ", count: pad) + s
        case .center: return String(repeating: " ", count: pad / 2) + s + String(repeating: " ", count: pad - pad / 2)
        }
    }
}
