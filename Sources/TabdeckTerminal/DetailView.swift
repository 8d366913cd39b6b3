import TabdeckCore
import TabdeckProtocol

/// Every field of the cursor row, one per line (long values wrap).
enum DetailView {
    static func lines(_ t: TableState) -> [(label: String, value: String)] {
        // The cursor may be on a child row of an expanded row: its own table's columns then.
        guard let row = t.outlineRow(t.cursorPosition) else { return [] }
        let child = t.outlineChild(holding: t.cursorPosition)?.description
        var out: [(String, String)] = []
        for spec in child?.columns ?? t.orderedColumns.map(\.spec) {
            let i = (child.map { d in d.columns.firstIndex { $0.id == spec.id } } ?? t.cellIndex(of: spec.id)) ?? -1
            if row.cut[spec.id] != nil, row.id == t.wholeRow, let whole = t.wholeValues[spec.id] {
                out.append((spec.title, CellText.of(.string(whole), in: spec)))
            } else if let size = row.cut[spec.id] {
                let why = row.id == t.wholeRow ? t.wholeErrors[spec.id].map { "the whole value: \($0)" } : nil
                out.append((spec.title, CellText.of(row, i, in: spec) + " … (the first \(formatCount(i < row.cells.count ? (row.cells[i].stringValue?.utf8.count ?? 0) : 0)) of \(formatCount(size)) bytes"
                            + (why.map { "; " + $0 } ?? "") + ")"))
            } else {
                out.append((spec.title, CellText.of(row, i, in: spec)))
            }
        }
        if let detail = row.detail { out.append(("detail", detail)) }
        if let section = row.section {
            out.append(("section", t.description.sections.first { $0.id == section }?.title ?? section))
        }
        out.append(("row id", row.id))  // not "id": tables often have a column of that title
        return out
    }

    static func draw(_ t: TableState, scroll: Int, into buf: inout ScreenBuffer, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let title = "row \(formatCount(t.view.cursor + 1)) of \(t.totalText)" + TableView.childPosition(t)
        buf.set(x: rect.x + 1, y: rect.y, title, style: Palette.label, maxWidth: rect.width - 1)
        let fields = lines(t)
        guard !fields.isEmpty else {
            if rect.height > 1 { buf.set(x: rect.x + 1, y: rect.y + 1, "…", style: Palette.placeholder) }
            return
        }
        let labelWidth = min(fields.map { TextFit.width($0.label) }.max()!, max(4, rect.width / 3))
        let valueX = rect.x + 1 + labelWidth + 2
        let valueWidth = max(1, rect.maxX - valueX)
        var text: [(label: String, value: String)] = []
        for f in fields {
            for (k, line) in TextFit.wrap(f.value, valueWidth).enumerated() { text.append((k == 0 ? f.label : "", line)) }
        }
        for (i, line) in text.dropFirst(max(0, scroll)).prefix(rect.height - 1).enumerated() {
            let y = rect.y + 1 + i
            buf.set(x: rect.x + 1, y: y, TextFit.fit(line.label, labelWidth), style: Palette.label, maxWidth: labelWidth)
            buf.set(x: valueX, y: y, line.value, maxWidth: valueWidth)
        }
    }
}
