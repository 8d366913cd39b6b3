import TabdeckProtocol

/// Expanding rows in place: the `expand` command, the `children` and `rows` requests of the
/// child tables of expanded rows in view, and moving the cursor through the tree.
extension Workspace {
    /// `expand [ID]`: expands the row (the cursor's, which may be a child row, by default) or
    /// collapses it when it is expanded. Saved with the view.
    mutating func runExpand(_ word: String?, _ t: inout TableState, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = layout.selected ?? ""
        guard tabs[tab]?.capabilities?.children == true else {
            throw CommandError("rows of \(tabName(tab)) cannot be expanded (they have no rows under them)")
        }
        let target: OutlinePosition
        if let word {
            let cache = t.cache, size = cache.pageSize
            guard let i = cache.cachedPages.lazy.compactMap({ p in (p * size..<(p + 1) * size).first { cache.row(at: $0)?.id == word } }).first else {
                throw CommandError("row \(Sanitizer.clean(word)) is not loaded (move to it, then press o)")
            }
            target = OutlinePosition(row: i, path: [])
        } else {
            target = t.cursorPosition
        }
        guard let row = t.outlineRow(target), let ids = t.outlineIDs(target) else { throw CommandError("the row is not loaded yet") }
        let name = Sanitizer.clean(row.id)
        if t.isExpanded(ids) {
            collapse(&t, ids, tab, &effects)
            // A cursor inside the collapsed rows goes up to the row.
            if t.view.cursor == target.row, t.cursorPath.count > target.path.count,
               Array(t.cursorPath.prefix(target.path.count)) == target.path {
                t.cursorPath = target.path
            }
            return .done(saveTable(t, tab, &effects, CommandOutput(text: "collapsed \(name)", json: ["collapsed": .string(row.id)])))
        }
        guard row.hasChildren else { throw CommandError("row \(name) has no children") }
        t.view.expanded.removeAll { $0 == ids }
        t.view.expanded.append(ids)
        if t.view.expanded.count > TableViewState.maxExpanded {
            for old in t.view.expanded.prefix(t.view.expanded.count - TableViewState.maxExpanded) { collapse(&t, old, tab, &effects) }
        }
        return .done(saveTable(t, tab, &effects, CommandOutput(text: "expanded \(name)", json: ["expanded": .string(row.id)])))
    }

    /// Collapses the row with `ids` and every expanded row below it: their child tables are
    /// closed and their requests cancelled.
    mutating func collapse(_ t: inout TableState, _ ids: [String], _ tab: String, _ effects: inout [Effect]) {
        let below = { (path: [String]) in path.count >= ids.count && Array(path.prefix(ids.count)) == ids }
        t.view.expanded.removeAll(where: below)
        for path in t.outline.keys.filter(below).sorted(by: { $0.count > $1.count }) {
            closeChild(t.outline.removeValue(forKey: path)!, path: path, of: t.key, tab, &effects)
        }
    }

    /// Closes every child table of `t` (the table is left or popped).
    mutating func closeOutline(_ t: TableState, _ tab: String, _ effects: inout [Effect]) {
        for path in t.outline.keys.sorted(by: { $0.count > $1.count }) { closeChild(t.outline[path]!, path: path, of: t.key, tab, &effects) }
    }

    mutating func closeChild(_ child: OutlineChild, path: [String], of key: String, _ tab: String, _ effects: inout [Effect]) {
        if let id = child.request { cancel(id, &effects) }
        for (id, purpose) in pending.running(tab: tab) {
            if case .childRows(let table, let p, _, _) = purpose, table == key, p == path { cancel(id, &effects) }
        }
        if let d = child.description {
            effects.append(.send(tab: tab, .notification(method: Method.close, params: ["table": .string(d.table)])))
        }
    }

    /// `j`/`k` through the tree: into an expanded row's children and out again. Returns false
    /// when the table has nothing expanded (the plain move applies) or the step is not by one.
    mutating func stepOutline(_ t: inout TableState, _ tab: String, by delta: Int, _ effects: inout [Effect]) -> Bool {
        guard abs(delta) == 1, !t.view.expanded.isEmpty || !t.cursorPath.isEmpty else { return false }
        let here = t.cursorPosition
        guard let next = delta > 0 ? t.outlineStep(down: here) : t.outlineStep(up: here) else { return true }
        t.view.cursor = next.row
        t.cursorPath = next.path
        if next.row < t.view.scrollOffset { t.view.scrollOffset = next.row }
        if next.row >= t.view.scrollOffset + viewportRows { t.view.scrollOffset = next.row - viewportRows + 1 }
        storeMoved(t, tab)
        _ = fetch(tab, t.view.scrollOffset..<(t.view.scrollOffset + viewportRows), &effects)
        fetchOutline(tab, &effects)
        return true
    }

