import TabdeckCore
import TabdeckProtocol

/// The action keys: `a` opens the menu of the plugin's actions, a plugin's hotkey runs its
/// action from the table, an action that asks opens the question (No unless `y`), an action
/// with `input` opens its form. What runs is a typed ``Command/action(_:confirmed:input:)``.
extension ScreenModel {
    /// `a`: the menu of the table's actions, the cursor on the first.
    mutating func openActionMenu(_ ws: Workspace) -> [ScreenEffect] {
        guard let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else {
            ui.message = .init("no table is open", isError: true)
            return []
        }
        guard !t.description.actions.isEmpty else {
            ui.message = .init("\(t.label) has no actions", isError: true)
            return []
        }
        // Rows without stable ids: only the actions on no rows (an insert) are offered.
        let actions = t.description.actions.filter { !t.hasUnstableRowIDs || $0.rows == .none }
        if actions.isEmpty, let why = t.unstableRowIDsMessage {
            ui.message = .init(why, isError: true)
            return []
        }
        let menu = ActionMenu(actions: actions, cursor: 0, target: .of(t), hotkeys: ui.keyMap.usableHotkeys(actions))
        ui.mode = .action(.menu(menu))
        return []
    }

    /// A key the key map does not bind: the hotkey of one of the table's actions, if any.
    mutating func pressHotkey(_ key: Key, _ ws: Workspace) -> [ScreenEffect] {
        guard case .char(let c) = key, let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else { return [] }
        let hotkeys = ui.keyMap.usableHotkeys(t.description.actions)
        guard let action = t.description.actions.first(where: { hotkeys[$0.id] == c }) else { return [] }
        if action.rows != .none, let why = t.unstableRowIDsMessage {
            ui.message = .init(why, isError: true)
            return []
        }
        ui.message = nil
        return choose(action, target: .of(t))
    }

    /// Runs an action chosen from the menu or by its hotkey: its form first, then the question.
    mutating func choose(_ action: ActionSpec, target: ActionTarget) -> [ScreenEffect] {
        if let why = target.refusal(of: action) {
            ui.mode = .table
            ui.message = .init(why, isError: true)
            return []
        }
        if !action.input.isEmpty {
            ui.mode = .action(.form(ActionForm(action: action, target: target)))
            return []
        }
        if action.asks {
            ui.mode = .action(.confirm(ActionConfirm(action: action, target: target, input: [:])))
            return []
        }
        return runAction(action, confirmed: false, input: [:])
    }

    /// Sends the action to the core; its message (or error) shows on the status line.
    mutating func runAction(_ action: ActionSpec, confirmed: Bool, input: [String: String]) -> [ScreenEffect] {
        ui.mode = .table
        ui.message = nil
        showsOutput = true
        return [.core(.run(.action(action.id, confirmed: confirmed, input: input)))]
    }

    mutating func pressInOverlay(_ key: Key, _ overlay: ActionOverlay, _ ws: Workspace) -> [ScreenEffect] {
        switch overlay {
        case .menu(let menu): return pressInMenu(key, menu)
        case .confirm(let question): return answer(key, question)
        case .form(let form): return editForm(key, form)
        }
    }

    /// The menu: ↑/↓ (j/k) move its cursor, Enter or an entry's hotkey runs it, Esc closes.
    mutating func pressInMenu(_ key: Key, _ menu: ActionMenu) -> [ScreenEffect] {
        var menu = menu
        switch key {
        case .down, .char("j"): menu.cursor = min(menu.actions.count - 1, menu.cursor + 1)
        case .up, .char("k"): menu.cursor = max(0, menu.cursor - 1)
        case .home, .char("g"): menu.cursor = 0
        case .end, .char("G"): menu.cursor = menu.actions.count - 1
        case .enter: return choose(menu.actions[menu.cursor], target: menu.target)
        case .escape, .ctrl("c"), .char("a"): ui.mode = .table; return []
        case .char(let c):
            if let action = menu.actions.first(where: { menu.hotkeys[$0.id] == c }) { return choose(action, target: menu.target) }
        default: break
        }
        ui.mode = .action(.menu(menu))
        return []
    }

