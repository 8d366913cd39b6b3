import TabdeckProtocol

extension Workspace {
    /// Commands on tabs and sections: they need no plugin.
    mutating func runLayoutCommand(_ command: Command, _ effects: inout [Effect]) throws(CommandError) -> CommandOutput {
        switch command {
        case .tabs:
            return tabsOutput()
        case .tabSelect(let word):
            let id = try resolveTab(word)
            guard !layout.hidden.contains(id) else { throw CommandError("tab \(id) is hidden; `tab show \(id)` first") }
            layout.selected = id
            return commitLayout(&effects, CommandOutput(text: "selected \(id)", json: ["selected": .string(id)]))
        case .tabMove(let word, let move):
            let id = try resolveTab(word)
            try requireCustomizable(id, "move")
            var entries = layout.tabs
            let from = entries.firstIndex { $0.tab == id }!
            var entry = entries.remove(at: from)
            switch move {
            case .toSection(let sectionWord):
                let section = try resolveSection(sectionWord)
                entry.section = section
                let lastInSection = entries.lastIndex { $0.section == section }
                entries.insert(entry, at: lastInSection.map { $0 + 1 } ?? entries.count)
            case .before(let otherWord), .after(let otherWord):
                let other = try resolveTab(otherWord)
                guard other != id else { throw CommandError("cannot move \(id) relative to itself") }
                let at = entries.firstIndex { $0.tab == other }!
                entry.section = entries[at].section
                if case .before = move { entries.insert(entry, at: at) } else { entries.insert(entry, at: at + 1) }
            case .toPosition(let n):
                // Position among visible tabs in display order; the tab joins the section found there.
                let visible = layoutAfterRemoving(id).visibleTabs
                guard n <= visible.count + 1 else { throw CommandError("position \(n) is past the end (\(visible.count + 1) positions)") }
                if n <= visible.count {
                    let target = visible[n - 1]
                    let at = entries.firstIndex { $0.tab == target }!
                    entry.section = entries[at].section
                    entries.insert(entry, at: at)
                } else if let last = visible.last {
                    let at = entries.firstIndex { $0.tab == last }!
                    entry.section = entries[at].section
                    entries.insert(entry, at: at + 1)
                } else {
                    entries.append(entry)
                }
            }
            layout.tabs = entries
            let position = layout.visibleTabs.firstIndex(of: id).map { $0 + 1 }
            return commitLayout(&effects, CommandOutput(
                text: "moved \(id) to position \(position.map(String.init) ?? "hidden")" + (entry.section.map { " in section \($0)" } ?? ""),
                json: ["moved": .string(id), "position": position.map { .int(Int64($0)) } ?? .null, "section": entry.section.map { .string($0) } ?? .null]))
        case .tabHide(let word):
            let id = try resolveTab(word)
            try requireCustomizable(id, "hide")
            guard layout.visibleTabs.count > 1 || layout.hidden.contains(id) else { throw CommandError("cannot hide the last visible tab") }
            layout.hidden.insert(id)
            layout = layout.withValidSelection()
            return commitLayout(&effects, CommandOutput(text: "hid \(id)", json: ["hidden": .string(id)]))
        case .tabShow(let word):
            let id = try resolveTab(word)
            layout.hidden.remove(id)
            return commitLayout(&effects, CommandOutput(text: "showing \(id)", json: ["shown": .string(id)]))
        case .tabReset:
            let selected = layout.selected
            layout = LayoutMerge.defaultLayout(config)
            if let selected { layout.selected = selected }
            layout = layout.withValidSelection()
            effects.append(.resetLayout)
            return commitLayout(&effects, CommandOutput(text: "tabs reset to config order", json: ["reset": true]))
        case .sectionMove(let word, let n):
            let id = try resolveSection(word)
            var sections = layout.sections
            sections.removeAll { $0 == id }
            sections.insert(id, at: min(n - 1, sections.count))
            layout.sections = sections
            return commitLayout(&effects, CommandOutput(text: "moved section \(id) to position \(min(n, sections.count))",
                                                        json: ["moved": .string(id), "sections": .array(sections.map { .string($0) })]))
        default:
            throw CommandError("not a layout command")
        }
    }

    func layoutAfterRemoving(_ id: String) -> WorkspaceLayout {
        var copy = layout
        copy.tabs.removeAll { $0.tab == id }
        return copy
    }

    func requireCustomizable(_ id: String, _ verb: String) throws(CommandError) {
        let tab = config.tab(id)!
        guard tab.customizable else { throw CommandError(tab.refusal(verb)) }
    }

    mutating func commitLayout(_ effects: inout [Effect], _ output: CommandOutput) -> CommandOutput {
        effects.append(.saveLayout(LayoutMerge.saved(layout, config: config)))
        return output
    }

    /// `tabs`: every tab in display order with section, badge, state and flags.
    func tabsOutput() -> CommandOutput {
        var lines: [String] = []
        var items: [JSONValue] = []
        let visible = layout.visibleTabs
        var lastSection: String?? = .none
        for id in layout.orderedTabs {
            let config = self.config.tab(id)!
            let entry = layout.tabs.first { $0.tab == id }!
            if lastSection != .some(entry.section) {
                lastSection = .some(entry.section)
                let title = entry.section.flatMap { self.config.section($0)?.title } ?? "(no section)"
                lines.append("[\(title)]")
            }
            let tab = tabs[id]!
            let position = visible.firstIndex(of: id).map { String($0 + 1) } ?? "-"
            var flags: [String] = []
            if layout.hidden.contains(id) { flags.append("hidden") }
            if !config.customizable { flags.append("fixed") }
            if config.background { flags.append("background") }
            flags.append(tab.phase.name)
            let badge = tab.shownBadge.map { " (\(Sanitizer.clean($0)))" } ?? ""
            let mark = layout.selected == id ? "*" : " "
            let glyph = config.glyph.map { $0 + " " } ?? ""
            lines.append("\(mark) \(position). \(glyph)\(config.title) [\(id)]\(badge) — \(flags.joined(separator: ", "))")
            items.append([
                "id": .string(id), "title": .string(config.title), "section": entry.section.map { .string($0) } ?? .null,
                "position": visible.firstIndex(of: id).map { .int(Int64($0 + 1)) } ?? .null,
                "hidden": .bool(layout.hidden.contains(id)), "selected": .bool(layout.selected == id),
                "badge": tab.shownBadge.map { .string($0) } ?? .null, "state": .string(tab.phase.name),
                "error": tab.problem.map { .string($0) } ?? .null,
                "notice": tab.notice.map { .string($0) } ?? .null,
            ])
        }
        return CommandOutput(text: lines.joined(separator: "\n"), json: .array(items))
    }
}
