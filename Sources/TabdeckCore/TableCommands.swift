import TabdeckProtocol

extension Workspace {
    /// Commands on the selected tab's current table.
    mutating func runTableCommand(_ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        guard config.tab(tab) != nil else { throw CommandError("no tab is selected (all tabs are hidden?)") }
        switch ensureTable(tab, &effects) {
        case .ready: break
        case .waiting: return .waiting
        case .unavailable(let reason): return .failed("tab \(tab): \(reason)")
        }
        var t = tabs[tab]!.table!
        switch a.command {
        case .columns:
            return .done(columnsOutput(t))
        case .columnHide(let word), .columnShow(let word):
            let id = try resolveColumn(word, in: t)
            let hide: Bool
            if case .columnHide = a.command { hide = true } else { hide = false }
            if hide && t.visibleColumns.count == 1 && t.visibleColumns[0].id == id {
                throw CommandError("column \(id) is the last visible column")
            }
            let i = t.view.columns.firstIndex { $0.id == id }!
            t.view.columns[i].hidden = hide
            return .done(saveTable(t, tab, &effects, columnsOutput(t)))
        case .columnMove(let word, let position):
            let id = try resolveColumn(word, in: t)
            let i = t.view.columns.firstIndex { $0.id == id }!
            let c = t.view.columns.remove(at: i)
            t.view.columns.insert(c, at: min(position - 1, t.view.columns.count))
            return .done(saveTable(t, tab, &effects, columnsOutput(t)))
        case .columnWidth(let word, let width):
            let id = try resolveColumn(word, in: t)
            let i = t.view.columns.firstIndex { $0.id == id }!
            t.view.columns[i].width = width == 0 ? nil : width
            return .done(saveTable(t, tab, &effects, columnsOutput(t)))
        case .columnReset:
            t.resetColumns()
            return .done(saveTable(t, tab, &effects, columnsOutput(t)))
        case .sortShow:
            return .done(sortOutput(t))
        case .sortBy(let word, let direction):
            let id = try resolveColumn(word, in: t)
            let spec = t.description.columns.first { $0.id == id }!
            guard spec.sortable else {
                // The spool marks a column in its source's own order not sortable for a plugin it sorts for.
                if spec.order == .source {
                    throw CommandError("column \(id) is not sortable: it is in its source's own order (\"order\": \"source\"), "
                                       + "which only the plugin can sort by, and plugin \(tab) does not sort by it")
                }
                throw CommandError("column \(id) is not sortable")
            }
            try requireSort(tab)
            setSort(&t, SortOrder.choose(id, direction: direction, in: t.view.sort), tab, &effects)
            let output = saveTable(t, tab, &effects, sortOutput(t))
            awaitView(tab, a.line)
            return .done(output)
        case .sortClear:
            setSort(&t, [], tab, &effects)
            let output = saveTable(t, tab, &effects, sortOutput(t))
            awaitView(tab, a.line)
            return .done(output)
        case .filterShow, .filterSet:
            if case .filterSet(let text) = a.command {
                try changeRowSet(&t, &a, tab, &effects) { (ws, t, effects) throws(CommandError) in
                    try ws.requireFilter(tab)
                    ws.setFilter(&t, text, tab, &effects)
                }
            }
            return viewAfterRowSet(tab, &effects) { [note = a.note] in $0.filterOutput($1, note: note) }
        case .whereShow, .whereSet:
            if case .whereSet(let terms) = a.command {
                try changeRowSet(&t, &a, tab, &effects) { (ws, t, effects) throws(CommandError) in
                    try ws.requireWhere(tab)
                    var clause: WhereClause = []
                    for term in terms ?? [] { clause.append(try term.typed(in: t.description.columns, label: t.label)) }
                    ws.setWhere(&t, clause, tab, &effects)
                }
            }
            return viewAfterRowSet(tab, &effects) { [note = a.note] in $0.whereOutput($1, note: note) }
        case .show(let n):
            let count = n ?? viewportRows
            guard count <= settings.maxShow else {
                throw CommandError("show prints at most \(settings.maxShow) rows; use export for more")
            }
            let start = t.view.scrollOffset
            switch fetch(tab, start..<(start + count), &effects) {
            case .waiting: return .waiting
            case .unavailable(let reason): return .failed(reason)
            case .ready: break
            }
            // `show` only prints: the view and the cursor stay where they are.
            return .done(TableText.rows(tabs[tab]!.table!, from: start, count: count))
        case .goto(let row):
            if let total = t.total, row > total { throw CommandError("row \(row) is past the end (\(total) rows)") }
            forgetCursorRow(&t)
            move(&t, cursor: row - 1)
            saveTable(t, tab, &effects, ())
            return .done(positionOutput(tab, &effects))
        case .page(let how):
            // While the plugin reports progress (a CSV being indexed), the count is on its way.
            if how == .last && t.total == nil && tabs[tab]!.progress != nil { return .waiting }
            forgetCursorRow(&t)
            try page(&t, how)
            saveTable(t, tab, &effects, ())
            return .done(positionOutput(tab, &effects))
        case .jump(let prefix):
            let section = try sectionMatching(t, prefix)
            if !a.applied {
                if let row = t.sectionStart(section.id) {
                    forgetCursorRow(&t)
                    move(&t, cursor: row, scroll: row)
                    saveTable(t, tab, &effects, ())
                    return .done(jumpOutput(section, tab, &effects))
                }
                // No counts and its first row not loaded: look through the rows for it.
                a.applied = true
                startSectionFind(section, &effects)
            }
            return try findOutcome() == nil ? .waiting : .done(jumpOutput(section, tab, &effects))
        case .find(let text, let backward):
            if !a.applied {
                a.applied = true
                startFind(text, backward: backward, &effects)
            }
            guard let (row, wrapped) = try findOutcome() else { return .waiting }
            let position = positionOutput(tab, &effects)
            let note = wrapped ? (backward ? " (wrapped past the first row)" : " (wrapped past the last row)") : ""
            return .done(CommandOutput(text: "found \"\(Sanitizer.clean(text))\" at \(position.text)\(note)",
                                       json: ["found": .int(Int64(row + 1)), "wrapped": .bool(wrapped), "position": position.json]))
        case .select(let ids):
            try t.requireStableRowIDs()
            t.view.selection.formUnion(ids)
            return .done(saveTable(t, tab, &effects, selectionOutput(t, brief: true)))
        case .unselect(let ids):
            try t.requireStableRowIDs()
            t.view.selection.subtract(ids)
            return .done(saveTable(t, tab, &effects, selectionOutput(t, brief: true)))
        case .selectNone:
            t.view.selection = []
            return .done(saveTable(t, tab, &effects, selectionOutput(t, brief: true)))
        case .selectAll:
            try t.requireStableRowIDs()
            // Constant time and size on any table: no rows are read (see RowSelection).
            t.view.selection = .allExcept([])
            return .done(saveTable(t, tab, &effects, selectionOutput(t, brief: true)))
        case .selection:
            return .done(selectionOutput(t, brief: false))
        case .export:
            return try runScan(&a, &effects)
        case .copy(let what, let column, let format):
            if what == .selection { try t.requireStableRowIDs() }
            return try runCopy(what, column: column, format: format ?? .tsv, &a, &effects)
        case .freq(let columns, let bins):
            return try runFreq(columns, bins: bins, &a, &effects)
        case .describe:
            return try runDescribe(&a, &effects)
        case .plot(let columns):
            return try runPlot(columns, &a, &effects)
        case .sql(let query):
            return try runQuery(query, &a, &effects)
        case .open(let rowWord):
            if rowWord == nil, case .frequency(let facts)? = t.derived { return try openGroup(t, facts, tab, &effects) }
            if rowWord == nil, case .describe(let facts)? = t.derived { return try openColumnFrequency(t, facts, &a, &effects) }
            if rowWord == nil && !t.cursorPath.isEmpty { throw CommandError("child rows expand in place: press o") }
            return try runOpen(rowWord, &a, &effects)
        case .expand(let rowWord):
            return try runExpand(rowWord, &t, &effects)
        case .back:
            guard tabs[tab]!.stack.count > 1 else { throw CommandError("already at the top of \(tab)") }
            let child = tabs[tab]!.stack.removeLast()
            closeOutline(child, tab, &effects)
            // A group's rows share the handle of the table below: nothing to close.
            if child.derived?.sharesHandle != true {
                effects.append(.send(tab: tab, .notification(method: Method.close, params: ["table": .string(child.description.table)])))
            }
            cancelPages(tab, table: child.key, &effects)
            return .done(breadcrumbOutput(tab))
        case .action(let word, let confirmed, let input):
            if !t.cursorPath.isEmpty && t.view.selection.isEmpty { throw CommandError("actions work on the table's own rows, not on an expanded row's children") }
            return try runAction(word, confirmed: confirmed, input: input, &a, &effects)
        case .rowMove(let how):
            return try runRowMove(how, &a, &effects)
        default:
            throw CommandError("not a table command")
        }
    }

