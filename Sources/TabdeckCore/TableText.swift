import TabdeckProtocol

/// Cell values as text.
public enum CellText {
    /// The text of a cell: numbers plainly, booleans as true/false, null as empty, strings sanitized.
    public static func of(_ cell: JSONValue) -> String {
        switch cell {
        case .null: ""
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .string(let s): Sanitizer.clean(s)
        case .array, .object: Sanitizer.clean(JSONWriter.string(cell))
        }
    }

    /// The text of `row`'s cell at `index` (in the plugin's cell order) of `column`, as
    /// ``of(_:in:)``; a cell the plugin sent cut (PROTOCOL.md 10.5, `cut`) after a marker of its
    /// whole size, so that its first part is never taken for the whole value.
    public static func of(_ row: Row, _ index: Int, in column: ColumnSpec) -> String {
        guard index >= 0, index < row.cells.count else { return "" }
        let text = of(row.cells[index], in: column)
        guard let size = row.cut[column.id] else { return text }
        return cutMarker(size) + text
    }

    /// `[cut: 5,242,880 bytes] `: the mark before the first part of a cut cell.
    public static func cutMarker(_ size: Int) -> String { "[cut: \(formatCount(size)) bytes] " }

    /// The text of a cell of `column`: numbers of a decimal column with its `decimals` (if it
    /// gives them) digits after the point, everything else as ``of(_:)``. A number sent as text
    /// in an integer or decimal column (PROTOCOL.md 10.3, *Exact numbers*) is shown as sent, its
    /// digits padded or rounded on the text itself with `decimals` (``ExactNumber``); so is a
    /// JSON integer (exactly, past a double's 53 bits).
    public static func of(_ cell: JSONValue, in column: ColumnSpec) -> String {
        switch cell {
        case .string(let s):
            guard let number = ExactNumber(s, type: column.type) else { return of(cell) }
            return column.decimals.map { number.rounded(toDecimals: $0) } ?? number.text
        case .double(let d):
            return column.decimals.map { fixed(d, $0) } ?? of(cell)
        case .int(let i):
            return column.decimals.map { ExactNumber(i).rounded(toDecimals: $0) } ?? of(cell)
        default:
            return of(cell)
        }
    }

    /// `d` with exactly `decimals` digits after the point: scaled, then rounded half away from
    /// zero (`2.675` shows as `2.68`, as a person rounds the number the plugin wrote, where
    /// printf's exact binary value gives `2.67`), without Foundation's formatter (this runs for
    /// every shown cell of every frame). Very large values, NaN and the infinities fall back to
    /// their plain text.
    public static func fixed(_ d: Double, _ decimals: Int) -> String {
        let digits = min(max(decimals, 0), ColumnSpec.maxDecimals)
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(d) * scale).rounded()
        guard d.isFinite, scaled < 9e18 else { return of(.double(d)) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = (d < 0 && units != 0) ? "-" : ""
        text += String(units / divisor)
        guard digits > 0 else { return text }
        let fraction = String(units % divisor)
        text += "."
        text += String(repeating: "0", count: digits - fraction.count)
        text += fraction
        return text
    }
}

/// Rows printed as a text table (line mode's `show`).
enum TableText {
    static let maxAutoWidth = 40

    static func rows(_ t: TableState, from start: Int, count: Int) -> CommandOutput {
        let columns = t.visibleColumns
        let indices = columns.map { t.cellIndex(of: $0.id)! }
        var rows: [Row] = []
        var index = start
        while index < start + count, let row = t.cache.row(at: index) { rows.append(row); index += 1 }
        let texts = rows.map { row in
            zip(indices, columns).map { i, column in i < row.cells.count ? CellText.of(row.cells[i], in: column) : "" }
        }
        var widths = columns.map { DisplayWidth.of(Sanitizer.clean($0.title) + sortMark(t, $0.id)) }
        for (c, column) in columns.enumerated() {
            if let custom = t.view.columns.first(where: { $0.id == column.id })?.width {
                widths[c] = custom
            } else if case .fixed(let n)? = column.width {
                widths[c] = n
            } else {
                for r in texts { widths[c] = max(widths[c], min(maxAutoWidth, DisplayWidth.of(r[c]))) }
            }
        }
        func line(_ cells: [String], mark: String) -> String {
            var parts: [String] = []
            for (c, text) in cells.enumerated() {
                let right = columns[c].alignment == .right
                parts.append(DisplayWidth.fit(text, widths[c], alignRight: right))
            }
            return (mark + " " + parts.joined(separator: "  ")).trimmingTrailingSpaces()
        }
        var lines = [line(columns.map { Sanitizer.clean($0.title) + sortMark(t, $0.id) }, mark: " ")]
        lines.append("  " + widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
        // A section's title above its first row and its footer under its last, as the screen
        // shows them.
        let ruleWidth = 2 + widths.reduce(0, +) + 2 * max(0, widths.count - 1)
        for (r, row) in rows.enumerated() {
            if let s = t.sectionHeader(before: start + r) {
                let title = "  " + Sanitizer.clean(s.title) + " "
                lines.append(title + String(repeating: "─", count: max(2, ruleWidth - DisplayWidth.of(title))))
            }
            lines.append(line(texts[r], mark: t.view.selection.contains(row.id) ? "*" : " "))
            if let s = t.sectionFooter(after: start + r), let footer = s.footer, !footer.isEmpty {
                lines.append("   " + Sanitizer.clean(footer))
            }
        }
        let shown = rows.isEmpty ? "no rows" : "rows \(formatCount(start + 1))–\(formatCount(start + rows.count)) of \(t.totalText)"
        var footer = [shown]
        if let filter = t.view.filter { footer.append("filter \"\(Sanitizer.clean(filter))\"") }
        if !t.view.where.isEmpty { footer.append("where \(WhereText.shown(t.view.where))") }
        if !t.view.sort.isEmpty { footer.append("sorted by \(SortOrder.describe(t.view.sort))") }
        let selected = t.view.selection.summary(total: t.total)
        if !selected.isEmpty { footer.append(selected) }
        lines.append(footer.joined(separator: " · "))
        var json: JSONObject = [
            "table": .string(t.label), "offset": .int(Int64(start)), "total": t.totalJSON,
            "columns": .array(columns.map { .string($0.id) }),
            "sort": .array(t.view.sort.map(\.json)),
            "rows": .array(rows.map { row in
                var cells = JSONObject()
                for (c, column) in columns.enumerated() { cells[column.id] = indices[c] < row.cells.count ? row.cells[indices[c]] : .null }
                return ["id": .string(row.id), "cells": .object(cells), "selected": .bool(t.view.selection.contains(row.id))]
            }),
        ]
        t.markEstimate(&json)
        return CommandOutput(text: lines.joined(separator: "\n"), json: .object(json))
    }

    /// ` ↑`/` ↓` after a sorted column's title, with the key's position when several keys sort.
    static func sortMark(_ t: TableState, _ column: String) -> String {
        guard let i = t.view.sort.firstIndex(where: { $0.column == column }) else { return "" }
        let arrow = t.view.sort[i].direction == .ascending ? "↑" : "↓"
        return " " + arrow + (t.view.sort.count > 1 ? String(i + 1) : "")
    }
}

/// `1234567` as `1,234,567`.
public func formatCount(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, ch) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(ch)
    }
    return n < 0 ? "-" + out : out
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
