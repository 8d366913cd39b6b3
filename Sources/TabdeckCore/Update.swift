import TabdeckProtocol

/// The outcome of one attempt to run the active command.
enum Step {
    case done(CommandOutput)
    case failed(String)
    case waiting
}

extension Workspace {
    /// The update function: applies one event and returns the effects for the runtime to carry
    /// out, in order. Pure: no I/O, time comes in as `now` (seconds).
    public mutating func update(_ event: Event, now: Double) -> [Effect] {
        self.now = now
        var effects: [Effect] = []
        switch event {
        case .command(let line):
            startCommand(line, &effects)
            advanceFind(&effects)
        case .run(let command):
            start(command, line: command.text, &effects)
            advanceFind(&effects)
        case .plugin(let tab, let pluginEvent):
            guard tabs[tab] != nil else { break }
            handle(pluginEvent, tab: tab, &effects)
            goToWantedEnd(tab, &effects)
            advance(&effects)
            if let f = find, f.isSearching, f.tab == tab, findRequests(f).isEmpty {
                stopFind("plugin \(tab) stopped", &effects)
                advance(&effects)
            }
            if followsView && tab == layout.selected { refreshSelected(&effects) }
        case .wake:
            // Only a wake-up gives requests up: the runtime takes every event already queued
            // first, so an answer that arrived before its deadline is never beaten by it. The
            // runtime keeps one timer, the earliest wake-up asked for, and this wake-up used it:
            // the next request deadline is asked for again below.
            requestWake = nil
            expireRequests(&effects)
            restartDue(&effects)
            advance(&effects)
            if followsView { refreshSelected(&effects) }
        case .effectFailed(let message):
            if active != nil { finish(.failed(message), &effects) }
        case .viewport(let rows):
            viewportRows = max(1, rows)
        case .refresh:
            followsView = true
            refreshSelected(&effects)
        case .wholeCells:
            fetchDetailCells(&effects)
        case .cursor(let delta):
            resumeLoading(layout.selected)
            moveCursor(by: delta, &effects)
        case .scroll(let rows):
            resumeLoading(layout.selected)
            scrollView(by: rows, &effects)
        case .find(let text, let backward):
            startFind(text, backward: backward, &effects)
        case .cancelFind:
            stopFind("cancelled", &effects)
            advance(&effects)  // a `find` or `jump` command waiting for it fails
        case .cancel:
            _ = cancelWork(&effects)
        case .page(let how):
            resumeLoading(layout.selected)
            guard let tab = layout.selected, var t = tabs[tab]?.table else { break }
            if how == .last && t.total == nil {
                // Scrolling never waits for a plugin: go to the end once the count is known.
                t.endWanted = t.view.cursor
                tabs[tab]!.table = t
                break
            }
            guard (try? page(&t, how)) != nil else { break }
            t.endWanted = nil
            storeMoved(t, tab)
            _ = fetch(tab, t.view.scrollOffset..<(t.view.scrollOffset + viewportRows), &effects)
        case .saveViews:
            saveMovedViews(&effects)
        }
        scheduleRequestWake(&effects)
        return effects
    }

    /// Makes sure the selected tab's visible rows are cached or on their way (no output).
    mutating func refreshSelected(_ effects: inout [Effect]) {
        guard let tab = layout.selected, tabs[tab] != nil else { return }
        guard case .ready = ensureTable(tab, &effects), let t = tabs[tab]!.table else { return }
        if case .plot? = t.derived {
            // A chart shows every group at once (at most Chart.xBins × Chart.yBins).
            _ = fetch(tab, 0..<max(1, min(t.total ?? settings.pageSize, Chart.xBins * Chart.yBins)), &effects)
        } else {
            _ = fetch(tab, t.view.scrollOffset..<(t.view.scrollOffset + viewportRows), &effects)
        }
        fetchOutline(tab, &effects)
    }

