import TabdeckCore

/// Every key (from the key map) and every command (from the command catalog).
enum HelpView {
    struct Line: Hashable {
        var left: String
        var right: String = ""
        var heading = false
        /// What a click on it does (HelpHits.swift).
        var entry: HelpEntry?
    }

    /// The fewest cells a summary gets beside the keys; narrower, summaries go under them.
    static let minRight = 20

    /// The help lines for `width` cells; a usage too long for the left column has its summary
    /// on the next line, and long summaries wrap. When the summaries would get fewer than
    /// ``minRight`` cells beside the keys (40 columns), each goes under its keys, indented.
    /// Nothing is cut: long usages wrap too.
    static func lines(_ keyMap: KeyMap, width: Int) -> (lines: [Line], leftWidth: Int) {
        var all = [Line(left: "Keys", heading: true)]
        all += zip(keyMap.helpEntries, keyMap.helpActions).map { Line(left: "  " + $0.0.keys, right: $0.0.description, entry: $0.1.map(HelpEntry.action)) }
        all.append(Line(left: ""))
        all.append(Line(left: "Tab edit mode (T)", heading: true))
        all += TabEditKeys.bindings.map { Line(left: "  " + KeyMap.label($0.keys), right: $0.description) }
        all.append(Line(left: ""))
        all.append(Line(left: "Commands (type : first)", heading: true))
        all += CommandParser.catalog.map { Line(left: "  " + $0.usage, right: $0.summary, entry: .command($0.name)) }
        let columns = min(30, all.filter { !$0.heading }.map { TextFit.width($0.left) }.max() ?? 0) + 2
        let stacked = width - 1 - columns < minRight
        let leftWidth = stacked ? 4 : columns
        let rightWidth = max(1, width - 1 - leftWidth)
        var out: [Line] = []
        for line in all {
            var left = line.left
            if !line.right.isEmpty && (stacked || TextFit.width(line.left) + 2 > leftWidth) {
                // The keys (or usage) on their own line(s), wrapped with an indent.
                for (k, part) in TextFit.wrap(line.left, max(1, width - 1)).enumerated() {
                    out.append(Line(left: k == 0 ? part : "    " + part, heading: line.heading, entry: line.entry))
                }
                left = ""
            }
            if line.right.isEmpty {
                out.append(line)
                continue
            }
            for (k, part) in TextFit.wrap(line.right, rightWidth).enumerated() {
                out.append(Line(left: k == 0 ? left : "", right: part, entry: line.entry))
            }
        }
        return (out, leftWidth)
    }

    static func draw(_ keyMap: KeyMap, scroll: Int, into buf: inout ScreenBuffer, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let (all, leftWidth) = lines(keyMap, width: rect.width)
        let top = max(0, min(scroll, all.count - rect.height))
        for (i, line) in all.dropFirst(top).prefix(rect.height).enumerated() {
            let y = rect.y + i
            buf.hits.add(.help(line.entry), x: rect.x, y: y, width: rect.width)
            buf.set(x: rect.x + 1, y: y, line.left, style: line.heading ? Palette.sectionHeader : Palette.label, maxWidth: rect.width - 1)
            if !line.right.isEmpty {
                buf.set(x: rect.x + 1 + leftWidth, y: y, line.right, maxWidth: rect.width - 1 - leftWidth)
            }
        }
    }
}
