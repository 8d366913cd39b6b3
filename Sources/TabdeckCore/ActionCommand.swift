import TabdeckProtocol

extension CommandParser {
    /// `action NAME [--yes] [--set FIELD=VALUE]...`: the flags may come anywhere after `action`;
    /// a bare `--set` takes the next word, split at its first `=` (the value may be empty).
    static func parseAction(_ w: [String], bare: [String?]) throws(CommandError) -> Command {
        var name: String?
        var confirmed = false
        var input: [String: String] = [:]
        var i = 0
        while i < w.count {
            switch bare[i] {
            case "--yes": confirmed = true
            case "--set":
                guard i + 1 < w.count, let eq = w[i + 1].firstIndex(of: "="), eq != w[i + 1].startIndex else {
                    throw CommandError("--set needs FIELD=VALUE, as in --set name=Ada")
                }
                let pair = w[i + 1]
                let field = String(pair[..<eq])
                guard input[field] == nil else { throw CommandError("field \(field) is set twice") }
                input[field] = String(pair[pair.index(after: eq)...])
                i += 1
            default:
                guard name == nil else { throw usage("action") }
                name = w[i]
            }
            i += 1
        }
        guard let name else { throw usage("action") }
        return .action(name, confirmed: confirmed, input: input)
    }
}

extension Workspace {
    /// `action NAME`: run a plugin action on the selection (or the cursor row; no rows for an
    /// action with `rows: none`), with the values typed for its form as `input`. The answer,
    /// an error or not, drops the table's cached rows: the view is fetched again, and the
    /// command ends once the rows in view are back.
    mutating func runAction(_ word: String, confirmed: Bool, input typed: [String: String], _ a: inout ActiveCommand,
                            _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        var t = tabs[tab]!.table!
        let actions = t.description.actions
        guard let action = actions.first(where: { $0.id == word }) ?? actions.first(where: { $0.title.lowercased() == word.lowercased() }) else {
            let known = actions.map(\.id)
            throw CommandError(known.isEmpty ? "\(t.label) has no actions" : "no action \"\(word)\" (actions: \(known.joined(separator: ", ")))",
                               suggestion: CommandParser.suggest(word, among: known))
        }
        if action.rows != .none { try t.requireStableRowIDs() }
        // (A reply while the selection is being read is the scan's, handled by runScan.)
        if let reply = a.reply, a.scan?.finished != false {
            switch reply {
            case .error(let message):
                dropRows(tab, &effects)
                return .failed("action \(action.name) failed: \(message)")
            case .result(let value):
                if !a.applied {
                    a.applied = true
                    if action.destructive { unselect(a.sent ?? [], tab, &effects) }
                    dropRows(tab, &effects)
                }
                if case .waiting = fetchView(tab, &effects) { return .waiting }
                let message = value["message"]?.stringValue ?? "done"
                return .done(CommandOutput(text: Sanitizer.clean(message), json: ["action": .string(action.id), "result": value]))
            }
        }
        if a.awaiting != nil { return .waiting }
        let input: JSONObject
        do { input = try action.inputObject(typed) } catch { throw CommandError("action \(action.name): \(error)") }
        var ids: [String] = []
        if action.rows != .none {
            guard let rows = try actionRows(action, confirmed: confirmed, &a, &effects) else { return .waiting }
            t = tabs[tab]!.table!
            ids = rows
        } else if action.asks && !confirmed {
            throw CommandError("action \(action.name) needs confirmation: run `action \(action.id) --yes`")
        }
        var params: JSONObject = ["table": .string(t.description.table), "action": .string(action.id),
                                  "rows": .array(ids.map { .string($0) })]
        if !action.input.isEmpty { params["input"] = .object(input) }
        a.sent = ids
        a.awaiting = request(tab, Method.action, .object(params), .action(action.id), &effects)
        return .waiting
    }

