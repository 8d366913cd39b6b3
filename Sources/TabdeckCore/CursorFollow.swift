import TabdeckProtocol

/// The cursor keeps its row: across a sort, a filter, a refresh, an invalidation and a restart
/// the cursor stays on the same row id, and when that row left the view the nearest row (the
/// one that was below it, else above it) takes it.
///
/// Before the rows are dropped, ``anchorCursor(_:droppedRows:)`` remembers the id of the
/// cursor's row and of its neighbours. Then, when the plugin declares `locate`, one `locate`
/// request asks where the first of those rows now is, and the cursor goes there keeping its
/// line on screen. Without `locate` (or until it answers) the cursor keeps its offset, and the
/// page that holds that offset is searched for the ids when it arrives; if the table got
/// shorter than the offset, the cursor goes to the last row. A table with unstable row ids
/// (UnstableRowIDs.swift) is never anchored: its cursor keeps its offset.
extension Workspace {
    /// Remembers the cursor's row and its neighbours before `t`'s rows are dropped
    /// (`droppedRows`: only these ids are dropped; nil: every row). Keeps an earlier anchor
    /// when the cursor's row is not loaded (a second sort before the first one's rows came).
    func anchorCursor(_ t: inout TableState, droppedRows: Set<String>?) {
        // Unstable ids name positions, not rows: the cursor keeps its offset (as without `locate`
        // and without finding its row), and no `locate` asks for an id that means another row now.
        if t.hasUnstableRowIDs { return }
        if let row = t.cache.row(at: t.view.cursor) {
            if let dropped = droppedRows {
                let start = t.cache.page(of: t.view.cursor) * t.cache.pageSize
                let pageDropped = (start..<(start + t.cache.pageSize)).contains { t.cache.row(at: $0).map { dropped.contains($0.id) } ?? false }
                guard pageDropped else { return }  // the cursor's page stays
            }
            t.cursorRowID = row.id
            t.cursorFallbacks = [t.view.cursor + 1, t.view.cursor - 1].compactMap { $0 >= 0 ? t.cache.row(at: $0)?.id : nil }
        } else if t.cursorRowID == nil {
            return  // nothing known of the cursor's row
        }
        // (An earlier anchor whose row is not loaded yet is asked for again in the new order.)
        t.cursorPath = []  // a cursor on a child row goes with its top-level row
        t.locateWanted = true
        t.locating = nil
    }

    /// The person put the cursor somewhere (`goto`, `page`, `jump`): the row it was following
    /// across a sort or restart is forgotten, and a `locate` still on its way is ignored, so
    /// that its late answer cannot move the cursor back.
    func forgetCursorRow(_ t: inout TableState) {
        t.cursorRowID = nil
        t.cursorFallbacks = []
        t.locateWanted = false
        t.locating = nil
    }

    /// Sends the `locate` the selected tab's table wants, if its plugin answers it; a cursor
    /// past the end of a table that got shorter goes to its last row.
    mutating func locateCursorRow(_ tab: String, _ effects: inout [Effect]) {
        guard var t = tabs[tab]?.table else { return }
        if let total = t.total, total > 0, t.view.cursor >= total, t.locating == nil {
            move(&t, cursor: total - 1, scroll: max(0, total - viewportRows))
            tabs[tab]!.table = t
            viewMoved(t, tab)
        }
        guard t.locateWanted, let id = t.cursorRowID else { return }
        t.locateWanted = false
        guard tabs[tab]!.capabilities?.locate == true else { tabs[tab]!.table = t; return }
        let params = LocateRequest(table: t.description.table, rows: [id] + t.cursorFallbacks, sort: wireSort(t, tab),
                                   filter: wireFilter(t, tab), where: wireWhere(t, tab), generation: t.generation)
        t.locating = (request(tab, Method.locate, params.json, .locate(table: t.key, generation: t.generation), &effects), t.view.cursor)
        tabs[tab]!.table = t
    }

    /// The answer to `locate`: the cursor goes to the row found, keeping its line on screen,
    /// unless the user moved it meanwhile; no row found (or an error): it keeps its offset.
    mutating func locateReply(_ tab: String, table key: String, generation: Int, id: RequestID, _ outcome: ReplyOutcome) {
        guard let i = tabs[tab]!.stack.firstIndex(where: { $0.key == key }) else { return }
        var t = tabs[tab]!.stack[i]
        guard let asked = t.locating, asked.id == id else { return }
        t.locating = nil
        if generation == t.generation, t.view.cursor == asked.from, case .result(let value) = outcome,
           let found = try? LocateResult(value), let offset = found.offset {
            let line = t.view.cursor - t.view.scrollOffset
            t.cursorRowID = nil
            t.cursorFallbacks = []
            move(&t, cursor: offset, scroll: max(0, offset - line))
            viewMoved(t, tab)  // saved like any move of the cursor
        } else if case .error(let message) = outcome {
            tabs[tab]!.notice = "locate failed: \(message)"
        }
        tabs[tab]!.stack[i] = t
    }

    /// When the page holding the cursor's offset arrives: the anchored row (else a neighbour)
    /// in that page takes the cursor, the view scrolling by as much; past the end of a table
    /// that got shorter, the cursor goes to the last row. Waits while a `locate` is answered.
    func followCursorRow(_ t: inout TableState, page: Int) {
        if let total = t.total, total > 0, t.view.cursor >= total, t.locating == nil {
            move(&t, cursor: total - 1, scroll: max(0, total - viewportRows))
        }
        guard t.locating == nil, let id = t.cursorRowID, t.cache.page(of: t.view.cursor) == page else { return }
        let wanted = [id] + t.cursorFallbacks
        t.cursorRowID = nil
        t.cursorFallbacks = []
        t.locateWanted = false
        let start = page * t.cache.pageSize
        for want in wanted {
            guard let found = (start..<(start + t.cache.pageSize)).first(where: { t.cache.row(at: $0)?.id == want }) else { continue }
            if found != t.view.cursor {
                move(&t, cursor: found, scroll: max(0, t.view.scrollOffset + found - t.view.cursor))
            }
            return
        }
    }
}
