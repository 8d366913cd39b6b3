import TabdeckCore
import TabdeckProtocol

/// Draws the actions menu, the question before an action and an action's form: a box over
/// the top of the table, its title in the top border and its keys in the bottom one.
enum ActionOverlayView {
    /// The widest box, in cells.
    static let maxWidth = 60

    /// One line inside the box.
    struct Line {
        var text: String
        var style: Style = .plain
        /// Drawn in reverse video across the box (the menu's cursor, the focused field).
        var highlighted = false
    }

    static func draw(_ overlay: ActionOverlay, into buf: inout ScreenBuffer, _ area: Rect) {
        let width = min(maxWidth, area.width - 2)
        guard width >= 12, area.height >= 3 else { return }
        let inner = width - 4
        let (title, body, keys) = content(overlay, inner: inner)
        let lines = Array(body.prefix(area.height - 2))
        let x = area.x + 1, y = area.y + (area.height >= lines.count + 3 ? 1 : 0)
        // The selection marks beside the box would read as part of its border.
        for row in y...(y + 1 + lines.count) { buf.set(x: area.x, y: row, " ") }
        border(title, left: "┌", right: "┐", x: x, y: y, width: width, into: &buf)
        for (i, line) in lines.enumerated() {
            let row = y + 1 + i
            buf.set(x: x, y: row, "│ ", style: Palette.separator)
            buf.set(x: x + 2, y: row, TextFit.fit(line.text, inner), style: line.style, maxWidth: inner)
            if line.highlighted { buf.restyle(x: x + 2, y: row, count: inner) { $0.reverse = true } }
            buf.set(x: x + 2 + inner, y: row, " │", style: Palette.separator)
        }
        border(keys, left: "└", right: "┘", x: x, y: y + 1 + lines.count, width: width, into: &buf)
        hits(overlay, lines: lines.count, into: &buf, x: x, y: y, width: width, inner: inner)
    }

    /// `┌ Title ───┐`, the text cut to fit.
    static func border(_ text: String, left: String, right: String, x: Int, y: Int, width: Int, into buf: inout ScreenBuffer) {
        let label = TextFit.cut(Sanitizer.clean(text), max(1, width - 6))
        let rule = String(repeating: "─", count: max(0, width - 4 - label.width))
        buf.set(x: x, y: y, left + " ", style: Palette.separator)
        buf.set(x: x + 2, y: y, label.text, style: Palette.label)
        buf.set(x: x + 2 + label.width, y: y, " " + rule + right, style: Palette.separator)
    }

    /// The title, the lines and the keys of an overlay, for boxes `inner` cells wide inside.
    static func content(_ overlay: ActionOverlay, inner: Int) -> (String, [Line], String) {
        switch overlay {
        case .menu(let menu):
            let rows = ActionTarget.Summary(menu.target).text
            return ("Actions" + (rows.isEmpty ? "" : " · " + rows), menuLines(menu, inner: inner), "↑↓ Enter runs · Esc closes")
        case .confirm(let question):
            var lines = [Line(text: question.question, style: question.action.destructive ? Palette.error : Palette.label)]
            lines.append(Line(text: confirmNo + StatusLine.separator + confirmYes))
            return (question.action.title, lines, "Esc cancels")
        case .form(let form):
            // Narrow, the keys that end the form stay whole (the border keeps `inner - 2` cells).
            let keys = "Tab next · Enter sends · Esc cancels"
            return (form.action.title, formLines(form, inner: inner),
                    TextFit.width(keys) <= inner - 2 ? keys : "Enter sends · Esc cancels")
        }
    }

    /// One line per action: its title, its hotkey, and the rows it goes to.
    static func menuLines(_ menu: ActionMenu, inner: Int) -> [Line] {
        let countWidth = min(12, max(0, inner - 8))
        let titleWidth = max(1, inner - 2 - 2 - countWidth - 1)
        return menu.actions.enumerated().map { i, action in
            let key = menu.hotkeys[action.id].map(String.init) ?? " "
            let text = (i == menu.cursor ? "▸ " : "  ") + TextFit.fit(action.title, titleWidth) + " " + key + " "
                + TextFit.fit(menu.target.describe(for: action), countWidth, alignment: .right)
            // An action these rows cannot take (one row, several selected) is greyed.
            let style = menu.target.refusal(of: action) != nil ? Palette.dim : action.destructive ? Palette.error : .plain
            return Line(text: text, style: style, highlighted: i == menu.cursor)
        }
    }

    /// One line per field (title, then its value), then the error, if any.
    static func formLines(_ form: ActionForm, inner: Int) -> [Line] {
        let titles = form.action.input.map { Sanitizer.clean($0.title) + ($0.required ? "*" : "") }
        let labelWidth = min(max(4, titles.map(TextFit.width).max() ?? 0), inner / 3)
        let valueWidth = max(1, inner - 2 - labelWidth - 1)
        var lines: [Line] = []
        for (i, field) in form.action.input.enumerated() {
            let focused = i == form.focus
            let value = shown(field, form.values[i], focused: focused, width: valueWidth)
            lines.append(Line(text: (focused ? "▸ " : "  ") + TextFit.fit(titles[i], labelWidth) + " " + value, highlighted: focused))
        }
        if let error = form.error {
            for line in TextFit.wrap("! " + Sanitizer.clean(error.description), inner).prefix(2) { lines.append(Line(text: line, style: Palette.error)) }
        }
        return lines
    }

    /// A field's value as the form shows it: text with a caret when focused (its end kept in
    /// view), `[x] yes` / `[ ] no`, a choice between `◂ ▸`.
    static func shown(_ field: ActionField, _ value: String, focused: Bool, width: Int) -> String {
        switch field.type {
        case .boolean: return value == "true" ? "[x] yes" : "[ ] no"
        case .enumeration: return focused ? "◂ " + Sanitizer.clean(value) + " ▸" : Sanitizer.clean(value)
        case .text, .integer, .number:
            let clean = Sanitizer.clean(value)
            guard focused else { return clean }
            var tail = clean + "▏"
            while TextFit.width(tail) > width, !tail.isEmpty { tail.removeFirst() }
            return tail.count < clean.count + 1 ? "…" + tail.dropFirst() : tail
        }
    }
}

extension ActionTarget {
    /// What the menu's title says the actions go to.
    struct Summary {
        var text: String
        init(_ target: ActionTarget) {
            switch target {
            case .cursor(let id): text = id.map { "row " + Sanitizer.clean($0) } ?? ""
            case .selected(let n, let all): text = all ? (n.map { "all \(formatCount($0)) rows" } ?? "all rows") : "\(formatCount(n ?? 0)) selected"
            }
        }
    }
}
