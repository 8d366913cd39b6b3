import TabdeckCore

extension ScreenModel {
    /// `T`: tab edit mode, with the cursor on the selected tab.
    mutating func startTabEdit(_ ws: Workspace) -> [ScreenEffect] {
        guard let first = ws.selectedTab ?? ws.layout.orderedTabs.first else { return [] }
        ui.mode = .tabEdit(TabEdit(cursor: first))
        return []
    }

    /// A key in tab edit mode (``TabEditKeys``). Every change runs its `tab`/`section` command
    /// at once (saved as the command saves it); refusals show on the status line.
    mutating func editTabs(_ key: Key, _ edit: TabEdit, _ ws: Workspace) -> [ScreenEffect] {
        ui.message = nil
        var edit = edit
        if edit.confirmingReset {
            edit.confirmingReset = false
            ui.mode = .tabEdit(edit)
            if key == .char("y") || key == .char("Y") { return run(.tabReset) }
            ui.message = .init("no reset: your tab order stays")
            return []
        }
        guard let action = TabEditKeys.action(for: key) else { return [] }
        let order = ws.layout.orderedTabs
        let at = order.firstIndex(of: edit.cursor) ?? 0
        let outcome: TabEditOutcome?
        switch action {
        case .leave: ui.mode = .table; return []
        case .cursorUp: edit.cursor = order[max(0, at - 1)]; outcome = nil
        case .cursorDown: edit.cursor = order[min(order.count - 1, at + 1)]; outcome = nil
        case .moveUp, .moveDown: outcome = TabEditing.move(edit.cursor, down: action == .moveDown, ws)
        case .toggleHidden: outcome = TabEditing.toggleHidden(edit.cursor, ws)
        case .sectionUp, .sectionDown: outcome = TabEditing.moveSection(of: edit.cursor, down: action == .sectionDown, ws)
        case .reset: edit.confirmingReset = true; outcome = nil
        }
        ui.mode = .tabEdit(edit)
        switch outcome {
        case .run(let command)?: return run(command)
        case .refuse(let why)?: ui.message = .init(why, isError: true); return []
        case nil: return []
        }
    }
}
