import TabdeckCore
import TabdeckProtocol

/// The table of a tab: a header row with sort indicators, then the rows in view, with the row
/// cursor, selection marks and placeholders for rows not fetched yet.
enum TableView {
    /// Cells before the first column: the selection mark and the drill-down mark.
    static let gutter = 2

    /// ` ↑`/` ↓` after a sorted column's title, with the key's position when several keys sort.
    static func sortMark(_ t: TableState, _ column: String) -> String {
        guard let i = t.view.sort.firstIndex(where: { $0.column == column }) else { return "" }
        let arrow = t.view.sort[i].direction == .ascending ? "↑" : "↓"
        return " " + arrow + (t.view.sort.count > 1 ? String(i + 1) : "")
    }

    /// The column layout for a table area `width` cells wide.
    static func layout(_ t: TableState, width: Int, ui: UIState) -> ColumnLayout {
        let columns = t.visibleColumns
        let titles = columns.map { TextFit.width($0.title) + TextFit.width(sortMark(t, $0.id)) }
        let user = columns.map { c in ui.mouse.previewWidth(c.id) ?? t.view.columns.first { $0.id == c.id }?.width }
        return ColumnLayout.make(columns: columns, userWidths: user, titleWidths: titles, width: width - gutter,
                                 scroll: ui.columnScroll, cursor: ui.columnCursor)
    }

    /// The first row shown in `rows` lines: the view's scroll offset, moved to keep the cursor in view.
    static func offset(_ t: TableState, rows: Int) -> Int {
        var offset = max(0, t.view.scrollOffset)
        let cursor = t.view.cursor
        if cursor < offset { offset = cursor }
        if rows > 0 && cursor >= offset + rows { offset = cursor - rows + 1 }
        return max(0, offset)
    }

    /// A line of the table's body.
    enum Line: Equatable {
        /// A section's header, before its first row.
        case header(SectionSpec)
        /// Data row `index` (it may be a placeholder, or past the end).
        case row(Int)
        /// A section's footer, after its last row.
        case footer(SectionSpec)
        /// The compact layout's detail line under the cursor row `index`: the values of the
        /// columns that do not fit (``CompactDetail``).
        case compactDetail(Int)
        /// A row of an expanded row's children (TableView+Outline.swift).
        case child(OutlinePosition)
        /// The cursor row's detail, under it, indented to its depth.
        case detail(String, depth: Int)
        /// Why an expanded row's children could not be shown, under it.
        case childError(String, depth: Int)
    }

    /// The body's lines for `rows` screen lines: data rows from the scroll offset, with section
    /// headers and footers between them. Section lines take room, so the first row shown moves
    /// down as far as needed to keep the cursor's row on screen.
    static func lines(_ t: TableState, rows: Int, detail: Bool = false) -> [Line] {
        if detail || !t.view.expanded.isEmpty || !t.cursorPath.isEmpty { return outlineLines(t, rows: rows, detail: detail) }
        var first = offset(t, rows: rows)
        guard !t.sections.isEmpty else { return (first..<(first + rows)).map { .row($0) } }
        func linesOf(_ i: Int) -> [Line] {
            var out: [Line] = []
            if let s = t.sectionHeader(before: i) { out.append(.header(s)) }
            out.append(.row(i))
            if let s = t.sectionFooter(after: i) { out.append(.footer(s)) }
            return out
        }
        // Lines from the first row through the cursor's row (its footer may be cut off, except
        // the table's last: at the end the last section's footer shows).
        var groups = (first...max(first, t.view.cursor)).map(linesOf)
        let atEnd = t.total.map { t.view.cursor == $0 - 1 } ?? false
        var used = groups.reduce(0) { $0 + $1.count }
            - (atEnd ? 0 : (groups.last!.last.map { if case .footer = $0 { 1 } else { 0 } } ?? 0))
        while used > rows && groups.count > 1 {
            used -= groups.removeFirst().count
            first += 1
        }
        var out = Array(groups.joined())
        var next = first + groups.count
        while out.count < rows {
            if let total = t.total, next >= total { break }
            out += linesOf(next)
            next += 1
        }
        return Array(out.prefix(rows))
    }

