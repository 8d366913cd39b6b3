import TabdeckCore
import TabdeckProtocol

/// Expanded rows and the detail line: the children of an expanded row are lines under it,
/// indented two cells per level with ▸ (collapsed) or ▾ (expanded) before rows that have
/// children; the cursor row's detail goes on a line under it.
extension TableView {
    /// Lines collected for one top-level row and what hangs under it, up to `cap` lines.
    struct Emitter {
        var lines: [Line] = []
        /// The index of the cursor's last line (its detail line, if shown), once emitted.
        var cursorEnd: Int?
        var cap: Int
        var full: Bool { lines.count >= cap }
    }

    /// The body's lines when rows are expanded or the detail line is on: as ``lines(_:rows:detail:)``
    /// (whole groups of a row, its section lines and its children, are dropped from the top to
    /// keep the cursor's line on screen; a group taller than the screen is cut at the top).
    /// Only the rows that can be on screen are visited, however many children a row has.
    static func outlineLines(_ t: TableState, rows: Int, detail: Bool) -> [Line] {
        guard rows > 0 else { return [] }
        let cursor = t.cursorPosition
        let note = detail ? t.outlineRow(cursor)?.detail.flatMap { $0.isEmpty ? nil : $0 } : nil
        func group(_ i: Int, cap: Int) -> Emitter {
            var em = Emitter(cap: cap)
            if let s = t.sectionHeader(before: i) { em.lines.append(.header(s)) }
            em.lines.append(.row(i))
            let rowLine = em.lines.count - 1
            if i == cursor.row && cursor.path.isEmpty { reachedCursor(&em, note: note, depth: 0, rows: rows) }
            if let id = t.cache.row(at: i)?.id { subtree(t, i, [id], [], cursor, note, rows, &em) }
            if i == cursor.row && em.cursorEnd == nil { em.cursorEnd = rowLine }  // its rows above are not loaded
            if !em.full, let s = t.sectionFooter(after: i) { em.lines.append(.footer(s)) }
            return em
        }
        var first = offset(t, rows: rows)
        var groups: [[Line]] = []
        var used = 0
        for i in first...max(first, cursor.row) {
            let em = group(i, cap: i == cursor.row ? Int.max : rows + 1)
            used += i == cursor.row ? (em.cursorEnd ?? 0) + 1 : em.lines.count
            groups.append(em.lines)
        }
        while used > rows && groups.count > 1 {
            used -= groups.removeFirst().count
            first += 1
        }
        var out = Array(groups.joined())
        if used > rows { out.removeFirst(used - rows) }
        var next = first + groups.count
        while out.count < rows {
            if let total = t.total, next >= total { break }
            out += group(next, cap: rows - out.count).lines
            next += 1
        }
        return Array(out.prefix(rows))
    }

    private static func reachedCursor(_ em: inout Emitter, note: String?, depth: Int, rows: Int) {
        if let note { em.lines.append(.detail(note, depth: depth)) }
        em.cursorEnd = em.lines.count - 1
        em.cap = em.lines.count + rows
    }

    /// The lines of the children of the row with `ids` (at `prefix` under top-level row `row`),
    /// depth first. Where the cursor is inside, the children more than a screen above it are
    /// skipped: they could not be on screen.
    private static func subtree(_ t: TableState, _ row: Int, _ ids: [String], _ prefix: [Int], _ cursor: OutlinePosition,
                                _ note: String?, _ rows: Int, _ em: inout Emitter) {
        if t.isExpanded(ids), let failure = t.outline[ids]?.failure, !em.full {
            em.lines.append(.childError(failure + " (r retries)", depth: prefix.count + 1))
        }
        let count = t.childLines(ids)
        guard count > 0 else { return }
        var start = 0
        if cursor.row == row, cursor.path.count > prefix.count, Array(cursor.path.prefix(prefix.count)) == prefix {
            start = min(count, max(0, cursor.path[prefix.count] - rows))
        }
        for k in start..<count {
            if em.full { return }
            let p = OutlinePosition(row: row, path: prefix + [k])
            em.lines.append(.child(p))
            if p == cursor { reachedCursor(&em, note: note, depth: p.path.count, rows: rows) }
            if let id = t.outline[ids]?.cache.row(at: k)?.id { subtree(t, row, ids + [id], p.path, cursor, note, rows, &em) }
        }
    }