    // MARK: Helpers

    func resolveColumn(_ word: String, in t: TableState) throws(CommandError) -> String {
        if t.description.columns.contains(where: { $0.id == word }) { return word }
        if let c = t.description.columns.first(where: { $0.title.lowercased() == word.lowercased() || $0.id.lowercased() == word.lowercased() }) {
            return c.id
        }
        throw CommandError("no column \"\(word)\" in \(t.label)",
                           suggestion: CommandParser.suggest(word, among: t.description.columns.map(\.id)))
    }

    func requireSort(_ tab: String) throws(CommandError) {
        guard let caps = tabs[tab]!.capabilities, caps.sort else {
            // The runtime's spool (TabdeckSpool) announces `sort` for plugins without it and sorts
            // for them; only a core driven without that edge (tests) gets here.
            throw CommandError("plugin \(tab) cannot sort, and no host-side sorting is set up for it")
        }
    }

    /// The sort keys sent to the plugin (only the first one if it cannot sort by several).
    func wireSort(_ t: TableState, _ tab: String) -> [SortKey] {
        guard let caps = tabs[tab]!.capabilities, caps.sort else { return [] }
        return caps.multiSort ? t.view.sort : Array(t.view.sort.prefix(1))
    }

    /// The filter sent to the plugin (none if it cannot filter: a filter restored from the
    /// store for a plugin that lost the capability is not sent).
    func wireFilter(_ t: TableState, _ tab: String) -> String? {
        guard let caps = tabs[tab]!.capabilities, caps.filter else { return nil }
        return t.view.filter
    }

