import TabdeckCore

/// The sidebar of wide terminals: section headers with their tabs under them.
enum Sidebar {
    enum Line: Hashable {
        case blank
        case header(String, id: String)
        case tab(TabLabel)
    }

    /// Tabs without a section first, then each section with a header; empty sections are left
    /// out. In tab edit mode (`edit`), hidden tabs and empty sections are listed too.
    static func lines(_ ws: Workspace, edit: TabEdit? = nil, ascii: Bool = false) -> [Line] {
        let labels = Dictionary(uniqueKeysWithValues: (edit.map { TabLabel.editing(ws, $0, ascii: ascii) } ?? TabLabel.visible(ws, ascii: ascii)).map { ($0.id, $0) })
        var lines: [Line] = []
        let loose = ws.layout.tabs.filter { $0.section == nil }.compactMap { labels[$0.tab] }
        lines += loose.map { .tab($0) }
        for section in ws.layout.sections {
            let tabs = ws.layout.tabs.filter { $0.section == section }.compactMap { labels[$0.tab] }
            if tabs.isEmpty && edit == nil { continue }
            if !lines.isEmpty { lines.append(.blank) }
            lines.append(.header(ws.config.section(section)?.title ?? section, id: section))
            lines += tabs.map { .tab($0) }
        }
        return lines
    }

    /// Draws the sidebar in `rect` (its right edge is a separator line).
    /// `scroll` is the first line shown when the wheel scrolled the sidebar (nil: the lines that
    /// show the selected tab).
    static func draw(_ ws: Workspace, edit: TabEdit? = nil, ascii: Bool = false, scroll: Int? = nil, into buf: inout ScreenBuffer, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let lines = lines(ws, edit: edit, ascii: ascii)
        let width = rect.width - 1
        // The glyph column is as wide as the widest glyph (titles stay aligned), and so is the
        // badge column as wide as the widest badge: every title gets the same room.
        let glyphs = lines.map { if case .tab(let t) = $0, let g = t.glyph { min(2, TextFit.width(g)) } else { 0 } }.max() ?? 0
        let badges = lines.map { if case .tab(let t) = $0, let b = t.badge { TextFit.width(b) } else { 0 } }.max() ?? 0
        // Scroll so the selected tab is visible.
        let selected = lines.firstIndex { if case .tab(let t) = $0 { t.selected } else { false } } ?? 0
        let most = max(0, lines.count - rect.height)
        let top = scroll.map { min(max(0, $0), most) } ?? max(0, min(selected - rect.height + 1, most))
        buf.hits.add(.sidebar(top: top, lines: lines.count, height: rect.height), rect)
        for (row, line) in lines.dropFirst(top).prefix(rect.height).enumerated() {
            let y = rect.y + row
            switch line {
            case .blank: break
            case .header(let title, let id):
                buf.set(x: rect.x + 1, y: y, title, style: Palette.sectionHeader, maxWidth: width - 1)
                buf.hits.add(.section(id), x: rect.x, y: y, width: width)
            case .tab(let tab):
                drawTab(tab, glyphs: glyphs, badges: badges, into: &buf, x: rect.x, y: y, width: width)
                buf.hits.add(.tab(tab.id), x: rect.x, y: y, width: width)
            }
        }
        for y in rect.y..<rect.maxY { buf.set(x: rect.maxX - 1, y: y, "│", style: Palette.separator) }
    }

    /// `  ◆ Title        3 ` with the badge right-aligned in a column `badges` wide (a long title
    /// ends with `…` before it); the selected tab reversed.
    static func drawTab(_ tab: TabLabel, glyphs: Int, badges: Int, into buf: inout ScreenBuffer, x: Int, y: Int, width: Int) {
        let base: Style = tab.selected ? Style(reverse: true) : .plain
        buf.fill(x: x, y: y, count: width, style: base)
        var cx = x + 2
        if glyphs > 0 {
            buf.set(x: cx, y: y, TextFit.fit(tab.glyph ?? "", glyphs), style: base, maxWidth: glyphs)
            cx += glyphs + 1
        }
        if tab.editing && tab.selected { buf.set(x: x, y: y, "›", style: base) }
        var badgeWidth = badges > 0 ? badges + 1 : 0
        if tab.hidden {
            badgeWidth = max(badgeWidth, TabEditView.hiddenMark.count + 1)
            buf.set(x: x + width - 1 - TabEditView.hiddenMark.count, y: y, TabEditView.hiddenMark, style: tab.selected ? base : Palette.dim)
        } else if let badge = tab.badge {
            var style = tab.badgeStyle
            style.reverse = tab.selected
            buf.set(x: x + width - 1 - TextFit.width(badge), y: y, badge, style: style, maxWidth: badges)
        }
        let room = x + width - badgeWidth - cx - 1
        let titleStyle = tab.selected ? base.emphasized : tab.hidden ? Palette.dim : base
        buf.set(x: cx, y: y, TabLabel.shortened(tab.title, max(1, room)), style: titleStyle, maxWidth: max(0, room))
    }
}
