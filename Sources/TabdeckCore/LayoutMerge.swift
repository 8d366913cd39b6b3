/// Merging the stored layout with the tabs and sections of config.json.
public enum LayoutMerge {
    /// The layout for `config`, keeping the stored order of everything that still exists.
    ///
    /// - Tabs and sections gone from config are dropped (their stored view state is kept by the store).
    /// - A tab new in config is inserted right after the tab that precedes it in config (or first),
    ///   so it appears at its config position relative to its neighbours.
    /// - A tab whose stored section no longer exists goes back to its config section.
    /// - Non-customizable tabs keep their config section and are never hidden.
    /// - Tabs opened from the command line (``WorkspaceConfig/opened``) come first, in their
    ///   section, and the first of them is selected; the stored layout never holds them.
    public static func merge(stored: WorkspaceLayout?, config: WorkspaceConfig) -> WorkspaceLayout {
        guard !config.opened.isEmpty else { return mergeConfigured(stored: stored, config: config) }
        var layout = mergeConfigured(stored: stored.map { saved($0, config: config) }, config: config.withoutOpened)
        if let section = config.openedSection { layout.sections.insert(section, at: 0) }
        layout.tabs.insert(contentsOf: config.opened.map { .init(tab: $0, section: config.openedSection) }, at: 0)
        layout.selected = config.opened[0]
        return layout.withValidSelection()
    }

    /// `layout` as the store keeps it: without the tabs opened from the command line and their section.
    public static func saved(_ layout: WorkspaceLayout, config: WorkspaceConfig) -> WorkspaceLayout {
        guard !config.opened.isEmpty else { return layout }
        var copy = layout
        let opened = Set(config.opened)
        copy.tabs.removeAll { opened.contains($0.tab) }
        copy.sections.removeAll { $0 == config.openedSection }
        copy.hidden.subtract(opened)
        if let s = copy.selected, opened.contains(s) { copy.selected = nil }
        return copy
    }

    static func mergeConfigured(stored: WorkspaceLayout?, config: WorkspaceConfig) -> WorkspaceLayout {
        let fresh = defaultLayout(config)
        guard let stored else { return fresh }
        let configTabs = Set(config.tabs.map(\.id))
        let configSections = Set(config.sections.map(\.id))

        var sections = stored.sections.filter { configSections.contains($0) }
        for (i, s) in config.sections.enumerated() where !sections.contains(s.id) {
            // Insert after the section that precedes it in config.
            let before = config.sections[..<i].last { sections.contains($0.id) }
            let at = before.flatMap { b in sections.firstIndex(of: b.id).map { $0 + 1 } } ?? 0
            sections.insert(s.id, at: at)
        }

        var tabs: [WorkspaceLayout.Entry] = []
        var seen = Set<String>()
        for entry in stored.tabs where configTabs.contains(entry.tab) && !seen.contains(entry.tab) {
            seen.insert(entry.tab)
            let tab = config.tab(entry.tab)!
            var section = entry.section
            if !tab.customizable || (section != nil && !configSections.contains(section!)) { section = tab.section }
            tabs.append(.init(tab: entry.tab, section: section))
        }
        for (i, tab) in config.tabs.enumerated() where !seen.contains(tab.id) {
            let before = config.tabs[..<i].last { seen.contains($0.id) }
            let at = before.flatMap { b in tabs.firstIndex { $0.tab == b.id }.map { $0 + 1 } } ?? 0
            tabs.insert(.init(tab: tab.id, section: tab.section), at: at)
            seen.insert(tab.id)
        }
        let hidden = stored.hidden.filter { id in configTabs.contains(id) && config.tab(id)!.customizable }
        var selected = stored.selected.flatMap { configTabs.contains($0) ? $0 : nil }
        if let s = selected, hidden.contains(s) { selected = nil }
        let layout = WorkspaceLayout(sections: sections, tabs: tabs, hidden: hidden, selected: selected)
        return layout.withValidSelection()
    }

    /// The layout of a config never customized: config order, first tab selected.
    public static func defaultLayout(_ config: WorkspaceConfig) -> WorkspaceLayout {
        WorkspaceLayout(sections: config.sections.map(\.id),
                        tabs: config.tabs.map { .init(tab: $0.id, section: $0.section) },
                        hidden: [], selected: nil).withValidSelection()
    }
}

extension WorkspaceLayout {
    /// Visible tabs in display order: tabs without a section first, then each section's tabs in section order.
    public var visibleTabs: [String] {
        orderedTabs.filter { !hidden.contains($0) }
    }

    /// All tabs in display order (hidden ones included).
    public var orderedTabs: [String] {
        var out = tabs.filter { $0.section == nil }.map(\.tab)
        for s in sections { out += tabs.filter { $0.section == s }.map(\.tab) }
        return out
    }

    /// The same layout with `selected` pointing at a visible tab (the first one if needed).
    public func withValidSelection() -> WorkspaceLayout {
        var copy = self
        let visible = visibleTabs
        if let s = selected, visible.contains(s) { return copy }
        copy.selected = visible.first
        return copy
    }
}