    /// The exact filter sent to the plugin (none if it cannot apply one: a clause restored from
    /// the store for a plugin that lost the capability is not sent).
    func wireWhere(_ t: TableState, _ tab: String) -> WhereClause {
        guard let caps = tabs[tab]!.capabilities, caps.where else { return [] }
        return t.view.where
    }

    /// Changes the exact filter, as ``setFilter(_:_:_:_:)`` changes the text filter.
    mutating func setWhere(_ t: inout TableState, _ clause: WhereClause, _ tab: String, _ effects: inout [Effect]) {
        guard clause != t.view.where else { return }
        t.view.where = clause
        rowSetChanged(&t, tab, &effects)
    }

    func requireWhere(_ tab: String) throws(CommandError) {
        guard let caps = tabs[tab]!.capabilities, caps.where else {
            throw CommandError("\(tabName(tab)) cannot apply an exact filter (its plugin does not take conditions); filter TEXT finds text instead")
        }
    }

    /// Changes the filter: a new generation, an empty cache, an unknown row count, in-flight
    /// pages cancelled, the cursor on its row (or the nearest one) once it is found.
    mutating func setFilter(_ t: inout TableState, _ filter: String?, _ tab: String, _ effects: inout [Effect]) {
        guard filter != t.view.filter else { return }
        t.view.filter = filter
        rowSetChanged(&t, tab, &effects)
    }

