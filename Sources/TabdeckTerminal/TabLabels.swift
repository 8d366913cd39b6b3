import TabdeckCore
import TabdeckProtocol

/// What the tab bar and the sidebar show for one tab.
struct TabLabel: Hashable {
    var id: String
    var title: String
    var glyph: String?
    var badge: String?
    var failed: Bool
    /// The selected tab (in tab edit mode: the tab under the edit cursor).
    var selected: Bool
    /// Listed in tab edit mode though hidden (drawn dimmed).
    var hidden = false
    /// Drawn for tab edit mode (the cursor tab gets a mark besides its reverse video).
    var editing = false
    /// In tab edit mode, on the first tab of each section: the section's title, which the tab
    /// bar shows before it (the sidebar has headers).
    var sectionStart: String?

    /// The most cells a badge takes (a longer one is cut with `…`).
    static let maxBadge = 6
    /// The most cells a title takes in the tab bar (a longer one ends with `…`).
    static let maxBarTitle = 20

    /// The visible tabs of the workspace, in display order. In ASCII mode, glyphs that are not
    /// ASCII are left out.
    static func visible(_ ws: Workspace, ascii: Bool = false) -> [TabLabel] {
        ws.layout.visibleTabs.compactMap { id in
            guard let config = ws.config.tab(id) else { return nil }
            let state = ws.tabs[id]
            let glyph = config.glyph.flatMap { !ascii || ASCII.isPrintable($0) ? $0 : nil }
            let badge = state?.shownBadge.map { TextFit.cut(Sanitizer.clean($0), maxBadge).text }
            return TabLabel(id: id, title: config.title, glyph: glyph, badge: badge,
                            failed: state?.problem != nil, selected: ws.selectedTab == id)
        }
    }

    /// Every tab in display order, hidden ones included, for tab edit mode: `selected` is the
    /// tab under the edit cursor.
    static func editing(_ ws: Workspace, _ edit: TabEdit, ascii: Bool = false) -> [TabLabel] {
        var previous: String?? = .none
        return ws.layout.orderedTabs.compactMap { id in
            guard let config = ws.config.tab(id) else { return nil }
            let state = ws.tabs[id]
            let section = ws.layout.tabs.first { $0.tab == id }?.section
            defer { previous = .some(section) }
            let starts = previous != .some(section) ? section.map { ws.config.section($0)?.title ?? $0 } : nil
            let glyph = config.glyph.flatMap { !ascii || ASCII.isPrintable($0) ? $0 : nil }
            let badge = state?.shownBadge.map { TextFit.cut(Sanitizer.clean($0), maxBadge).text }
            return TabLabel(id: id, title: config.title, glyph: glyph, badge: badge,
                            failed: state?.problem != nil, selected: edit.cursor == id,
                            hidden: ws.layout.hidden.contains(id), editing: true, sectionStart: starts)
        }
    }

    var badgeStyle: Style { failed ? Palette.failedBadge : Palette.badge }

    /// `title` in at most `width` cells, ending with `…` when cut (no space before it).
    static func shortened(_ title: String, _ width: Int) -> String {
        let (cut, _) = TextFit.cut(Sanitizer.clean(title), width)
        guard cut.hasSuffix("…") else { return cut }
        var kept = Substring(cut.dropLast())
        while kept.last == " " { kept = kept.dropLast() }
        return kept + "…"
    }
}
