import TabdeckProtocol

/// Whether a tab's plugin (or table) can be used yet.
enum Readiness {
    case ready
    case waiting
    case unavailable(String)
}

extension Workspace {
    /// Starts the tab's plugin if needed (respecting backoff and the crash budget).
    mutating func ensureReady(_ tab: String, _ effects: inout [Effect]) -> Readiness {
        if let reason = config.tab(tab)?.unavailable {
            tabs[tab]!.error = reason
            return .unavailable(reason)
        }
        if tabs[tab]!.terminating { return .waiting }
        switch tabs[tab]!.phase {
        case .ready: return .ready
        case .starting: return .waiting
        case .down(let reason): return .unavailable(reason)
        case .failed(_, let retryAt) where now < retryAt:
            effects.append(.wake(at: retryAt))
            return .waiting
        case .stopped, .failed:
            tabs[tab]!.phase = .starting
            tabs[tab]!.stopping = false
            tabs[tab]!.exitReason = nil
            effects.append(.startPlugin(tab: tab))
            _ = request(tab, Method.initialize, InitializeParams(hostVersion: settings.hostVersion).json, .initialize, &effects)
            return .waiting
        }
    }

    /// Starts the plugin and opens the tab's root table if needed (after a restart: opens the
    /// whole navigation stack again first).
    mutating func ensureTable(_ tab: String, _ effects: inout [Effect]) -> Readiness {
        switch ensureReady(tab, &effects) {
        case .ready: break
        case let other: return other
        }
        if tabs[tab]!.reopenLevel != nil { return .waiting }
        if !tabs[tab]!.stack.isEmpty { return .ready }
        if tabs[tab]!.loadCancelled { return .unavailable("opening was cancelled (press r or run `refresh` to open it)") }
        if let failure = tabs[tab]!.openFailure, now < failure.retryAt {
            effects.append(.wake(at: failure.retryAt))
            return .unavailable("\(failure.message) (tried \(failure.count) times; `restart` tries now)")
        }
        if !tabs[tab]!.navigating {
            tabs[tab]!.navigating = true
            _ = request(tab, Method.open, ["args": config.tab(tab)!.args], .open, &effects)
        }
        return .waiting
    }

    mutating func handshakeReply(_ tab: String, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        switch outcome {
        case .error(let message):
            tabs[tab]!.exitReason = "handshake failed: \(message)"
            tabs[tab]!.terminating = true
            effects.append(.killPlugin(tab: tab))
        case .result(let value):
            do {
                let result = try InitializeResult(value)
                guard result.protocolVersion == ProtocolVersion.current else {
                    let reason = "plugin speaks protocol \(result.protocolVersion), host speaks \(ProtocolVersion.current)"
                    tabs[tab]!.phase = .down(reason: reason)
                    tabs[tab]!.error = reason
                    Self.stop(&tabs[tab]!, kill: false, &effects)
                    return
                }
                tabs[tab]!.phase = .ready(result)
                tabs[tab]!.error = nil
                if tabs[tab]!.reopenLevel != nil {
                    reopen(tab, level: 0, &effects)
                } else if config.tab(tab)!.background && tabs[tab]!.stack.isEmpty {
                    _ = ensureTable(tab, &effects)  // background tabs open at once so their badge is live
                }
                effects.append(.log(tab: tab, "tabdeck: handshake done: \(result.name) \(result.version), protocol \(result.protocolVersion)"))
            } catch {
                tabs[tab]!.exitReason = "bad initialize result: \(error)"
                tabs[tab]!.terminating = true
                effects.append(.killPlugin(tab: tab))
            }
        }
    }

    mutating func openReply(_ tab: String, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        tabs[tab]!.navigating = false
        switch outcome {
        case .error(let message):
            tabs[tab]!.error = "open failed: \(message)"
            tabs[tab]!.openFailure = .next(after: tabs[tab]!.openFailure, "open failed: \(message)", now: now, settings: settings)
            if active?.tab == tab { finish(.failed("tab \(tab): open failed: \(message)"), &effects) }
        case .result(let value):
            do {
                let description = try TableDescription(value).checked()
                let table = makeTable(tab: tab, key: "", description: description, label: config.tab(tab)!.title)
                tabs[tab]!.stack = [table]
                tabs[tab]!.error = nil
                tabs[tab]!.openFailure = nil
            } catch {
                tabs[tab]!.error = "open returned a bad table description: \(error)"
                tabs[tab]!.openFailure = .next(after: tabs[tab]!.openFailure, tabs[tab]!.error!, now: now, settings: settings)
                if active?.tab == tab { finish(.failed("tab \(tab): \(tabs[tab]!.error!)"), &effects) }
            }
        }
    }

