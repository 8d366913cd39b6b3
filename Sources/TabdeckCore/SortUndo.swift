import TabdeckProtocol

/// What a table showed before a sort, kept while the new order's rows are on their way: a
/// sort cancelled then (Esc) gives back the order before it, with its pages and the cursor's
/// place, so the rows are on screen at once instead of waiting as `…` for a key.
struct SortUndo: Hashable, Sendable {
    /// The order before the sort.
    var sort: [SortKey]
    /// Its pages (none in flight).
    var cache: PageCache
    var cursor: Int
    var scrollOffset: Int
    /// The generation the sort started: the undo holds only while the table is still in it
    /// (a filter, a refresh or another generation since makes it stale).
    var generation: Int
}

extension Workspace {
    /// Remembers what `t` shows before its sort changes: an undo still valid (a second sort
    /// before the first one's rows came) is kept, so a cancel goes back to the order shown last.
    func sortUndo(before t: TableState) -> SortUndo {
        if let undo = t.sortUndo, undo.generation == t.generation { return undo }
        return SortUndo(sort: t.view.sort, cache: t.cache, cursor: t.view.cursor, scrollOffset: t.view.scrollOffset,
                        generation: t.generation)
    }

    /// A sort's rows were cancelled before they came: `tab`'s table goes back to the order
    /// before it (a new generation, so no late page of the cancelled order is taken), with
    /// its pages, cursor and scroll, and that view is saved. False when there is nothing to
    /// go back to.
    mutating func undoSort(_ tab: String, _ effects: inout [Effect]) -> Bool {
        guard var t = tabs[tab]?.table, let undo = t.sortUndo, undo.generation == t.generation else { return false }
        forgetCursorRow(&t)
        t.generation += 1
        t.view.sort = undo.sort
        t.cache = undo.cache
        t.pageFailures = [:]
        t.sortUndo = nil
        move(&t, cursor: undo.cursor, scroll: undo.scrollOffset)
        saveTable(t, tab, &effects, ())
        return true
    }
}
