import TabdeckCore

extension ScreenModel {
    /// The UI's update function: applies one input, reading the core's state, and returns what
    /// the shell must do, in order. Pure: no terminal, no clock, no plugin.
    public mutating func update(_ input: ScreenInput, workspace ws: Workspace) -> [ScreenEffect] {
        let effects = step(input, ws)
        if effects.contains(where: { if case .prompt = $0 { true } else { false } }) { promptOpen = true }
        // The column layout keeps the column scroll in step (the cursor's column in view): the
        // model's own, so the frame the shell draws needs nothing written back.
        if let layout = WorkspaceRenderer.columnLayout(workspace: ws, size: size, ui: ui) { ui.columnScroll = layout.scroll }
        return effects
    }

    private mutating func step(_ input: ScreenInput, _ ws: Workspace) -> [ScreenEffect] {
        switch input {
        case .key(let key):
            return press(key, ws)
        case .resize(let width, let height):
            self.width = width; self.height = height
            return [.core(.viewport(rows: WorkspaceRenderer.tableRows(workspace: ws, size: size))), .redraw]
                + (promptOpen ? [.redrawPrompt] : []) + syncMouse(ws)
        case .coreChanged:
            announceFind(ws)
            trackJob(ws, now: nil)
            return syncMouse(ws)
        case .mouse(let event, let now, let screen):
            return mouse(event, now: now, screen: screen, ws)
        case .timer(let now):
            return timer(now: now, ws)
        case .bytesRead(let leftPending, let now):
            timers.bytesRead(leftPending: leftPending, now: now)
            return []
        case .eventFrameDrawn(let now):
            timers.eventFrameDrawn(at: now)
            return []
        case .output(let text, let isError):
            show(text, isError: isError)
            return []
        case .promptClosed(let line):
            promptOpen = false
            guard let line, line.contains(where: { !$0.isWhitespace }) else { return [] }
            showsOutput = true
            return [.core(promptEvent(line, ws))]
        }
    }

    /// A command run by a key: its errors are shown, its output is not.
    mutating func run(_ command: Command) -> [ScreenEffect] {
        showsOutput = false
        if command == .quit { running = false }
        return [.core(.run(command))]
    }

    /// A command run by a key whose output is said on the status line (`r`: what it refreshed).
    mutating func runSaying(_ command: Command) -> [ScreenEffect] {
        let effects = run(command)
        showsOutput = true
        return effects
    }

    mutating func show(_ text: String, isError: Bool) {
        guard isError || showsOutput, !repeatsCancel(text, isError: isError) else { return }
        if text.contains("\n") {
            ui.mode = .output(text, scroll: 0)
        } else {
            ui.message = .init(text, isError: isError)
        }
    }

    // MARK: Keys

    mutating func press(_ key: Key, _ ws: Workspace) -> [ScreenEffect] {
        switch ui.mode {
        case .prompt(let text):
            return editFind(key, text, ws)
        case .sectionIndex(let typed):
            return editSectionIndex(key, typed, ws)
        case .tabEdit(let edit):
            return editTabs(key, edit, ws)
        case .action(let overlay):
            return pressInOverlay(key, overlay, ws)
        case .help(let scroll), .detail(let scroll), .output(_, let scroll):
            switch key {
            case .down, .char("j"): ui.mode = ui.mode.scrolled(to: scroll + 1)
            case .up, .char("k"): ui.mode = ui.mode.scrolled(to: max(0, scroll - 1))
            case .pageDown, .char(" "): ui.mode = ui.mode.scrolled(to: scroll + height - 2)
            case .pageUp: ui.mode = ui.mode.scrolled(to: max(0, scroll - height + 2))
            case .char("q"), .ctrl("c"): running = false; return [.quit]
            default: ui.mode = .table
            }
            return []
        case .table:
            break
        }
        // Ctrl-C while a job runs cancels it as Esc does; with no job it keeps its binding (quit).
        if key == .ctrl("c"), shownJob(ws) != nil { fadeMessage(); return dismiss(ws) }
        guard let action = ui.keyMap.action(for: key) else { return pressHotkey(key, ws) }
        fadeMessage()
        return perform(action, ws)
    }