    /// The question: `y` runs the action; Enter and `n` answer No (the default), Esc cancels.
    mutating func answer(_ key: Key, _ question: ActionConfirm) -> [ScreenEffect] {
        switch key {
        case .char("y"), .char("Y"):
            return runAction(question.action, confirmed: true, input: question.input)
        case .enter, .char("n"), .char("N"), .escape, .ctrl("c"):
            ui.mode = .table
            ui.message = .init("\(Sanitizer.clean(question.action.title)): not run")
        default: break
        }
        return []
    }

    /// The form: typing edits the focused field (the first character replaces a default),
    /// Tab/↓ and Shift-Tab/↑ move between fields, ←/→ or Space change a yes/no or a choice,
    /// Enter checks and sends it (an error names the field and keeps the form open), Esc cancels.
    mutating func editForm(_ key: Key, _ form: ActionForm) -> [ScreenEffect] {
        var form = form
        let field = form.action.input[form.focus]
        var value = form.values[form.focus]
        switch key {
        case .escape, .ctrl("c"):
            ui.mode = .table
            ui.message = .init("\(Sanitizer.clean(form.action.title)): not run")
            return []
        case .enter:
            do {
                _ = try form.action.inputObject(form.typed)
            } catch {
                form.error = error
                ui.mode = .action(.form(form))
                return []
            }
            if form.action.asks {
                ui.mode = .action(.confirm(ActionConfirm(action: form.action, target: form.target, input: form.typed)))
                return []
            }
            return runAction(form.action, confirmed: false, input: form.typed)
        case .tab, .down: form.focus = (form.focus + 1) % form.values.count
        case .backTab, .up: form.focus = (form.focus + form.values.count - 1) % form.values.count
        default:
            switch field.type {
            case .boolean:
                switch key {
                case .char(" "), .left, .right: value = value == "true" ? "false" : "true"
                case .char("y"), .char("Y"): value = "true"
                case .char("n"), .char("N"): value = "false"
                default: break
                }
            case .enumeration:
                let i = field.values.firstIndex(of: value) ?? -1
                switch key {
                case .char(" "), .right: value = field.values[(i + 1) % field.values.count]
                case .left: value = field.values[(max(0, i) + field.values.count - 1) % field.values.count]
                case .char(let c):
                    // The next value that starts with the letter typed.
                    let order = field.values.indices.map { (i + 1 + $0) % field.values.count }
                    if let j = order.first(where: { field.values[$0].lowercased().hasPrefix(c.lowercased()) }) { value = field.values[j] }
                default: break
                }
            case .text, .integer, .number:
                let fresh = !form.edited.contains(form.focus)
                switch key {
                case .char(let c): value = (fresh ? "" : value) + String(c)
                case .paste(let s): value = (fresh ? "" : value) + s.filter { $0 != "\n" && $0 != "\r" }
                case .backspace: if !value.isEmpty { value.removeLast() }
                case .ctrl("u"): value = ""
                default: break
                }
            }
            if value != form.values[form.focus] { form.edited.insert(form.focus) }
            form.values[form.focus] = value
            form.error = form.error.flatMap { shown in recheck(form, shown) }
        }
        ui.mode = .action(.form(form))
        return []
    }
}

extension ScreenModel {
    /// An error the form shows, checked again after an edit: kept (with its new text) while the
    /// field it names is still wrong, gone once that field is right. Another field's error waits
    /// for Enter.
    func recheck(_ form: ActionForm, _ shown: ActionInputError) -> ActionInputError? {
        do {
            _ = try form.action.inputObject(form.typed)
            return nil
        } catch {
            return error.field == shown.field ? error : nil
        }
    }
}

extension KeyMap {
    /// The hotkeys of `actions` that work: one printable character, one cell wide, that no
    /// binding of this key map uses (the host's keys always win); the first action to claim a
    /// key keeps it.
    public func usableHotkeys(_ actions: [ActionSpec]) -> [String: Character] {
        let claims = HotkeyClaim.of(actions) { ScreenBuffer.width(of: $0) != 1 || action(for: .char($0)) != nil }
        return Dictionary(claims.filter { $0.claim == .owns }.map { ($0.action.id, $0.key) }, uniquingKeysWith: { a, _ in a })
    }
}