    /// Goes to the last row of `tab`'s table if `G` asked for it before the row count was
    /// known, the count is now known, and the cursor has not moved since.
    mutating func goToWantedEnd(_ tab: String, _ effects: inout [Effect]) {
        guard var t = tabs[tab]?.table, let wanted = t.endWanted, t.total != nil else { return }
        t.endWanted = nil
        guard t.view.cursor == wanted, (try? page(&t, .last)) != nil else { tabs[tab]!.table = t; return }
        storeMoved(t, tab)
        if tab == layout.selected { _ = fetch(tab, t.view.scrollOffset..<(t.view.scrollOffset + viewportRows), &effects) }
    }

    /// Moves the selected table's cursor, keeping the scroll unless the cursor leaves the view.
    mutating func moveCursor(by delta: Int, _ effects: inout [Effect]) {
        guard let tab = layout.selected, var t = tabs[tab]?.table else { return }
        if stepOutline(&t, tab, by: delta, &effects) { return }
        var cursor = max(0, t.view.cursor + delta)
        if let total = t.total { cursor = min(cursor, max(0, total - 1)) }
        var scroll = t.view.scrollOffset
        if cursor < scroll { scroll = cursor }
        if cursor >= scroll + viewportRows { scroll = cursor - viewportRows + 1 }
        guard cursor != t.view.cursor || scroll != t.view.scrollOffset else { return }
        t.view.cursor = cursor
        t.view.scrollOffset = scroll
        storeMoved(t, tab)
        _ = fetch(tab, scroll..<(scroll + viewportRows), &effects)
    }

    // MARK: Commands

    mutating func startCommand(_ line: String, _ effects: inout [Effect]) {
        let command: Command
        do {
            guard let parsed = try CommandParser.parse(line) else {
                effects.append(.commandDone(CommandOutput(text: "", json: .null)))
                return
            }
            command = parsed
        } catch {
            effects.append(.commandFailed(error.description))
            return
        }
        start(command, line: line.trimmingWhitespace, &effects)
    }

    /// Starts `command` (`line`: how it was typed, for messages about it).
    mutating func start(_ command: Command, line: String, _ effects: inout [Effect]) {
        if command == .cancel {
            let what = cancelWork(&effects)
            effects.append(.commandDone(CommandOutput(text: what.map { "cancelled \($0)" } ?? "nothing to cancel",
                                                      json: ["cancelled": what.map { .string($0) } ?? .null])))
            return
        }
        if let active {
            // What does not touch the running command's table runs beside it (other tabs, help).
            if runsBeside(command) { runBeside(command, &effects); return }
            effects.append(.commandFailed("busy: still running \"\(active.line)\" (Esc or `cancel` stops it)"))
            return
        }
        resumeLoading(layout.selected)
        if let tab = layout.selected { tabs[tab]?.notice = nil }
        active = ActiveCommand(command: command, tab: layout.selected ?? "", line: line)
        advance(&effects)
    }

    /// Stops the running command (its requests get `$/cancel`; it fails with "cancelled") and the
    /// find; returns what was stopped, nil if nothing ran.
    mutating func cancelWork(_ effects: inout [Effect]) -> String? {
        var stopped: [String] = []
        if let f = find, f.isSearching {
            stopFind("cancelled", &effects)
            stopped.append("the find")
        }
        if let a = active {
            if let id = a.awaiting { cancel(id, &effects) }
            // The pages it waited for too: they are asked for again when next needed.
            if let t = tabs[a.tab]?.table, !pagesInFlight(a.tab, t).isEmpty {
                cancelPages(a.tab, table: t.key, &effects)
                tabs[a.tab]!.loadCancelled = true  // not asked for again at once (a key moving the view does)
            }
            tabs[a.tab]?.progress = nil  // the plugin's report was about the work cancelled
            stopped.insert("\"\(a.line)\"", at: 0)
            finish(.failed("cancelled \"\(a.line)\""), &effects)
        }
        if stopped.isEmpty, let loading = cancelViewJob(&effects) ?? cancelOpening(&effects) { stopped.append(loading) }
        return stopped.isEmpty ? nil : stopped.joined(separator: " and ")
    }

