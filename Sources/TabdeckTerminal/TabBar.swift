import TabdeckCore
import TabdeckProtocol

/// The one-line tab bar of narrow terminals: no section headers, scrolled so the selected tab
/// is visible, with `<` and `>` where tabs are cut off.
enum TabBar {
    /// ` ◆ Title 3 `: the text of one tab's item.
    static func item(_ tab: TabLabel) -> String {
        // In tab edit mode the cursor's item is in brackets, hidden tabs say so, and the first
        // tab of a section has the section's title before it.
        let cursor = tab.editing && tab.selected
        var s = sectionPrefix(tab) + (cursor ? "[" : " ")
        if let glyph = tab.glyph { s += glyph + " " }
        s += TabLabel.shortened(tab.title, TabLabel.maxBarTitle)
        if tab.hidden { s += " (" + TabEditView.hiddenMark + ")" } else if let badge = tab.badge { s += " " + badge }
        return s + (cursor ? "]" : " ")
    }

    /// ` System:` before the first tab of a section in tab edit mode, else nothing.
    static func sectionPrefix(_ tab: TabLabel) -> String {
        tab.sectionStart.map { " " + $0 + ":" } ?? ""
    }

    /// The first and last item shown in `width` cells, and whether marks are needed.
    static func window(_ widths: [Int], selected: Int, width: Int) -> (first: Int, last: Int) {
        guard !widths.isEmpty else { return (0, -1) }
        if widths.reduce(0, +) <= width { return (0, widths.count - 1) }
        func last(from first: Int) -> Int {
            let room = width - (first > 0 ? 1 : 0)
            var used = 0
            var last = first - 1
            for i in first..<widths.count {
                let markRight = i < widths.count - 1 ? 1 : 0
                if used + widths[i] + markRight > room { break }
                used += widths[i]; last = i
            }
            return max(first, last)  // an item wider than the bar is shown cut
        }
        var first = 0
        while first < selected && last(from: first) < selected { first += 1 }
        return (first, last(from: first))
    }

    static func draw(_ ws: Workspace, edit: TabEdit? = nil, ascii: Bool = false, into buf: inout ScreenBuffer, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let tabs = edit.map { TabLabel.editing(ws, $0, ascii: ascii) } ?? TabLabel.visible(ws, ascii: ascii)
        let items = tabs.map(item)
        let widths = items.map(TextFit.width)
        let selected = tabs.firstIndex { $0.selected } ?? 0
        let (first, last) = window(widths, selected: selected, width: rect.width)
        guard last >= first else { return }
        var x = rect.x
        if first > 0 { buf.set(x: x, y: rect.y, "<", style: Palette.mark); x += 1 }
        let end = rect.maxX - (last < tabs.count - 1 ? 1 : 0)
        for i in first...last {
            let tab = tabs[i]
            let base: Style = tab.selected ? Style(bold: true, reverse: true) : tab.hidden ? Palette.dim : .plain
            let room = end - x
            let text = TextFit.fit(items[i], min(widths[i], room))
            let start = x
            x += buf.set(x: x, y: rect.y, text, style: base, maxWidth: room)
            buf.hits.add(.tab(tab.id), x: start, y: rect.y, width: x - start)
            let prefix = min(TextFit.width(sectionPrefix(tab)), x - start)
            if prefix > 0 { buf.restyle(x: start, y: rect.y, count: prefix) { $0 = Palette.sectionHeader } }
            // The badge is the item's last word; colour it when the item is shown whole.
            if let badge = tab.badge, !tab.hidden, text == items[i] {
                let offset = widths[i] - 1 - TextFit.width(badge)
                var style = tab.badgeStyle
                style.reverse = tab.selected
                buf.restyle(x: start + offset, y: rect.y, count: TextFit.width(badge)) { $0 = style }
            }
        }
        if last < tabs.count - 1 { buf.set(x: rect.maxX - 1, y: rect.y, ">", style: Palette.mark) }
    }
}