    /// A table state for a description, with the stored view reconciled against its columns.
    /// `view` (default: the stored one) is the view to keep, as after a restart.
    func makeTable(tab: String, key: String, description: TableDescription, label: String,
                   view kept: TableViewState? = nil) -> TableState {
        var view = kept ?? savedViews[TableViewKey(tab: tab, table: key)] ?? TableViewState()
        let ids = description.columns.map(\.id)
        var columns = view.columns.filter { ids.contains($0.id) }
        for id in ids where !columns.contains(where: { $0.id == id }) { columns.append(ColumnCustomization(id: id)) }
        view.columns = columns
        let sortable = Set(description.columns.filter(\.sortable).map(\.id))
        view.sort = view.sort.filter { sortable.contains($0.column) }
        if let total = description.total {
            view.cursor = min(view.cursor, max(0, total - 1))
            view.scrollOffset = min(view.scrollOffset, max(0, total - 1))
        }
        // A stored filter holds only while the plugin can filter; the table's count is then
        // the filtered one, which the first page brings (the description counts every row).
        if view.filter != nil && tabs[tab]?.capabilities?.filter != true { view.filter = nil }
        // A stored exact filter holds while the plugin can apply it and its columns are there.
        if tabs[tab]?.capabilities?.where != true || view.where.contains(where: { !ids.contains($0.column) }) { view.where = [] }
        // Ids that may name other rows now: a stored selection would pick the wrong ones.
        if description.rowIDs == .unstable { view.selection = [] }
        var table = TableState(key: key, description: description, view: view, label: label,
                               cache: PageCache(pageSize: settings.pageSize, capacity: settings.cachePages))
        if view.isFiltered { table.total = nil }
        return table
    }

    /// Asks the runtime to stop (or kill) a tab's plugin; its exit is then expected, not a crash.
    static func stop(_ t: inout TabState, kill: Bool, _ effects: inout [Effect]) {
        t.stopping = true
        t.terminating = true
        effects.append(kill ? .killPlugin(tab: t.id) : .stopPlugin(tab: t.id))
    }

    /// The plugin process is gone: fail what waited on it, keep the tab's navigation stack and
    /// views for the next process to replay, and decide when it restarts (backoff) or whether
    /// it stays down (crash budget spent).
    mutating func pluginGone(_ tab: String, how: String, _ effects: inout [Effect]) {
        let running = pending.running(tab: tab)
        if !tabs[tab]!.stopping && !quitting { for r in running { noteLostRequest(tab, r.purpose) } }
        var state = tabs[tab]!
        let failed = Set(running.map(\.id))
        pending.removeAll(tab: tab)
        state.navigating = false
        state.terminating = false
        forgetProcessState(&state)
        if state.stopping || quitting {
            if case .down = state.phase {} else { state.phase = .stopped }
            state.stopping = false
            tabs[tab] = state
            return
        }
        var reason = state.exitReason ?? "plugin \(how)"
        if state.exitReason != nil && how != "could not start" { reason += " (\(how))" }
        if state.exitReason == nil, let last = state.recentStderr.last { reason += "; last stderr: \(last)" }
        state.crashes = state.crashes.filter { now - $0 < settings.crashWindow } + [now]
        if state.crashes.count >= settings.crashBudget {
            state.phase = .down(reason: "\(reason); crashed \(state.crashes.count) times in \(Int(settings.crashWindow)) s, left down (press r or run `restart`)")
            state.notice = nil
        } else {
            let delay = min(settings.maxBackoff, settings.baseBackoff * Double(1 << (state.crashes.count - 1)))
            state.phase = .failed(reason: reason, retryAt: now + delay)
            // A tab in use comes back by itself: its plugin restarts after the backoff and the
            // session is replayed. Others restart when next used.
            if state.reopenLevel != nil || config.tab(tab)!.background || (followsView && tab == layout.selected) {
                effects.append(.wake(at: now + delay))
            }
        }
        state.error = reason
        state.restartReason = reason
        state.exitReason = nil
        tabs[tab] = state
        effects.append(.log(tab: tab, "tabdeck: \(reason)"))
        if let a = active {
            let concerned: Bool
            if case .plugin(.restart, let word) = a.command {
                // `plugin restart` tries once: a crash ends it (the next use retries with backoff).
                concerned = ((try? word.map { (w) throws(CommandError) in try resolveTab(w) }) ?? a.tab) == tab
            } else {
                concerned = a.tab == tab || a.awaiting.map { failed.contains($0) } == true
            }
            if concerned { finish(.failed("tab \(tab): \(reason)"), &effects) }
        }
    }

