import TabdeckCore
import TabdeckProtocol

/// The mouse, as the seeds' gestures: each report is hit-tested against the frame on screen
/// (``HitMap``, made by the renderer) and comes to the same typed commands and events as the
/// keys (``Event/run(_:)``, ``Event/cursor(delta:)``), never to command text.
extension ScreenModel {
    /// Two presses on the same thing within this many seconds are a double click.
    public static let doubleClickTime = 0.4
    /// Rows a notch of the wheel moves.
    public static let wheelRows = 3

    /// Turns the terminal's reporting on or off when the core's setting (config.json's
    /// `"mouse"`, the `mouse on|off` command) differs from what the terminal was last told.
    mutating func syncMouse(_ ws: Workspace) -> [ScreenEffect] {
        guard ui.mouse.reporting != ws.mouse else { return [] }
        ui.mouse.reporting = ws.mouse
        if !ws.mouse { ui.mouse = MouseState(); ui.mouse.reporting = false }
        return [.mouseReporting(ws.mouse)]
    }

    mutating func mouse(_ e: MouseEvent, now: Double, screen hits: HitMap, _ ws: Workspace) -> [ScreenEffect] {
        guard ws.mouse else { return [] }
        switch e.kind {
        case .wheelUp, .wheelDown, .wheelLeft, .wheelRight:
            return wheel(e, hits, ws)
        case .press:
            guard e.button == .left else { return [] }
            return pressed(e, now: now, hits, ws)
        case .drag:
            guard e.button == .left else { return [] }
            return dragged(e, hits, ws)
        case .release:
            guard e.button == .left || e.button == .unknown else { return [] }  // X10 does not say which
            return released(e, hits, ws)
        }
    }

    // MARK: Wheel

    /// Over the sidebar, scrolls it when it overflows; in help, detail and output, scrolls
    /// them; over the table, scrolls it three rows a notch (the cursor stays on its row while it is in
    /// view), or (Shift, or a horizontal wheel) moves the column cursor.
    mutating func wheel(_ e: MouseEvent, _ hits: HitMap, _ ws: Workspace) -> [ScreenEffect] {
        let up = e.kind == .wheelUp || e.kind == .wheelLeft
        let sideways = e.kind == .wheelLeft || e.kind == .wheelRight || e.shift
        switch ui.mode {
        case .help(let scroll), .detail(let scroll), .output(_, let scroll):
            ui.mode = ui.mode.scrolled(to: max(0, scroll + (up ? -1 : 1) * Self.wheelRows))
            return []
        case .table, .tabEdit: break
        default: return []
        }
        for target in hits.targets(x: e.x, y: e.y) {
            switch target {
            case .sidebar(let top, let lines, let height):
                guard lines > height, !sideways else { return [] }
                let new = min(max(0, top + (up ? -1 : 1) * Self.wheelRows), lines - height)
                ui.mouse.sidebar = .init(top: new, selected: ui.tabEdit?.cursor ?? ws.selectedTab)
                return []
            case .table:
                guard case .table = ui.mode else { return [] }
                if sideways { return perform(up ? .columnLeft : .columnRight, ws) }
                fadeMessage()
                return [.core(.scroll(rows: (up ? -1 : 1) * Self.wheelRows))]
            default: continue
            }
        }
        return []
    }

    // MARK: Press

    mutating func pressed(_ e: MouseEvent, now: Double, _ hits: HitMap, _ ws: Workspace) -> [ScreenEffect] {
        let target = hits.target(x: e.x, y: e.y)
        let double = ui.mouse.lastClick.map { target != nil && $0.target == target && now - $0.at <= Self.doubleClickTime } ?? false
        ui.mouse.lastClick = double ? nil : .init(target: target, at: now)
        ui.mouse.press = .init(target: target, x: e.x, y: e.y, at: now)
        switch ui.mode {
        case .action(let overlay): return clickOverlay(target, overlay, ws)
        case .help: return clickHelp(target, ws)
        case .tabEdit(let edit): return pressInTabEdit(target, edit, ws)
        case .detail, .output, .prompt, .sectionIndex: return press(.escape, ws)
        case .table: break
        }
        guard let target else { return [] }
        switch target {
        case .tab(let id):
            fadeMessage()
            ui.columnCursor = 0
            if ui.mouse.sidebar != nil { ui.mouse.sidebar!.selected = id }  // the sidebar stays where it was scrolled
            return ws.selectedTab == id ? [] : run(.tabSelect(id))
        case .row(let hit):
            fadeMessage()
            return clickRow(hit, double: double, hits, ws)
        case .crumb(let level):
            fadeMessage()
            let depth = ws.selectedTab.flatMap { ws.tabs[$0]?.stack.count } ?? 0
            return (0..<max(0, depth - 1 - level)).flatMap { _ in run(.back) }
        default:
            return []  // headers act when the button comes up (a drag moves or resizes instead)
        }
    }