    /// A child row: its marker and cells under the table's columns (matched by column id) when
    /// every column of its table is one of this table's; otherwise all its cells folded into
    /// one line from the first column (`1234 · python3 · S · 0.12`), so none is lost.
    static func drawChild(_ p: OutlinePosition, _ t: TableState, _ columns: [ColumnSpec], _ layout: ColumnLayout,
                          find: String?, into buf: inout ScreenBuffer, x0: Int, y: Int, rect: Rect) {
        let depth = p.path.count
        defer {
            if p == t.cursorPosition { buf.restyle(x: rect.x, y: y, count: rect.width) { $0.reverse = true } }
        }
        guard let row = t.outlineRow(p), let ids = t.outlineIDs(p) else {
            buf.set(x: x0 + 2 * depth, y: y, "…", style: Palette.placeholder)
            return
        }
        let own = t.outlineChild(holding: p)?.description?.columns ?? []
        let cells = columns.map { c in own.firstIndex { $0.id == c.id } ?? -1 }
        func text(_ c: Int) -> String {
            let i = cells[c]
            return CellText.of(row, i, in: columns[c])
        }
        let marker = row.hasChildren ? (t.isExpanded(ids) ? "▾" : "▸") : " "
        let indent = String(repeating: " ", count: 2 * depth - 1) + marker
        guard let firstPlaced = layout.placed.first else { return }
        let parentColumns = Set(t.description.columns.map(\.id))
        let fold = own.contains { !parentColumns.contains($0.id) } || cells.allSatisfy { $0 < 0 }
        if layout.compact || fold {
            let folded = fold
                ? own.indices.map { i in CellText.of(row, i, in: own[i]) }.joined(separator: " · ")
                : columns.indices.map(text).joined(separator: " · ")
            let width = layout.compact ? firstPlaced.width : rect.maxX - x0
            buf.set(x: x0 + firstPlaced.x, y: y, TextFit.fit(indent + folded, width), style: .plain, maxWidth: width)
            return
        }
        for placed in layout.placed {
            var value = text(placed.column)
            var alignment = alignment(columns[placed.column].alignment)
            if placed.column == firstPlaced.column { value = indent + value; alignment = .left }
            let fitted = TextFit.placedText(value, placed.width, alignment: alignment)
            buf.set(x: x0 + placed.x + fitted.offset, y: y, fitted.text, kind: fitted.kind, style: .plain,
                    maxWidth: placed.width - fitted.offset)
            if let find {
                FindHighlight.mark(find, value: value, shown: fitted.text, into: &buf, x: x0 + placed.x + fitted.offset, y: y,
                                   width: placed.width - fitted.offset)
            }
        }
        if row.hasChildren {
            buf.restyle(x: x0 + firstPlaced.x + 2 * depth - 1, y: y, count: 1) { $0 = Palette.mark }
        }
    }

    /// Where the cursor is among the rows of the child table it is in, for the status line
    /// (` › 2 of 5`; empty on a top-level row).
    static func childPosition(_ t: TableState) -> String {
        let p = t.cursorPosition
        guard let k = p.path.last else { return "" }
        let total = t.outlineChild(holding: p)?.total.map(formatCount) ?? "?"
        return " › \(formatCount(k + 1)) of \(total)"
    }

    /// The cursor row's detail line (or a child table's error), under its text.
    static func drawDetail(_ text: String, depth: Int, style: Style = Palette.dim, into buf: inout ScreenBuffer,
                           x0: Int, y: Int, rect: Rect) {
        let x = x0 + 2 * depth + 1
        guard x < rect.maxX else { return }
        buf.set(x: x, y: y, Sanitizer.clean(text), style: style, maxWidth: rect.maxX - x)
    }
}