    /// What died with a plugin process: its table handles and requests. The stack, the views
    /// (sort, filter, columns, cursor, selection) and the cursor's row id stay, to be replayed by
    /// the next process; the cached rows stay on screen until the reopened table replaces them.
    func forgetProcessState(_ state: inout TabState) {
        for i in state.stack.indices {
            let t = state.stack[i]
            if state.stack[i].cursorRowID == nil && !t.hasUnstableRowIDs { state.stack[i].cursorRowID = t.cache.row(at: t.view.cursor)?.id }
            state.stack[i].locateWanted = state.stack[i].cursorRowID != nil  // asked once the stack is open again
            state.stack[i].cache.partial = [:]
            state.stack[i].wholeFetch = nil
            state.stack[i].rowsFailure = nil
            state.stack[i].forgetOutlineTables()
        }
        state.reopenLevel = state.stack.isEmpty ? nil : 0
        state.openFailure = nil
    }

    /// Restarts the plugins whose backoff has passed and whose tab is in use (a stack to
    /// replay, a background tab, or the tab on screen).
    mutating func restartDue(_ effects: inout [Effect]) {
        for id in layout.orderedTabs {
            guard let t = tabs[id], case .failed(_, let retryAt) = t.phase, retryAt <= now, !t.terminating else { continue }
            if t.reopenLevel != nil || config.tab(id)!.background || (followsView && id == layout.selected) {
                _ = ensureReady(id, &effects)
            }
        }
    }

    /// Opens level `level` of the stack again in the new process: `open` for the root,
    /// `children` of the parent's row for a drill-down.
    mutating func reopen(_ tab: String, level: Int, _ effects: inout [Effect]) {
        let stack = tabs[tab]!.stack
        guard level < stack.count else { return reopened(tab, &effects) }
        tabs[tab]!.reopenLevel = level
        tabs[tab]!.navigating = true
        if level == 0 {
            _ = request(tab, Method.open, ["args": config.tab(tab)!.args], .reopen(level: 0), &effects)
        } else {
            let parent = stack[level - 1]
            switch stack[level].derived {
            case .group(let source)?:
                // The table it filters, under more conditions: its handle, nothing to ask.
                reopenReply(tab, level: level, .result(stack[source].description.json), &effects)
            case let derived?:
                let handle = derived.source.map { stack[$0].description.table } ?? ""
                if let (method, params) = derivedRequest(derived, on: handle) {
                    _ = request(tab, method, params, .reopen(level: level), &effects)
                }
            case nil:
                let row = String(stack[level].key.dropFirst(parent.key.count + 1))
                _ = request(tab, Method.children, ["table": .string(parent.description.table), "row": .string(row)],
                            .reopen(level: level), &effects)
            }
        }
    }

    /// A reply to a replayed `open` or `children`: the level gets the new process's table
    /// (handle, columns, count) with the user's view kept, then the next level is opened.
    mutating func reopenReply(_ tab: String, level: Int, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        guard tabs[tab]!.reopenLevel == level, level < tabs[tab]!.stack.count else { return }
        let derived = tabs[tab]!.stack[level].derived
        let what = level == 0 ? "open" : (derived == nil ? "children" : "its request")
        var description: TableDescription
        var refreshed = derived
        do {
            switch outcome {
            case .error(let message): throw CommandError(message)
            case .result(let value):
                if let derived, !derived.sharesHandle {
                    (description, refreshed) = try remade(tab, level: level, value)
                } else {
                    description = try TableDescription(value).checked()
                }
            }
        } catch {
            tabs[tab]!.navigating = false
            tabs[tab]!.reopenLevel = nil
            if level == 0 {
                tabs[tab]!.stack = []
                tabs[tab]!.error = "reopening after a restart: \(what) failed: \(error)"
                tabs[tab]!.openFailure = .next(after: nil, tabs[tab]!.error!, now: now, settings: settings)
            } else {
                let lost = tabs[tab]!.stack[level].label
                tabs[tab]!.stack.removeLast(tabs[tab]!.stack.count - level)
                tabs[tab]!.notice = "plugin restarted; \(lost) could not be opened again: \(error)"
            }
            if active?.tab == tab { finish(.failed("tab \(tab): \(tabs[tab]!.error ?? tabs[tab]!.notice!)"), &effects) }
            return
        }
        var t = tabs[tab]!.stack[level]
        t.derived = refreshed
        let fresh = makeTable(tab: tab, key: t.key, description: description, label: t.label, view: t.view)
        t.description = fresh.description
        t.view = fresh.view
        t.setTotal(fresh.total, estimate: fresh.totalIsEstimate)
        t.generation += 1
        t.cache.removeAll()
        t.endWanted = nil
        tabs[tab]!.stack[level] = t
        reopen(tab, level: level + 1, &effects)
    }