    static func alignment(_ a: ColumnAlignment) -> TextFit.Alignment {
        switch a {
        case .left: .left
        case .right: .right
        case .center: .center
        }
    }

    /// Draws the table into `rect`; `layout` is its column layout when the caller has it (nil:
    /// computed here).
    static func draw(_ t: TableState, ui: UIState, layout known: ColumnLayout? = nil, into buf: inout ScreenBuffer, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let columns = t.visibleColumns
        guard !columns.isEmpty else {
            buf.set(x: rect.x + gutter, y: rect.y, "no visible columns (column show COL)", style: Palette.dim, maxWidth: rect.width - gutter)
            return
        }
        let layout = known ?? layout(t, width: rect.width, ui: ui)
        buf.hits.add(.table, rect)
        let x0 = rect.x + gutter
        let cursorColumn = min(max(0, ui.columnCursor), columns.count - 1)
        drawHeader(t, columns, layout, cursorColumn: cursorColumn, into: &buf, x0: x0, rect: rect)
        let rows = rect.height - 1
        guard rows > 0 else { return }
        let cells = columns.map { t.cellIndex(of: $0.id) ?? -1 }
        let find = (ui.find ?? "").isEmpty ? nil : ui.find!.lowercased()
        // The tree and the detail line (expand in place, `v`) or, when neither is on and the
        // columns do not fit, the compact layout's detail line under the cursor row.
        let treeLines = lines(t, rows: rows, detail: ui.showsDetailLine)
        let shown = layout.compact && treeLines == TableView.lines(t, rows: rows) ? CompactDetail.lines(t, layout, rows: rows) : treeLines
        var ordinal = 0  // row lines so far, for the mouse (``RowHit/ordinal``)
        for (r, line) in shown.enumerated() {
            let y = rect.y + 1 + r
            let index: Int
            switch line {
            case .header(let s):
                let title = Sanitizer.clean(s.title) + " "
                let w = buf.set(x: x0, y: y, title, style: Palette.tableSection, maxWidth: rect.maxX - x0)
                if x0 + w < rect.maxX {
                    buf.set(x: x0 + w, y: y, String(repeating: "─", count: rect.maxX - x0 - w), style: Palette.tableFooter)
                }
                continue
            case .footer(let s):
                buf.set(x: x0 + 1, y: y, Sanitizer.clean(s.footer ?? ""), style: Palette.tableFooter, maxWidth: rect.maxX - x0 - 1)
                continue
            case .compactDetail(let i):
                CompactDetail.draw(t, row: i, columns, cells, layout, cursorColumn: cursorColumn, find: find, into: &buf, x0: x0, y: y, rect: rect)
                continue
            case .child(let p):
                drawChild(p, t, columns, layout, find: find, into: &buf, x0: x0, y: y, rect: rect)
                hitRow(p, t, layout, ordinal: ordinal, into: &buf, x0: x0, y: y, rect: rect)
                ordinal += 1
                continue
            case .detail(let text, let depth):
                drawDetail(text, depth: depth, into: &buf, x0: x0, y: y, rect: rect)
                continue
            case .childError(let text, let depth):
                drawDetail("! " + text, depth: depth, style: Palette.error, into: &buf, x0: x0, y: y, rect: rect)
                continue
            case .row(let i):
                index = i
            }
            if let total = t.total, index >= total {
                if index == 0 { buf.set(x: x0, y: y, "no rows", style: Palette.dim, maxWidth: rect.maxX - x0) }
                continue
            }
            if let row = t.cache.row(at: index) {
                drawRow(row, t, columns, cells, layout, find: find, into: &buf, x0: x0, y: y, rect: rect)
            } else {
                buf.set(x: x0, y: y, "…", style: Palette.placeholder)
            }
            hitRow(OutlinePosition(row: index, path: []), t, layout, ordinal: ordinal, into: &buf, x0: x0, y: y, rect: rect)
            ordinal += 1
            if index == t.view.cursor && t.cursorPath.isEmpty {
                buf.restyle(x: rect.x, y: y, count: rect.width) { $0.reverse = true }
            }
        }
    }