    /// Runs the active command as far as it can go.
    mutating func advance(_ effects: inout [Effect]) {
        guard var command = active else { return }
        let step = run(&command, &effects)
        if active != nil { active = command }
        finish(step, &effects)
    }

    mutating func finish(_ step: Step, _ effects: inout [Effect]) {
        switch step {
        case .waiting: return
        case .done(let output):
            active = nil
            effects.append(.commandDone(output))
        case .failed(let message):
            if let scan = active?.scan, let tab = active?.tab {
                for id in scanInFlight(tab, table: scan.table, generation: scan.generation).values { cancel(id, &effects) }
                if scan.started, case .export = active?.command { effects.append(.exportEnd) }
            }
            if let id = active?.awaiting { pending.forget(id) }
            active = nil
            effects.append(.commandFailed(message))
        }
    }

    mutating func run(_ a: inout ActiveCommand, _ effects: inout [Effect]) -> Step {
        do {
            switch a.command {
            case .tabs, .tabSelect, .tabMove, .tabHide, .tabShow, .tabReset, .sectionMove:
                return .done(try runLayoutCommand(a.command, &effects))
            case .help(let topic):
                return .done(try help(topic))
            case .keys:
                return .done(keysOutput())
            case .mouse(let on):
                return .done(setMouse(on))
            case .quit:
                quitting = true
                effects.append(contentsOf: shutdown())
                effects.append(.quit)
                return .done(CommandOutput(text: "", json: ["quit": true]))
            case .refresh:
                return try runRefresh(&a, &effects)
            case .plugin(let verb, let tabWord):
                return try runPluginCommand(verb, tabWord.map { (w) throws(CommandError) in try resolveTab(w) } ?? a.tab, &a, &effects)
            default:
                return try runTableCommand(&a, &effects)
            }
        } catch {
            return .failed(error.description)
        }
    }

    // MARK: Plugin events

    mutating func handle(_ event: PluginEvent, tab: String, _ effects: inout [Effect]) {
        switch event {
        case .message(let message):
            handle(message, tab: tab, &effects)
        case .violation(let reason):
            tabs[tab]!.exitReason = "protocol violation: \(reason)"
            tabs[tab]!.terminating = true
            effects.append(.log(tab: tab, "tabdeck: protocol violation: \(reason)"))
        case .exited(let how):
            pluginGone(tab, how: how, &effects)
        case .spawnFailed(let reason):
            tabs[tab]!.exitReason = reason
            pluginGone(tab, how: "could not start", &effects)
        case .stderr(let line):
            var recent = tabs[tab]!.recentStderr
            recent.append(line)
            if recent.count > 5 { recent.removeFirst(recent.count - 5) }
            tabs[tab]!.recentStderr = recent
        }
    }

    mutating func handle(_ message: Message, tab: String, _ effects: inout [Effect]) {
        if case .notification(let method, _) = message, method == Method.progress || method == "rows/chunk" {
            // Work that reports progress is never cut off (a streamed chunk is progress too).
            pending.progress(tab: tab, now: now)
        }
        switch message {
        case .response(let id, let result):
            guard let p = pending.answer(id, tab: tab) else { tabs[tab]!.ignoredReplies += 1; return }
            reply(p, id: id, .result(result), &effects)
        case .failure(let id?, let error):
            guard let p = pending.answer(id, tab: tab) else { tabs[tab]!.ignoredReplies += 1; return }
            // People read the plugin's words; the protocol's code goes to the log.
            effects.append(.log(tab: tab, "tabdeck: error answer to request \(id): \(error.message) (code \(error.code))"))
            reply(p, id: id, .error("the plugin says: \(error.message)"), &effects)
        case .failure(nil, let error):
            effects.append(.log(tab: tab, "tabdeck: plugin reported an error without id: \(error.message) (code \(error.code))"))
        case .notification(let method, let params):
            do {
                guard let n = try PluginNotification.decode(method: method, params: params) else {
                    effects.append(.log(tab: tab, "tabdeck: ignored unknown notification \"\(method)\""))
                    return
                }
                apply(n, tab: tab, &effects)
            } catch {
                effects.append(.log(tab: tab, "tabdeck: bad \"\(method)\" notification: \(error)"))
            }
        case .request(_, let method, _):
            effects.append(.log(tab: tab, "tabdeck: ignored request \"\(method)\" from plugin (plugins send no requests in v1)"))
        }
    }

