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

    /// Starts the plugin and opens the tab's root table if needed.
    mutating func ensureTable(_ tab: String, _ effects: inout [Effect]) -> Readiness {
        switch ensureReady(tab, &effects) {
        case .ready: break
        case let other: return other
        }
        if !tabs[tab]!.stack.isEmpty { return .ready }
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
                if config.tab(tab)!.background && tabs[tab]!.stack.isEmpty {
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
            if active?.tab == tab { finish(.failed("tab \(tab): open failed: \(message)"), &effects) }
        case .result(let value):
            do {
                let description = try TableDescription(value).checked()
                let table = makeTable(tab: tab, key: "", description: description, label: config.tab(tab)!.title)
                tabs[tab]!.stack = [table]
                tabs[tab]!.error = nil
            } catch {
                tabs[tab]!.error = "open returned a bad table description: \(error)"
                if active?.tab == tab { finish(.failed("tab \(tab): \(tabs[tab]!.error!)"), &effects) }
            }
        }
    }

    /// A table state for a description, with the stored view reconciled against its columns.
    func makeTable(tab: String, key: String, description: TableDescription, label: String) -> TableState {
        var view = savedViews[TableViewKey(tab: tab, table: key)] ?? TableViewState()
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
        var table = TableState(key: key, description: description, view: view, label: label,
                               cache: PageCache(pageSize: settings.pageSize, capacity: settings.cachePages))
        if view.filter != nil { table.total = nil }
        return table
    }

    /// Asks the runtime to stop (or kill) a tab's plugin; its exit is then expected, not a crash.
    static func stop(_ t: inout TabState, kill: Bool, _ effects: inout [Effect]) {
        t.stopping = true
        t.terminating = true
        effects.append(kill ? .killPlugin(tab: t.id) : .stopPlugin(tab: t.id))
    }

    /// The plugin process is gone: fail what waited on it and decide when it may restart.
    mutating func pluginGone(_ tab: String, how: String, _ effects: inout [Effect]) {
        var state = tabs[tab]!
        let failed = pending.filter { $0.value.tab == tab }
        for id in failed.keys { pending[id] = nil }
        state.navigating = false
        state.terminating = false
        for i in state.stack.indices { state.stack[i].cache.inflight = [:] }
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
            state.phase = .down(reason: "\(reason); crashed \(state.crashes.count) times in \(Int(settings.crashWindow)) s, left down (run `plugin restart`)")
        } else {
            let delay = min(settings.maxBackoff, settings.baseBackoff * Double(1 << (state.crashes.count - 1)))
            state.phase = .failed(reason: reason, retryAt: now + delay)
        }
        state.error = reason
        state.exitReason = nil
        tabs[tab] = state
        effects.append(.log(tab: tab, "tabdeck: \(reason)"))
        if let a = active {
            let concerned: Bool
            if case .plugin(.restart, let word) = a.command {
                // `plugin restart` tries once: a crash ends it (the next use retries with backoff).
                concerned = ((try? word.map { (w) throws(CommandError) in try resolveTab(w) }) ?? a.tab) == tab
            } else {
                concerned = a.tab == tab || a.awaiting.map { failed[$0] != nil } == true
            }
            if concerned { finish(.failed("tab \(tab): \(reason)"), &effects) }
        }
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
                if let e = t.error { detail.append("error: \(Sanitizer.clean(e))") }
                lines.append("\(id): \(t.phase.name)" + (detail.isEmpty ? "" : " — " + detail.joined(separator: "; ")))
                items.append(["tab": .string(id), "state": .string(t.phase.name), "error": t.error.map { .string($0) } ?? .null,
                              "crashes": .int(Int64(t.crashes.count)), "inflight": .int(Int64(inflight))])
            }
            return .done(CommandOutput(text: lines.joined(separator: "\n"), json: .array(items)))
        case .restart:
            if !a.applied {
                a.applied = true
                var t = tabs[tab]!
                t.crashes = []
                t.error = nil
                t.stack = []
                t.navigating = false
                switch t.phase {
                case .starting, .ready:
                    Self.stop(&t, kill: false, &effects)
                default:
                    if !t.terminating { t.phase = .stopped }
                }
                tabs[tab] = t
                for (id, p) in pending where p.tab == tab { pending[id] = nil }
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
