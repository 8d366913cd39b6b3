import TabdeckCore

/// What the tab bar and the sidebar show for one tab.
struct TabLabel: Hashable {
    var id: String
    var title: String
    var glyph: String?
    var badge: String?
    var failed: Bool
    var selected: Bool

    /// The visible tabs of the workspace, in display order.
    static func visible(_ ws: Workspace) -> [TabLabel] {
        ws.layout.visibleTabs.compactMap { id in
            guard let config = ws.config.tab(id) else { return nil }
            let state = ws.tabs[id]
            return TabLabel(id: id, title: config.title, glyph: config.glyph, badge: state?.shownBadge,
                            failed: state?.problem != nil, selected: ws.selectedTab == id)
        }
    }

    var badgeStyle: Style { failed ? Palette.failedBadge : Palette.badge }
}