    /// Applies a change of the rows kept (`filter`, `where`) once per command: `change` checks the
    /// plugin can and sets it; a selection of all rows that did not survive is noted; saved.
    mutating func changeRowSet(_ t: inout TableState, _ a: inout ActiveCommand, _ tab: String, _ effects: inout [Effect],
                               _ change: (inout Workspace, inout TableState, inout [Effect]) throws(CommandError) -> Void) throws(CommandError) {
        guard !a.applied else { return }
        a.applied = true
        let hadAll = t.view.selection.isAll
        try change(&self, &t, &effects)
        if hadAll && !t.view.selection.isAll { a.note = "the selection of all rows was cleared with the old filter" }
        saveTable(t, tab, &effects, ())
    }

    /// After a change of the rows kept: waits for the rows in view (they bring the new row
    /// count), then answers `output` of the table.
    mutating func viewAfterRowSet(_ tab: String, _ effects: inout [Effect], _ output: (Workspace, TableState) -> CommandOutput) -> Step {
        let start = tabs[tab]!.table!.view.scrollOffset
        switch fetch(tab, start..<(start + viewportRows), &effects) {
        case .waiting: return .waiting
        case .unavailable(let reason): return .failed(reason)
        case .ready: return .done(output(self, tabs[tab]!.table!))
        }
    }

    /// The rows the view keeps changed (a filter): "all rows" meant all rows matching the old
    /// filters, so it does not carry over; a new generation; the count and the sections'
    /// counts are unknown.
    mutating func rowSetChanged(_ t: inout TableState, _ tab: String, _ effects: inout [Effect]) {
        if t.view.selection.isAll { t.view.selection = [] }
        startGeneration(&t, tab, &effects)
        t.total = nil
        t.forgetSectionCounts()
    }

    func requireFilter(_ tab: String) throws(CommandError) {
        guard let caps = tabs[tab]!.capabilities, caps.filter else {
            throw CommandError("\(tabName(tab)) cannot filter (its plugin does not filter); / finds text instead")
        }
    }

    /// Changes the sort order: a new generation, an empty cache, in-flight pages cancelled.
    /// A cursor on the first row stays at the top of the new order (whoever looks at the top
    /// of a table sorts it to see the new top, not where the first row went); a cursor
    /// elsewhere keeps its row (CursorFollow.swift).
    mutating func setSort(_ t: inout TableState, _ order: [SortKey], _ tab: String, _ effects: inout [Effect]) {
        guard order != t.view.sort else { return }
        let atTop = t.view.cursor == 0 && t.cursorPath.isEmpty
        var undo = sortUndo(before: t)
        t.view.sort = order
        startGeneration(&t, tab, &effects)
        undo.generation = t.generation
        t.sortUndo = undo
        if atTop {
            forgetCursorRow(&t)
            move(&t, cursor: 0, scroll: 0)
        }
    }

    /// A new sort or filter: the next generation, with no page kept or awaited and no pending
    /// jump to the end. The cursor keeps its row (CursorFollow.swift): its id is anchored, and
    /// the cursor stays at its offset until the row is found.
    mutating func startGeneration(_ t: inout TableState, _ tab: String, _ effects: inout [Effect]) {
        t.endWanted = nil
        anchorCursor(&t, droppedRows: nil)
        t.generation += 1
        cancelPages(tab, table: t.key, &effects)
        t.cache.removeAll()
        t.pageFailures = [:]
    }