    /// The whole stack is open again: say so in the tab.
    mutating func reopened(_ tab: String, _ effects: inout [Effect]) {
        var t = tabs[tab]!
        t.reopenLevel = nil
        t.navigating = false
        t.error = nil
        if let reason = t.restartReason, !t.crashes.isEmpty {
            let lost = t.lostViewRequest ? t.table.flatMap { lostViewNotice($0, reason: reason) } : nil
            t.notice = "plugin restarted (\(t.crashes.count) of \(settings.crashBudget))" + (lost.map { "; " + $0 } ?? ": \(reason)")
        } else {
            t.notice = "plugin restarted"
        }
        t.restartReason = nil
        t.lostViewRequest = false
        tabs[tab] = t
        effects.append(.log(tab: tab, "tabdeck: \(t.notice!); \(t.stack.count) level(s) opened again"))
        effects.append(.notice(tab: tab, t.notice!))
    }

    mutating func runPluginCommand(_ verb: Command.PluginVerb, _ tab: String, _ a: inout ActiveCommand,
                                   _ effects: inout [Effect]) throws(CommandError) -> Step {
        guard config.tab(tab) != nil else { throw CommandError("no tab selected") }
        switch verb {
        case .log:
            effects.append(.showLog(tab: tab))
            active = nil
            return .waiting
        case .status:
            var lines: [String] = []
            var items: [JSONValue] = []
            // `plugin status` lists every tab; `plugin status TAB` only that one.
            var only: String?
            if case .plugin(_, tab: _?) = a.command { only = tab }
            for id in layout.orderedTabs where only == nil || id == only {
                let t = tabs[id]!
                var detail: [String] = []
                if case .ready(let r) = t.phase { detail.append("\(Sanitizer.clean(r.name)) \(Sanitizer.clean(r.version))") }
                if case .failed(_, let retry) = t.phase { detail.append("restarts on next use after \(String(format2: max(0, retry - now))) s") }
                let inflight = pendingRequests(tab: id)
                if inflight > 0 { detail.append("\(inflight) requests in flight") }
                if !t.crashes.isEmpty { detail.append("\(t.crashes.count) recent crashes") }
                if let e = t.problem { detail.append("error: \(Sanitizer.clean(e))") }
                if let n = t.notice { detail.append(Sanitizer.clean(n)) }
                let remote = config.tab(id)?.remote?.destination
                if let remote { detail.append("on \(remote) (ssh)") }
                lines.append("\(id): \(t.phase.name)" + (detail.isEmpty ? "" : " — " + detail.joined(separator: "; ")))
                items.append(["tab": .string(id), "state": .string(t.phase.name), "error": t.problem.map { .string($0) } ?? .null,
                              "crashes": .int(Int64(t.crashes.count)), "inflight": .int(Int64(inflight)),
                              "notice": t.notice.map { .string($0) } ?? .null, "remote": remote.map { .string($0) } ?? .null])
            }
            return .done(CommandOutput(text: lines.joined(separator: "\n"), json: .array(items)))
        case .restart:
            if !a.applied {
                a.applied = true
                // The stack and views stay: the new process replays them (as after a crash).
                var t = tabs[tab]!
                t.crashes = []
                t.error = nil
                t.notice = nil
                t.openFailure = nil
                for i in t.stack.indices { t.stack[i].rowsFailure = nil }
                t.navigating = false
                switch t.phase {
                case .starting, .ready:
                    Self.stop(&t, kill: false, &effects)
                default:
                    // Stopped at once, or once a stop under way ends (a plugin that spoke another
                    // protocol, in its grace period): the new process starts after the old is gone.
                    t.phase = .stopped
                    if !t.terminating { forgetProcessState(&t) }
                }
                tabs[tab] = t
                pending.removeAll(tab: tab)
            }
            switch ensureTable(tab, &effects) {
            case .ready: return .done(CommandOutput(text: "restarted \(tab)", json: ["restarted": .string(tab)]))
            case .waiting: return .waiting
            case .unavailable(let reason): return .failed("tab \(tab): \(reason)")
            }
        }
    }
}

extension String {
    /// A number with one decimal.
    init(format2 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