    mutating func perform(_ action: Action, _ ws: Workspace) -> [ScreenEffect] {
        let t = ws.selectedTab.flatMap { ws.tabs[$0]?.table }
        let cursor = t?.view.cursor ?? 0
        switch action {
        case .moveDown: return [.core(.cursor(delta: 1))]
        case .moveUp: return [.core(.cursor(delta: -1))]
        case .pageDown: return [.core(.page(.next))]
        case .pageUp: return [.core(.page(.prev))]
        case .top: return [.core(.page(.first))]
        case .bottom:
            if t?.total == nil { ui.message = .init("the row count is not known yet, so there is no last page", isError: true) }
            return [.core(.page(.last))]
        case .columnLeft:
            ui.columnCursor = max(0, ui.columnCursor - 1)
            return []
        case .columnRight:
            ui.columnCursor = min(max(0, (t?.visibleColumns.count ?? 1) - 1), ui.columnCursor + 1)
            return []
        case .nextTab, .previousTab:
            let visible = ws.layout.visibleTabs
            guard let current = ws.selectedTab.flatMap({ visible.firstIndex(of: $0) }), !visible.isEmpty else { return [] }
            let step = action == .nextTab ? 1 : visible.count - 1
            ui.columnCursor = 0
            return run(.tabSelect(visible[(current + step) % visible.count]))
        case .selectTab(let n):
            let visible = ws.layout.visibleTabs
            guard n >= 1, n <= visible.count else { return [] }
            ui.columnCursor = 0
            return run(.tabSelect(visible[n - 1]))
        case .sort:
            guard let t, ui.columnCursor < t.visibleColumns.count else { return [] }
            return run(.sortBy(t.visibleColumns[ui.columnCursor].id, nil))
        case .clearSort: return run(.sortClear)
        case .describe: return run(.describe)
        case .frequency:
            guard let t, ui.columnCursor < t.visibleColumns.count else { return [] }
            return run(.freq([t.visibleColumns[ui.columnCursor].id], bins: nil))
        case .toggleSelection:
            if t?.cursorPath.isEmpty == false { ui.message = .init("only the table's own rows can be selected", isError: true); return [] }
            guard let t, let row = t.cache.row(at: cursor) else { return [] }
            return run(t.view.selection.contains(row.id) ? .unselect([row.id]) : .select([row.id]))
        case .open: return run(.open(nil))
        case .back: return run(.back)
        case .detail: ui.mode = .detail(scroll: 0); return [.core(.wholeCells)]  // a cut cell's whole value
        case .help: ui.mode = .help(scroll: 0); return []
        case .dismiss: return dismiss(ws)
        case .refresh: return runSaying(.refresh)
        case .expand: return run(.expand(nil))
        case .detailLine: return toggleDetailLine(t)
        case .redraw: return [.redraw]
        case .editTabs: return startTabEdit(ws)
        case .moveColumnLeft, .moveColumnRight, .hideColumn, .narrowColumn, .widenColumn, .resetColumns:
            return editColumn(action, ws)
        case .actions: return openActionMenu(ws)
        case .moveRowUp: return run(.rowMove(.up))
        case .moveRowDown: return run(.rowMove(.down))
        case .find: ui.mode = .prompt("/"); return []
        case .findNext, .findPrevious:
            guard let text = ui.find, !text.isEmpty else { ui.message = .init("nothing to find yet: type / first", isError: true); return [] }
            shownFind = nil  // announce this find's outcome even if it is the same as the last one's
            return [.core(.find(text: text, backward: action == .findPrevious))]
        case .sectionIndex:
            guard let t, !t.sections.isEmpty else { ui.message = .init("this table has no sections", isError: true); return [] }
            ui.mode = .sectionIndex("")
            return []
        case .command, .filter: return [.prompt(typed: action.promptText ?? "")]
        case .copyRow, .copySelection, .typed: return performCopy(action, ws)
        case .quit: running = false; return [.quit]
        case .suspend: return [.suspend]
        }
    }

    /// `/` find: type the text, Enter finds it in the whole table (the core pages through the
    /// plugin from the cursor, wrapping around; the status line shows how far it got).
    mutating func editFind(_ key: Key, _ text: String, _ ws: Workspace) -> [ScreenEffect] {
        switch key {
        case .escape, .ctrl("c"): ui.mode = .table; ui.find = nil
        case .backspace: ui.mode = text.count > 1 ? .prompt(String(text.dropLast())) : .table
        case .char(let c): ui.mode = .prompt(text + String(c))
        case .paste(let s): ui.mode = .prompt(text + s)
        case .enter:
            let needle = String(text.dropFirst())
            ui.find = needle.isEmpty ? nil : needle
            ui.mode = .table
            if !needle.isEmpty { shownFind = nil; return [.core(.find(text: needle, backward: false))] }
        default: break
        }
        return []
    }

    /// The section index: each letter jumps to the first section whose title starts with what
    /// was typed; Enter or Esc closes it.
    mutating func editSectionIndex(_ key: Key, _ typed: String, _ ws: Workspace) -> [ScreenEffect] {
        switch key {
        case .escape, .ctrl("c"), .enter: ui.mode = .table
        case .backspace: ui.mode = typed.isEmpty ? .table : .sectionIndex(String(typed.dropLast()))
        case .char(let c):
            let now = typed + String(c)
            ui.mode = .sectionIndex(now)
            let t = ws.selectedTab.flatMap { ws.tabs[$0]?.table }
            if t?.section(matching: now) != nil { return run(.jump(now)) }
        default: break
        }
        return []
    }

    /// Says once how a find ended: the row found, or not found.
    mutating func announceFind(_ ws: Workspace) {
        let f = ws.find
        let seen = f.map { [$0.text, String($0.origin), String($0.backward), String(describing: $0.phase)] }
        guard seen != shownFind else { return }
        shownFind = seen
        guard let f else { return }
        switch f.phase {
        case .searching: break
        case .found(let row, let wrapped):
            ui.message = .init("found \"\(f.text)\" at row \(formatCount(row + 1))" + (wrapped ? " (wrapped around)" : ""))
        case .notFound: ui.message = .init("not found: \(f.text)", isError: true)
        case .stopped(let why): if !repeatsCancel("find stopped: \(why)", isError: true) { ui.message = .init("find stopped: \(why)", isError: true) }
        }
    }
}