    /// Opens the child tables of the expanded rows in view and fetches the pages of their rows
    /// that can be on screen: the first rows, or those around the cursor when it is inside.
    mutating func fetchOutline(_ tab: String, _ effects: inout [Effect]) {
        guard case .ready = tabs[tab]!.phase, tabs[tab]!.reopenLevel == nil, !tabs[tab]!.terminating,
              tabs[tab]!.capabilities?.children == true, var t = tabs[tab]!.table, !t.view.expanded.isEmpty else { return }
        let start = t.view.scrollOffset
        for r in start..<(start + viewportRows) {
            guard let row = t.cache.row(at: r) else { continue }
            fetchChildren(&t, tab, ids: [row.id], position: OutlinePosition(row: r, path: []), &effects)
        }
        tabs[tab]!.table = t
    }

    private mutating func fetchChildren(_ t: inout TableState, _ tab: String, ids: [String], position: OutlinePosition,
                                        _ effects: inout [Effect]) {
        guard t.isExpanded(ids) else { return }
        var child = t.outline[ids] ?? OutlineChild(cache: PageCache(pageSize: settings.pageSize, capacity: 8))
        guard child.failure == nil else { return }
        guard let d = child.description else {
            if child.request == nil {
                let holder = ids.count == 1 ? t.description.table : t.outline[Array(ids.dropLast())]?.description?.table
                guard let holder else { return }
                child.request = request(tab, Method.children, ["table": .string(holder), "row": .string(ids.last!)],
                                        .expand(table: t.key, path: ids), &effects)
            }
            t.outline[ids] = child
            return
        }
        // The rows that can be on screen: the first ones, or those around the cursor inside.
        var around = 0
        if t.view.cursor == position.row, t.cursorPath.count > position.path.count,
           Array(t.cursorPath.prefix(position.path.count)) == position.path {
            around = t.cursorPath[position.path.count]
        }
        var wanted = max(0, around - viewportRows)..<(around + viewportRows)
        if let total = child.total { wanted = min(wanted.lowerBound, total)..<min(wanted.upperBound, total) }
        if !wanted.isEmpty {
            let asked = childPagesInFlight(tab, table: t.key, path: ids, generation: child.generation)
            for page in child.cache.page(of: wanted.lowerBound)...child.cache.page(of: wanted.upperBound - 1)
            where !child.cache.has(page: page) && asked[page] == nil {
                let params = RowsRequest(table: d.table, offset: page * child.cache.pageSize, limit: child.cache.pageSize,
                                         generation: child.generation)
                _ = request(tab, Method.rows, params.json,
                            .childRows(table: t.key, path: ids, generation: child.generation, page: page), &effects)
            }
        }
        t.outline[ids] = child
        for k in wanted {
            guard let row = child.cache.row(at: k) else { continue }
            fetchChildren(&t, tab, ids: ids + [row.id], position: OutlinePosition(row: position.row, path: position.path + [k]), &effects)
        }
    }

    /// The answer to an expanded row's `children`.
    mutating func expandReply(_ tab: String, table key: String, path: [String], _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        let description: TableDescription?
        var failure: String?
        switch outcome {
        case .error(let message): description = nil; failure = message
        case .result(let value):
            do { description = try TableDescription(value).checked() } catch { description = nil; failure = "bad table description: \(error)" }
        }
        guard let i = tabs[tab]!.stack.firstIndex(where: { $0.key == key }), var child = tabs[tab]!.stack[i].outline[path],
              child.request != nil else {
            // Collapsed meanwhile: the plugin may free the table at once.
            if let d = description { effects.append(.send(tab: tab, .notification(method: Method.close, params: ["table": .string(d.table)]))) }
            return
        }
        child.request = nil
        child.description = description
        child.total = description?.total
        child.failure = failure.map { "children of \(path.last!): \($0)" }
        tabs[tab]!.stack[i].outline[path] = child
    }

    /// A page of an expanded row's child table.
    mutating func childRowsReply(_ tab: String, table key: String, path: [String], generation: Int, page: Int, _ outcome: ReplyOutcome) {
        guard let i = tabs[tab]!.stack.firstIndex(where: { $0.key == key }), var child = tabs[tab]!.stack[i].outline[path],
              child.generation == generation else { return }
        switch outcome {
        case .error(let message): child.failure = "rows of \(path.last!): \(message)"
        case .result(let value):
            do {
                let result = try RowsResult(value).checked()
                child.cache.store(page: page, rows: result.rows)
                if result.totalSent, let total = result.total { child.total = total }
                if result.rows.count < child.cache.pageSize && (child.total == nil || !result.totalSent) {
                    child.total = page * child.cache.pageSize + result.rows.count
                }
            } catch {
                child.failure = "rows of \(path.last!): bad result: \(error)"
            }
        }
        tabs[tab]!.stack[i].outline[path] = child
    }

    /// An `invalidate` naming a child table (or every table) drops its rows: they are fetched
    /// again while in view.
    mutating func invalidateOutline(_ tab: String, table: String?, rows: [String]?) {
        for i in tabs[tab]!.stack.indices {
            for (path, var child) in tabs[tab]!.stack[i].outline where table == nil || child.description?.table == table {
                if let rows { child.cache.remove(ids: Set(rows)) } else { child.cache.removeAll(); child.generation += 1 }
                tabs[tab]!.stack[i].outline[path] = child
            }
        }
    }
}