    /// A click on a row: the cursor goes there; in the mark column it toggles the selection; on
    /// ▸ (▾) it expands (collapses) the row; a double click opens it (a child row: expands it).
    mutating func clickRow(_ hit: RowHit, double: Bool, _ hits: HitMap, _ ws: Workspace) -> [ScreenEffect] {
        guard let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else { return [] }
        let top = hit.position.path.isEmpty
        switch hit.part {
        case .mark:
            guard top else { ui.message = .init("only the table's own rows can be selected", isError: true); return [] }
            guard let id = hit.id else { return [] }
            return run(t.view.selection.contains(id) ? .unselect([id]) : .select([id]))
        case .expander:
            return moveCursor(to: hit, hits, t) + run(.expand(top ? hit.id : nil))
        case .body:
            let moved = moveCursor(to: hit, hits, t)
            guard double else { return moved }
            return moved + run(top ? .open(hit.id) : .expand(nil))
        }
    }

    /// The events that put the cursor on `hit`'s line: one move over plain rows; one step per
    /// line where rows are expanded (the core steps through the tree a line at a time).
    func moveCursor(to hit: RowHit, _ hits: HitMap, _ t: TableState) -> [ScreenEffect] {
        let cursor = hits.first {
            if case .row(let h) = $0 { h.position == t.cursorPosition && h.part == .body } else { false }
        }.flatMap { at in hits.target(x: at.x, y: at.y) }
        guard case .row(let here)? = cursor else {
            return top(hit, t) ? [.core(.cursor(delta: hit.position.row - t.view.cursor))] : []
        }
        return steps(hit.ordinal - here.ordinal, t)
    }

    private func top(_ hit: RowHit, _ t: TableState) -> Bool { hit.position.path.isEmpty && t.cursorPath.isEmpty }

    /// `n` rows down (up when negative) from the cursor, as the arrow keys move.
    mutating func moveCursor(steps n: Int, _ ws: Workspace) -> [ScreenEffect] {
        guard let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else { return [] }
        fadeMessage()
        return steps(n, t)
    }

    private func steps(_ n: Int, _ t: TableState) -> [ScreenEffect] {
        guard n != 0 else { return [] }
        if t.view.expanded.isEmpty && t.cursorPath.isEmpty { return [.core(.cursor(delta: n))] }
        return Array(repeating: .core(.cursor(delta: n > 0 ? 1 : -1)), count: abs(n))
    }

    // MARK: Drag and release

    mutating func dragged(_ e: MouseEvent, _ hits: HitMap, _ ws: Workspace) -> [ScreenEffect] {
        guard let press = ui.mouse.press else { return [] }
        switch press.target {
        case .headerEdge(_, let id, let width)?:
            ui.mouse.resize = (id, min(1000, max(1, width + e.x - press.x)))
        case .header(_, let id, _)?:
            if case .header(_, let to, _)? = header(at: e, hits), to != id {
                showDragHint("move \(title(id, ws)) to \(title(to, ws))'s place: release here")
            } else {
                clearDragHint()
            }
        case .tab(let id)? where ui.tabEdit != nil:
            if let to = tabDrop(at: e, hits), to != .tab(id) {
                showDragHint("move \(ws.config.tab(id)?.title ?? id): release here")
            } else {
                clearDragHint()
            }
        default: break
        }
        return []
    }

    /// Shows where a drag would drop, on the status line.
    private mutating func showDragHint(_ text: String) {
        let hint = UIState.StatusMessage(text)
        ui.message = hint
        ui.mouse.hint = hint
    }

    /// Takes the drag's hint off the status line, unless another message replaced it.
    private mutating func clearDragHint() {
        if let hint = ui.mouse.hint, ui.message == hint { ui.message = nil }
        ui.mouse.hint = nil
    }

    mutating func released(_ e: MouseEvent, _ hits: HitMap, _ ws: Workspace) -> [ScreenEffect] {
        guard let press = ui.mouse.press else { return [] }
        ui.mouse.press = nil
        clearDragHint()
        let resize = ui.mouse.resize
        ui.mouse.resize = nil
        switch press.target {
        case .header(let c, let id, _)?:
            guard case .table = ui.mode, case .header(let to, let toID, _)? = header(at: e, hits) else { return [] }
            if to == c {
                // The sort key's rule (SortOrder.choose): to the front; again, flipped.
                ui.columnCursor = c
                return run(.sortBy(id, nil))
            }
            return moveColumn(id, onto: toID, ws)
        case .headerEdge(_, let id, let width)?:
            guard let resize, resize.column == id, resize.width != width else { return [] }
            return run(.columnWidth(id, resize.width))
        case .tab(let id)?:
            guard ui.tabEdit != nil, let drop = tabDrop(at: e, hits), drop != .tab(id) else { return [] }
            return dropTab(id, on: drop, ws)
        default:
            return []
        }
    }