    static func drawHeader(_ t: TableState, _ columns: [ColumnSpec], _ layout: ColumnLayout, cursorColumn: Int,
                           into buf: inout ScreenBuffer, x0: Int, rect: Rect) {
        let y = rect.y
        var texts: [String] = []
        for p in layout.placed {
            let column = columns[p.column]
            var mark = sortMark(t, column.id)
            // In a tight column the mark loses its space before it shortens the title.
            if !mark.isEmpty && TextFit.width(column.title) + TextFit.width(mark) > p.width { mark.removeFirst() }
            let markWidth = min(TextFit.width(mark), p.width)
            let title = TextFit.fit(column.title, p.width - markWidth).trimmingTrailingBlanks()
            let text = TextFit.fit(title + mark, p.width, alignment: alignment(column.alignment))
            var style = Palette.header
            if p.column == cursorColumn { style.reverse = true }
            buf.set(x: x0 + p.x, y: y, text, style: style, maxWidth: p.width)
            hitHeader(p, column.id, into: &buf, x0: x0, y: y, rect: rect)
            texts.append(text)
        }
        hitEdges(layout, ids: layout.placed.map { columns[$0.column].id }, texts: texts, into: &buf, x0: x0, y: y, rect: rect)
        if layout.cutLeft, let first = layout.placed.first {
            buf.set(x: x0 + first.x + first.width, y: y, "<", style: Palette.mark)
        }
        if layout.cutRight { buf.set(x: rect.maxX - 1, y: y, ">", style: Palette.mark) }
    }

    static func drawRow(_ row: Row, _ t: TableState, _ columns: [ColumnSpec], _ cells: [Int], _ layout: ColumnLayout,
                        find: String?, into buf: inout ScreenBuffer, x0: Int, y: Int, rect: Rect) {
        if t.view.selection.contains(row.id) { buf.set(x: x0 - gutter, y: y, "*", style: Palette.selectionMark) }
        if row.hasChildren { buf.set(x: x0 - gutter + 1, y: y, t.isExpanded([row.id]) ? "▾" : "▸", style: Palette.mark) }
        func text(_ c: Int) -> String {
            let i = cells[c]
            return CellText.of(row, i, in: columns[c])
        }
        let bars: FrequencyFacts? = if case .frequency(let f)? = t.derived { f } else { nil }
        for p in layout.placed {
            var value = text(p.column)
            if let bars, columns[p.column].id == bars.barColumn {
                value = bars.bar(row, columnCount: t.description.columns.count, width: p.width)
            }
            // The buffer is blank already: only the text is drawn, at its aligned place (no padding).
            let fitted = TextFit.placedText(value, p.width, alignment: alignment(columns[p.column].alignment))
            buf.set(x: x0 + p.x + fitted.offset, y: y, fitted.text, kind: fitted.kind, style: .plain,
                    maxWidth: p.width - fitted.offset)
            if let find {
                FindHighlight.mark(find, value: value, shown: fitted.text, into: &buf, x: x0 + p.x + fitted.offset, y: y,
                                   width: p.width - fitted.offset)
            }
        }
    }
}

extension String {
    func trimmingTrailingBlanks() -> String {
        if ScreenBuffer.isSingleScalarText(self) {
            // Every scalar is its own character: trim the bytes (a space is one byte).
            var end = utf8.endIndex
            while end > utf8.startIndex && utf8[utf8.index(before: end)] == 0x20 { end = utf8.index(before: end) }
            return end == utf8.endIndex ? self : String(self[..<end])
        }
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
