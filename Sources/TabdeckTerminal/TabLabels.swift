import TabdeckCore

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

    /// The visible tabs of the workspace, in display order.
    static func visible(_ ws: Workspace) -> [TabLabel] {
        ws.layout.visibleTabs.compactMap { id in
            guard let config = ws.config.tab(id) else { return nil }
            let state = ws.tabs[id]
            return TabLabel(id: id, title: config.title, glyph: config.glyph, badge: state?.shownBadge,
                            failed: state?.problem != nil, selected: ws.selectedTab == id)
        }
    }

    /// Every tab in display order, hidden ones included, for tab edit mode: `selected` is the
    /// tab under the edit cursor.
    static func editing(_ ws: Workspace, _ edit: TabEdit) -> [TabLabel] {
        ws.layout.orderedTabs.compactMap { id in
            guard let config = ws.config.tab(id) else { return nil }
            let state = ws.tabs[id]
            return TabLabel(id: id, title: config.title, glyph: config.glyph, badge: state?.shownBadge,
                            failed: state?.problem != nil, selected: edit.cursor == id,
                            hidden: ws.layout.hidden.contains(id), editing: true)
        }
    }

    var badgeStyle: Style { failed ? Palette.failedBadge : Palette.badge }
}