    /// Where the find a command waits for is: nil while it searches, the row it found, or an
    /// error when it found nothing or stopped.
    func findOutcome() throws(CommandError) -> (row: Int, wrapped: Bool)? {
        guard let f = find else { throw CommandError("the find was replaced by another") }
        switch f.phase {
        case .searching: return nil
        case .found(let row, let wrapped): return (row, wrapped)
        case .notFound:
            if f.section != nil { throw CommandError("section \(f.text) has no rows") }
            throw CommandError("\"\(f.text)\" is in no row")
        case .stopped(let reason): throw CommandError("the find stopped: \(reason)")
        }
    }

    /// `jump`'s output: the section and the new position.
    mutating func jumpOutput(_ section: SectionSpec, _ tab: String, _ effects: inout [Effect]) -> CommandOutput {
        let position = positionOutput(tab, &effects)
        return CommandOutput(text: "\(Sanitizer.clean(section.title)): \(position.text)",
                             json: ["section": .string(section.id), "position": position.json])
    }

    /// Moves by a page (`page next|prev|first|last`, PgDn PgUp g G).
    func page(_ t: inout TableState, _ how: Command.PageMove) throws(CommandError) {
        let page = viewportRows
        switch how {
        case .first: move(&t, cursor: 0, scroll: 0)
        case .next:
            // With sections, header and footer lines take room: move by the data rows shown.
            let shown = t.dataRows(from: t.view.scrollOffset, lines: page)
            move(&t, cursor: t.view.cursor + shown, scroll: t.view.scrollOffset + shown)
        case .prev: move(&t, cursor: max(0, t.view.cursor - page), scroll: max(0, t.view.scrollOffset - page))
        case .last:
            guard let total = t.total else {
                throw CommandError("the row count is not known yet (the plugin reports no progress), so there is no last page")
            }
            move(&t, cursor: max(0, total - 1), scroll: max(0, total - page))
        }
    }

    /// Stores the table back into the tab and persists its view; returns `output`.
    @discardableResult
    mutating func saveTable<T>(_ t: TableState, _ tab: String, _ effects: inout [Effect], _ output: T) -> T {
        tabs[tab]!.table = t
        let key = TableViewKey(tab: tab, table: t.key)
        savedViews[key] = t.view
        unsavedViews.remove(key)
        effects.append(.saveView(tab: tab, table: t.key, t.view))
        return output
    }

    /// Stores the table back into the tab after a key moved it, leaving the view to be saved
    /// by ``Event/saveViews`` (the screen sends it when keys pause), so no store write sits
    /// between a key and its frame.
    mutating func storeMoved(_ t: TableState, _ tab: String) {
        tabs[tab]!.table = t
        viewMoved(t, tab)
    }

    /// `t`'s view moved (a key, or the cursor following its row after a sort): it is saved with
    /// the next ``Event/saveViews``, like a key's move.
    mutating func viewMoved(_ t: TableState, _ tab: String) {
        let key = TableViewKey(tab: tab, table: t.key)
        savedViews[key] = t.view
        unsavedViews.insert(key)
    }

    /// Saves the views moved by keys since the last save.
    mutating func saveMovedViews(_ effects: inout [Effect]) {
        for key in unsavedViews.sorted(by: { ($0.tab, $0.table) < ($1.tab, $1.table) }) {
            if let view = savedViews[key] { effects.append(.saveView(tab: key.tab, table: key.table, view)) }
        }
        unsavedViews = []
    }

    /// Moves the cursor (clamped to the table). The view scrolls to `scroll` (default: the cursor's
    /// row at the top), then just enough to keep the cursor in view.
    func move(_ t: inout TableState, cursor: Int, scroll: Int? = nil) {
        var cursor = max(0, cursor)
        var scroll = max(0, scroll ?? cursor)
        if let total = t.total {
            cursor = min(cursor, max(0, total - 1))
            scroll = min(scroll, max(0, total - viewportRows))
        }
        if cursor < scroll { scroll = cursor }
        if cursor >= scroll + viewportRows { scroll = cursor - viewportRows + 1 }
        t.view.cursor = cursor
        t.view.scrollOffset = scroll
        t.cursorPath = []
    }

