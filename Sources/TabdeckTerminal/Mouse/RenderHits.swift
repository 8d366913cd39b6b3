import TabdeckCore
import TabdeckProtocol

// What the renderer records in the frame's ``HitMap`` while it draws (one helper per view).

extension TableView {
    /// A column's header.
    static func hitHeader(_ p: ColumnLayout.Placed, _ id: String, into buf: inout ScreenBuffer, x0: Int, y: Int, rect: Rect) {
        buf.hits.add(.header(column: p.column, id: id, width: p.width), x: x0 + p.x, y: y, width: p.width)
    }

    /// The edge right of each header (drawn after every header, so it wins where they meet):
    /// the gap cell, marked in grey, widened by the blank cell on either side of it, the end
    /// of this header's padding and the start of the next one's (a right-aligned title leaves
    /// it blank), so a drag from the blank before a header resizes its neighbour.
    static func hitEdges(_ layout: ColumnLayout, ids: [String], texts: [String], into buf: inout ScreenBuffer,
                         x0: Int, y: Int, rect: Rect) {
        for (k, p) in layout.placed.enumerated() {
            let edge = x0 + p.x + p.width
            guard edge < rect.maxX else { continue }
            var from = edge, to = edge
            if p.width > 1, texts[k].last == " " { from -= 1 }
            if k + 1 < layout.placed.count, layout.placed[k + 1].width > 1, texts[k + 1].first == " ", edge + 1 < rect.maxX { to += 1 }
            buf.hits.add(.headerEdge(column: p.column, id: ids[k], width: p.width), x: from, y: y, width: to - from + 1)
            buf.restyle(x: edge, y: y, count: 1) { $0 = Palette.columnEdge }
        }
    }

    /// A row's line: its cells, its selection mark's cell, and its ▸ when it has children.
    static func hitRow(_ p: OutlinePosition, _ t: TableState, _ layout: ColumnLayout, ordinal: Int, into buf: inout ScreenBuffer,
                       x0: Int, y: Int, rect: Rect) {
        let row = p.path.isEmpty ? t.cache.row(at: p.row) : t.outlineRow(p)
        let hit = RowHit(position: p, id: row?.id, ordinal: ordinal, part: .body)
        buf.hits.add(.row(hit), x: rect.x, y: y, width: rect.width)
        var mark = hit
        mark.part = .mark
        buf.hits.add(.row(mark), x: rect.x, y: y, width: 1)
        guard row?.hasChildren == true else { return }
        var expander = hit
        expander.part = .expander
        let x = p.path.isEmpty ? x0 - gutter + 1 : x0 + (layout.placed.first?.x ?? 0) + 2 * p.path.count - 1
        buf.hits.add(.row(expander), x: x, y: y, width: 1)
    }
}

/// The breadcrumb's levels, as drawn: `People > p1 > p1-2`.
enum Breadcrumb {
    static let separator = " > "

    static func hits(_ labels: [String], into buf: inout ScreenBuffer, x: Int, y: Int, width: Int) {
        var at = 0
        for (level, label) in labels.enumerated() {
            let w = TextFit.width(Sanitizer.clean(label))
            let shown = min(w, width - at)
            guard shown > 0 else { return }
            buf.hits.add(.crumb(level: level), x: x + at, y: y, width: shown)
            at += w + separator.count
        }
    }
}

extension ActionOverlayView {
    /// The box, its entries (menu), fields (form) or answers (question).
    static func hits(_ overlay: ActionOverlay, lines: Int, into buf: inout ScreenBuffer, x: Int, y: Int, width: Int, inner: Int) {
        buf.hits.add(.overlay, Rect(x: x, y: y, width: width, height: lines + 2))
        switch overlay {
        case .menu:
            for i in 0..<lines { buf.hits.add(.menuEntry(i), x: x + 2, y: y + 1 + i, width: inner) }
        case .form(let form):
            for i in 0..<min(lines, form.values.count) { buf.hits.add(.formField(i), x: x + 2, y: y + 1 + i, width: inner) }
        case .confirm:
            // The second line: `Enter or n: No · y: Yes`.
            guard lines >= 2 else { return }
            let no = TextFit.width(confirmNo), sep = TextFit.width(StatusLine.separator)
            buf.hits.add(.answer(false), x: x + 2, y: y + 2, width: min(no, inner))
            if no + sep < inner { buf.hits.add(.answer(true), x: x + 2 + no + sep, y: y + 2, width: min(TextFit.width(confirmYes), inner - no - sep)) }
        }
    }

    static let confirmNo = "Enter or n: No"
    static let confirmYes = "y: Yes"
}

extension KeyMap {
    /// The action of each of ``helpEntries``: nil for an entry of several actions (`1–9`).
    var helpActions: [Action?] {
        var out: [(count: Int, action: Action, description: String)] = []
        for b in bindings {
            if let last = out.last, last.description == b.description { out[out.count - 1].count += 1 } else { out.append((1, b.action, b.description)) }
        }
        return out.map { $0.count == 1 ? $0.action : nil }
    }
}
