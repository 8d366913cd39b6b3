import TabdeckCore
import TabdeckProtocol

/// The compact layout's detail line: when the columns do not fit, the table shows its first
/// column plus what fits, and under the cursor row a line with that row's other values
/// (`Status: todo · City: Lyon`), like a compact SwiftUI `Table`.
enum CompactDetail {
    /// The table body's lines for `rows` screen lines: with a compact layout (and room for it),
    /// one line fewer of rows, and the detail line right under the cursor row.
    static func lines(_ t: TableState, _ layout: ColumnLayout, rows: Int) -> [TableView.Line] {
        guard layout.compact, rows >= 2 else { return TableView.lines(t, rows: rows) }
        var out = TableView.lines(t, rows: rows - 1)
        if let at = out.firstIndex(of: .row(t.view.cursor)) { out.insert(.compactDetail(t.view.cursor), at: at + 1) }
        return out
    }

    /// `Title: value` for each column the layout leaves out (indices into `columns`), in order;
    /// an empty value only for the column under the column cursor (`keep`), whose place shows.
    static func segments(_ row: Row, _ columns: [ColumnSpec], _ cells: [Int], _ layout: ColumnLayout,
                         keep: Int? = nil) -> [(column: Int, text: String, value: String)] {
        layout.hidden(count: columns.count).compactMap { c in
            let i = cells[c]
            let value = CellText.of(row, i, in: columns[c])
            guard !value.isEmpty || c == keep else { return nil }
            return (c, Sanitizer.clean(columns[c].title) + ": " + value, value)
        }
    }

    /// Draws the detail line of data row `index` at `y`: the column under the column cursor, when
    /// it is one left out, reversed like its header would be; values containing the find text
    /// highlighted.
    static func draw(_ t: TableState, row index: Int, _ columns: [ColumnSpec], _ cells: [Int], _ layout: ColumnLayout,
                     cursorColumn: Int, find: String?, into buf: inout ScreenBuffer, x0: Int, y: Int, rect: Rect) {
        guard let row = t.cache.row(at: index) else { return }
        var x = x0
        for (k, seg) in segments(row, columns, cells, layout, keep: cursorColumn).enumerated() {
            guard x < rect.maxX else { break }
            if k > 0 { x += buf.set(x: x, y: y, StatusLine.separator, style: Palette.dim, maxWidth: rect.maxX - x) }
            let room = rect.maxX - x
            guard room > 0 else { break }
            var style = Style.plain
            if let find, seg.value.lowercased().contains(find) { style = Palette.found }
            if seg.column == cursorColumn { style.reverse = true }
            x += buf.set(x: x, y: y, TextFit.fit(seg.text, min(room, TextFit.width(seg.text))), style: style, maxWidth: room)
        }
    }
}