    /// The ids an action goes to: the selection (an "all, except" one read through the table
    /// now), or the cursor row; nil while rows are on their way. Checks the row count and the
    /// confirmation.
    mutating func actionRows(_ action: ActionSpec, confirmed: Bool, _ a: inout ActiveCommand,
                             _ effects: inout [Effect]) throws(CommandError) -> [String]? {
        let tab = a.tab
        var t = tabs[tab]!.table!
        var ids: [String]
        if t.view.selection.isAll {
            // The protocol sends ids: resolve "all, except" by paging through the table now.
            let count = t.view.selection.count(total: t.total)
            if !action.multiple, let count, count > 1 { throw CommandError("action \(action.name) applies to one row; \(formatCount(count)) are selected") }
            if let count, count > settings.maxActionRows { throw tooManyRows(action, count) }
            if action.asks && !confirmed {
                let rows = count.map { "all \(formatCount($0)) rows" } ?? "all rows"
                throw CommandError("action \(action.name) on \(rows) needs confirmation: run `action \(action.id) --yes`")
            }
            if a.resolved == nil || a.scan?.finished != true {
                switch try runScan(&a, &effects) {
                case .waiting:
                    // The count was unknown: stop reading as soon as there are too many.
                    if let n = a.resolved?.count, n > settings.maxActionRows {
                        for id in scanInFlight(a.tab, table: a.scan!.table, generation: a.scan!.generation).values { cancel(id, &effects) }
                        a.scan!.finished = true
                        throw tooManyRows(action, n, atLeast: true)
                    }
                    return nil
                case .failed(let message): throw CommandError("action \(action.name): reading the selected rows failed: \(message)")
                case .done: break
                }
            }
            t = tabs[tab]!.table!
            ids = a.resolved ?? []
            guard !ids.isEmpty else { throw CommandError("action \(action.name): no rows are selected (all rows were excepted)") }
        } else {
            ids = t.view.selection.listed.sorted(by: naturalOrder)
        }
        if ids.isEmpty {
            switch fetch(tab, t.view.cursor..<(t.view.cursor + 1), &effects) {
            case .waiting: return nil
            case .unavailable(let r): throw CommandError(r)
            case .ready: break
            }
            guard let row = tabs[tab]!.table!.cache.row(at: t.view.cursor) else { throw CommandError("nothing selected and the table is empty") }
            ids = [row.id]
        }
        if ids.count > settings.maxActionRows { throw tooManyRows(action, ids.count) }
        if !action.multiple && ids.count > 1 { throw CommandError("action \(action.name) applies to one row; \(ids.count) are selected") }
        if action.asks && !confirmed {
            throw CommandError("action \(action.name) on \(ids.count) row(s) needs confirmation: run `action \(action.id) --yes`")
        }
        return ids
    }

    /// `row move up|down`: asks the plugin to move the cursor row past its neighbour; once it
    /// agreed the cursor goes with the row and the view is fetched again.
    mutating func runRowMove(_ how: Command.RowMove, _ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        var t = tabs[tab]!.table!
        if let reply = a.reply {
            switch reply {
            case .error(let message):
                dropRows(tab, &effects)
                return .failed("row move failed: \(message)")
            case .result(let value):
                if !a.applied {
                    a.applied = true
                    move(&t, cursor: t.view.cursor + (how == .up ? -1 : 1), scroll: t.view.scrollOffset)
                    saveTable(t, tab, &effects, ())
                    dropRows(tab, &effects)
                }
                if case .waiting = fetchView(tab, &effects) { return .waiting }
                let row = a.scanRowID ?? "?"
                let message = value["message"]?.stringValue.map(Sanitizer.clean) ?? "moved \(Sanitizer.clean(row)) \(how.rawValue)"
                return .done(CommandOutput(text: message, json: ["moved": .string(row), "to": .string(how.rawValue),
                                                                 "position": positionOutput(tab, &effects).json]))
            }
        }
        if a.awaiting != nil { return .waiting }
        guard t.description.movable else { throw CommandError("the rows of \(t.label) cannot be moved (the plugin does not allow it)") }
        guard tabs[tab]!.capabilities?.move == true else { throw CommandError("the rows of \(tabName(tab)) cannot be moved (its plugin does not move rows)") }
        guard t.view.sort.isEmpty else { throw CommandError("rows keep the sort order: clear the sort (S, or `sort clear`) to move them") }
        let cursor = t.view.cursor
        let target = how == .up ? cursor - 1 : cursor + 1
        guard target >= 0 else { throw CommandError("the first row cannot move up") }
        if let total = t.total, target >= total { throw CommandError("the last row cannot move down") }
        switch fetch(tab, min(cursor, target)..<(max(cursor, target) + 1), &effects) {
        case .waiting: return .waiting
        case .unavailable(let r): return .failed(r)
        case .ready: break
        }
        t = tabs[tab]!.table!
        guard let row = t.cache.row(at: cursor) else { throw CommandError("the table is empty") }
        guard let neighbour = t.cache.row(at: target) else { throw CommandError("the last row cannot move down") }
        a.scanRowID = row.id
        let params = MoveRequest(table: t.description.table, row: row.id, place: how == .up ? .before : .after, target: neighbour.id)
        a.awaiting = request(tab, Method.move, params.json, .move, &effects)
        return .waiting
    }

    /// Takes the rows a destructive action went to out of the selection (they are gone); an
    /// "all" selection becomes empty.
    mutating func unselect(_ ids: [String], _ tab: String, _ effects: inout [Effect]) {
        guard var t = tabs[tab]?.table, !t.view.selection.isEmpty else { return }
        if t.view.selection.isAll { t.view.selection = [] } else { t.view.selection.subtract(ids) }
        saveTable(t, tab, &effects, ())
    }

    /// Drops a tab's cached rows (cancelling pages on their way): its rows changed.
    mutating func dropRows(_ tab: String, _ effects: inout [Effect]) {
        guard var t = tabs[tab]?.table else { return }
        cancelPages(tab, table: t.key, &effects)
        t.cache.removeAll()
        tabs[tab]!.table = t
    }

    /// Fetches the rows in view of a tab's table.
    mutating func fetchView(_ tab: String, _ effects: inout [Effect]) -> Readiness {
        let start = tabs[tab]!.table!.view.scrollOffset
        return fetch(tab, start..<(start + viewportRows), &effects)
    }
}