    /// Makes sure the rows in `range` are cached, requesting missing pages (plus read-ahead)
    /// and cancelling in-flight pages that are no longer wanted. Nothing is sent while the
    /// plugin is not ready or its stack is being reopened. A page whose `rows` request failed
    /// is asked for again only after its own backoff; the other pages are asked for as usual.
    mutating func fetch(_ tab: String, _ range: Range<Int>, _ effects: inout [Effect]) -> Readiness {
        guard case .ready = tabs[tab]!.phase, tabs[tab]!.reopenLevel == nil, !tabs[tab]!.terminating else { return .waiting }
        if tabs[tab]!.loadCancelled { return .unavailable("loading was cancelled (move, press r or run `refresh` to load again)") }
        locateCursorRow(tab, &effects)
        var t = tabs[tab]!.table!
        var range = range
        if let total = t.total { range = min(range.lowerBound, total)..<min(range.upperBound, total) }
        if range.isEmpty { return .ready }
        let firstPage = t.cache.page(of: range.lowerBound)
        let lastPage = t.cache.page(of: range.upperBound - 1)
        let needed = Set(firstPage...lastPage)
        t.neededPages = firstPage...lastPage
        var wanted = needed
        for p in max(0, firstPage - settings.readAhead)...(lastPage + settings.readAhead) {
            if let total = t.total, p * t.cache.pageSize >= total { continue }
            wanted.insert(p)
        }
        var inflight = pagesInFlight(tab, t)
        for (page, id) in inflight where !wanted.contains(page) {
            cancel(id, &effects)
            inflight[page] = nil
        }
        var backingOff: RequestFailure?
        var wake: Double?
        for page in wanted.sorted() where !t.cache.has(page: page) && inflight[page] == nil {
            if let failure = t.pageFailures[page], now < failure.retryAt || !needed.contains(page) {
                // A failed page waits for its backoff; a failed read-ahead page until it is needed.
                if needed.contains(page) {
                    wake = min(wake ?? failure.retryAt, failure.retryAt)
                    if backingOff == nil { backingOff = failure }
                }
                continue
            }
            inflight[page] = sendRows(t, tab, page: page, &effects)
        }
        if let wake { effects.append(.wake(at: wake)) }
        for page in needed { t.cache.touch(page: page) }
        tabs[tab]!.table = t
        let missing = needed.filter { !t.cache.has(page: $0) }
        if missing.isEmpty { return .ready }
        if let failure = backingOff, missing.allSatisfy({ inflight[$0] == nil }) {
            return .unavailable("\(failure.message) (tried \(failure.count) times, next try in \(String(format2: failure.retryAt - now)) s; `restart` tries now)")
        }
        return .waiting
    }

    /// Sends the `rows` request for one page of `t` in its current order and generation.
    /// A page that came short with more to follow is asked for from the row after its part.
    mutating func sendRows(_ t: TableState, _ tab: String, page: Int, _ effects: inout [Effect]) -> RequestID {
        let have = t.cache.partial[page]?.count ?? 0
        let params = RowsRequest(table: t.description.table, offset: page * t.cache.pageSize + have, limit: t.cache.pageSize - have,
                                 sort: wireSort(t, tab), filter: wireFilter(t, tab), where: wireWhere(t, tab), generation: t.generation)
        return request(tab, Method.rows, params.json, .rows(table: t.key, generation: t.generation, page: page), &effects)
    }

