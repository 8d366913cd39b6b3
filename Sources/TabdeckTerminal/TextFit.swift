import TabdeckCore

/// Fitting sanitized text into a number of cells.
enum TextFit {
    /// Cells `text` takes once sanitized.
    static func width(_ text: String) -> Int {
        var n = 0
        for ch in Sanitizer.clean(text) { n += ScreenBuffer.width(of: ch) }
        return n
    }

    /// `text` (sanitized) cut to `width` cells with `…` when cut, then aligned and padded to exactly `width`.
    static func fit(_ text: String, _ width: Int, alignment: Alignment = .left) -> String {
        guard width > 0 else { return "" }
        let clean = Sanitizer.clean(text)
        var s = clean
        var w = self.width(clean)
        if w > width {
            var out = ""
            var used = 0
            for ch in clean {
                let cw = ScreenBuffer.width(of: ch)
                if used + cw > width - 1 { break }
                out.append(ch); used += cw
            }
            s = out + "…"; w = used + 1
        }
        let pad = max(0, width - w)
        switch alignment {
        case .left: return s + String(repeating: " ", count: pad)
        case .right: return String(repeating: " ", count: pad) + s
        case .center: return String(repeating: " ", count: pad / 2) + s + String(repeating: " ", count: pad - pad / 2)
        }
    }

    enum Alignment { case left, right, center }

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
