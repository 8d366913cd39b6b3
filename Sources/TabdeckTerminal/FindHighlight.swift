/// The find's matches in a cell as drawn: the cells of each place the (lowercased) find text
/// occurs in the shown text, ignoring case. A cell whose match was cut off (the shown text
/// ends in `…` before it) is highlighted whole, so the row still says why it matched.
enum FindHighlight {
    /// Cell ranges (offset from the text's first cell, count) of each match in `shown`.
    static func ranges(of find: String, in shown: String) -> [(offset: Int, count: Int)] {
        let needle = Array(find)
        guard !needle.isEmpty else { return [] }
        let chars = Array(shown)
        let lowered = chars.map { Array(String($0).lowercased()) }
        var cellAt = [0]
        for c in chars { cellAt.append(cellAt.last! + ScreenBuffer.width(of: c)) }
        var out: [(Int, Int)] = []
        var i = 0
        while i < chars.count {
            var k = i, matched: [Character] = []
            while k < chars.count, matched.count < needle.count {
                matched += lowered[k]
                k += 1
            }
            if matched.starts(with: needle), matched.count == needle.count {
                out.append((cellAt[i], cellAt[k] - cellAt[i]))
                i = k
            } else {
                i += 1
            }
        }
        return out
    }

    /// Draws the matches of `find` in a cell whose text `value` contains it, shown as `shown`
    /// from cell `x`, `width` cells wide at most.
    static func mark(_ find: String, value: String, shown: String, into buf: inout ScreenBuffer, x: Int, y: Int, width: Int) {
        guard value.lowercased().contains(find) else { return }
        let found = ranges(of: find, in: shown)
        if found.isEmpty {
            buf.restyle(x: x, y: y, count: min(width, TextFit.width(shown))) { $0 = Palette.found }
            return
        }
        for r in found { buf.restyle(x: x + r.offset, y: y, count: min(r.count, width - r.offset)) { $0 = Palette.found } }
    }
}