    mutating func pageReply(_ tab: String, table key: String, generation: Int, page: Int, _ outcome: ReplyOutcome,
                            _ effects: inout [Effect]) {
        guard let i = tabs[tab]!.stack.firstIndex(where: { $0.key == key }) else { return }
        var t = tabs[tab]!.stack[i]
        guard generation == t.generation else { return }  // a page of an old sort order
        let have = t.cache.partial[page]?.count ?? 0
        let rows = "rows \(page * t.cache.pageSize + have + 1)–\((page + 1) * t.cache.pageSize)"
        switch outcome {
        case .error(let message):
            pageFailed(&t, page: page, "\(rows): \(message)", &effects)
            tabs[tab]!.stack[i] = t
            if active?.tab == tab { finish(.failed("tab \(tab): \(rows): \(message)"), &effects) }
        case .result(let value):
            do {
                let result = try RowsResult(value).checked()
                guard result.generation == generation else { tabs[tab]!.stack[i] = t; return }
                let start = page * t.cache.pageSize + have
                guard result.offset == start || result.offset <= page * t.cache.pageSize else {
                    // The rest of a part dropped meanwhile (an invalidation): not this page's start.
                    t.cache.partial[page] = nil
                    tabs[tab]!.stack[i] = t
                    return
                }
                let got = (t.cache.partial[page] ?? []) + result.rows
                if result.more && got.count < t.cache.pageSize {
                    // A short page that is not the end: keep its part, ask for the rest.
                    t.cache.partial[page] = got
                    t.pageFailures[page] = nil
                    if result.totalSent, let total = result.total { t.takeTotal(total, estimate: result.totalIsEstimate) }
                    _ = sendRows(t, tab, page: page, &effects)
                    tabs[tab]!.stack[i] = t
                    return
                }
                let visible = Set(t.cache.page(of: t.view.scrollOffset)...t.cache.page(of: t.view.scrollOffset + viewportRows))
                var rows = Array(got.prefix(t.cache.pageSize))
                if case .frequency(let facts)? = t.derived { rows = Self.withBars(rows, facts, columns: t.description.columns) }
                if case .describe? = t.derived { rows = Self.withSparklines(rows, columns: t.description.columns) }
                t.cache.store(page: page, rows: rows, keep: visible)
                if result.totalSent, let total = result.total { t.takeTotal(total, estimate: result.totalIsEstimate) }
                if let sections = result.sections { t.updateSections(sections) }
                // A short page ends the table when the count is unknown, or only estimated (an
                // empty page past an estimate says nothing of where the rows end).
                if got.count < t.cache.pageSize
                    && (t.total == nil || !result.totalSent || (t.totalIsEstimate && !got.isEmpty)) {
                    t.total = page * t.cache.pageSize + got.count
                }
                t.pageFailures[page] = nil
                let place = (t.view.cursor, t.view.scrollOffset)
                Self.clampView(&t, viewportRows: viewportRows)
                followCursorRow(&t, page: page)
                tabs[tab]!.stack[i] = t
                if place != (t.view.cursor, t.view.scrollOffset) { viewMoved(t, tab) }
                settleViewJob(tab)
            } catch {
                pageFailed(&t, page: page, "\(rows): bad result: \(error)", &effects)
                tabs[tab]!.stack[i] = t
                if active?.tab == tab { finish(.failed("tab \(tab): \(rows): bad result: \(error)"), &effects) }
            }
        }
    }

    /// A `rows` request failed: that page backs off (its next request waits), other pages are
    /// not held back, and the failure is shown in the tab while the page is wanted.
    mutating func pageFailed(_ t: inout TableState, page: Int, _ message: String, _ effects: inout [Effect]) {
        t.cache.partial[page] = nil
        t.pageFailures[page] = .next(after: t.pageFailures[page], message, now: now, settings: settings)
        effects.append(.wake(at: t.pageFailures[page]!.retryAt))
    }

    /// Keeps the cursor and the view inside the table when its count went down (a table
    /// re-created smaller, rows deleted): the cursor goes to the last row, and the view shows
    /// the last screen rather than blank rows past the end.
    static func clampView(_ t: inout TableState, viewportRows: Int) {
        guard let total = t.total, !t.totalIsEstimate else { return }  // an estimate may be short
        let cursor = min(t.view.cursor, max(0, total - 1))
        let scroll = min(t.view.scrollOffset, max(0, total - viewportRows), cursor)
        if cursor != t.view.cursor { t.cursorPath = [] }
        t.view.cursor = cursor
        t.view.scrollOffset = scroll
    }
}