    mutating func apply(_ n: PluginNotification, tab: String, _ effects: inout [Effect]) {
        switch n {
        case .badge(let value): tabs[tab]!.badge = value
        case .status(let text): tabs[tab]!.status = text.isEmpty ? nil : text
        case .log(let level, let message): effects.append(.log(tab: tab, "[\(level)] \(message)"))
        case .progress(let done, let total, let message):
            let finished = total.map { done >= $0 } ?? false
            tabs[tab]!.progress = finished ? nil : PluginProgress(done: done, total: total, message: message)
        case .invalidate(let table, let rows, var total, let sections):
            if let count = total, !(0...maxRowCount).contains(count) {
                effects.append(.log(tab: tab, "tabdeck: bad \"invalidate\" notification: \(BadRowCount(field: "total", value: count)); the count is ignored"))
                total = nil
            }
            invalidateOutline(tab, table: table, rows: rows)
            recountDerived(tab, table: table, &effects)
            for i in tabs[tab]!.stack.indices where table == nil || tabs[tab]!.stack[i].description.table == table {
                anchorCursor(&tabs[tab]!.stack[i], droppedRows: rows.map(Set.init))
                if let rows { tabs[tab]!.stack[i].cache.remove(ids: Set(rows)) } else { tabs[tab]!.stack[i].cache.removeAll() }
                if let total { tabs[tab]!.stack[i].total = total; Self.clampView(&tabs[tab]!.stack[i], viewportRows: viewportRows) }
                if let sections { tabs[tab]!.stack[i].updateSections(sections) }
            }
        }
    }

    /// A reply to one of our requests.
    mutating func reply(_ p: PendingRequest, id: RequestID, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        let tab = p.tab
        switch p.purpose {
        case .initialize: handshakeReply(tab, outcome, &effects)
        case .open: openReply(tab, outcome, &effects)
        case .rows(let table, let generation, let page):
            pageReply(tab, table: table, generation: generation, page: page, outcome, &effects)
        case .scan(let table, let generation, let offset):
            scanReply(table: table, generation: generation, offset: offset, outcome)
        case .find(let table, let generation, let offset):
            findReply(table: table, generation: generation, offset: offset, outcome, &effects)
        case .findRow(let table, let generation):
            findRowReply(table: table, generation: generation, outcome, &effects)
        case .reopen(let level):
            reopenReply(tab, level: level, outcome, &effects)
        case .locate(let table, let generation): locateReply(tab, table: table, generation: generation, id: id, outcome)
        case .expand(let table, let path): expandReply(tab, table: table, path: path, outcome, &effects)
        case .childRows(let table, let path, let generation, let page):
            childRowsReply(tab, table: table, path: path, generation: generation, page: page, outcome)
        case .detailCell(let table):
            detailCellReply(tab, table: table, id: id, outcome, &effects)
        case .recount(let level, let handle): recountReply(tab, level: level, handle: handle, outcome, &effects)
        case .children, .action, .move, .cell:
            if active?.awaiting == id { active?.reply = outcome; active?.awaiting = nil }
        }
    }
}

extension String {
    /// The string without leading and trailing whitespace.
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