    func header(at e: MouseEvent, _ hits: HitMap) -> HitTarget? {
        hits.targets(x: e.x, y: e.y).first { if case .header = $0 { true } else { false } }
    }

    func title(_ column: String, _ ws: Workspace) -> String {
        let t = ws.selectedTab.flatMap { ws.tabs[$0]?.table }
        return Sanitizer.clean(t?.description.columns.first { $0.id == column }?.title ?? column)
    }

    /// A header dropped onto another: the column takes that column's place (as `<` `>` do,
    /// by `column move`, saved with the view); the column cursor follows it.
    mutating func moveColumn(_ id: String, onto other: String, _ ws: Workspace) -> [ScreenEffect] {
        guard let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }),
              let place = t.view.columns.firstIndex(where: { $0.id == other }),
              let to = t.visibleColumns.firstIndex(where: { $0.id == other }) else { return [] }
        ui.columnCursor = to
        ui.message = nil
        return run(.columnMove(id, place + 1))
    }

    // MARK: Tab edit mode

    /// A press on a tab puts the edit cursor there (a drag then moves it).
    mutating func pressInTabEdit(_ target: HitTarget?, _ edit: TabEdit, _ ws: Workspace) -> [ScreenEffect] {
        guard case .tab(let id)? = target else { return [] }
        var edit = edit
        edit.cursor = id
        edit.confirmingReset = false
        ui.mode = .tabEdit(edit)
        if ui.mouse.sidebar != nil { ui.mouse.sidebar!.selected = id }  // the sidebar stays where it was scrolled
        ui.message = nil
        return []
    }

    func tabDrop(at e: MouseEvent, _ hits: HitMap) -> HitTarget? {
        hits.targets(x: e.x, y: e.y).first {
            switch $0 {
            case .tab, .section: true
            default: false
            }
        }
    }

    /// A tab dropped on another takes its place (before it when it came from below, after it
    /// from above), in that tab's section; dropped on a section's header, it goes to the end of
    /// that section. The same `tab move` the move keys run, saved as they save it.
    mutating func dropTab(_ id: String, on drop: HitTarget, _ ws: Workspace) -> [ScreenEffect] {
        guard let config = ws.config.tab(id) else { return [] }
        guard config.customizable else { ui.message = .init(config.refusal("move"), isError: true); return [] }
        switch drop {
        case .tab(let other):
            let order = ws.layout.orderedTabs
            guard let from = order.firstIndex(of: id), let to = order.firstIndex(of: other) else { return [] }
            return run(.tabMove(id, from < to ? .after(other) : .before(other)))
        case .section(let section):
            return run(.tabMove(id, .toSection(section)))
        default:
            return []
        }
    }

    // MARK: Menus, the question, forms and help

    /// A click on an entry chooses it, on a field focuses it, on Yes or No answers; a click
    /// outside the box closes it (as Esc does).
    mutating func clickOverlay(_ target: HitTarget?, _ overlay: ActionOverlay, _ ws: Workspace) -> [ScreenEffect] {
        switch (target, overlay) {
        case (.menuEntry(let i)?, .menu(var menu)) where i < menu.actions.count:
            menu.cursor = i
            return choose(menu.actions[i], target: menu.target)
        case (.formField(let i)?, .form(var form)) where i < form.values.count:
            form.focus = i
            ui.mode = .action(.form(form))
            return []
        case (.answer(let yes)?, .confirm(let question)):
            return answer(yes ? .char("y") : .char("n"), question)
        case (.overlay?, _), (.menuEntry?, _), (.formField?, _), (.answer?, _):
            return []
        default:
            return pressInOverlay(.escape, overlay, ws)
        }
    }

    /// In help, a click on a key's line closes help and does what the key does; on a command's
    /// line, opens the command line with it typed; anywhere else, closes help.
    mutating func clickHelp(_ target: HitTarget?, _ ws: Workspace) -> [ScreenEffect] {
        ui.mode = .table
        switch target {
        case .help(.action(let action)?)?: return perform(action, ws)
        case .help(.command(let name)?)?: return [.prompt(typed: name + " ")]
        default: return []
        }
    }
}
