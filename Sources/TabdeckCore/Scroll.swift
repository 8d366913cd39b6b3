extension Workspace {
    /// Scrolls the selected table's view by `rows` (negative: up), as far as the table goes; the
    /// cursor keeps its row while it stays in view, else takes the nearest row in view. A table
    /// with rows expanded in place moves its cursor instead (its view counts tree lines).
    mutating func scrollView(by rows: Int, _ effects: inout [Effect]) {
        guard let tab = layout.selected, var t = tabs[tab]?.table else { return }
        guard t.view.expanded.isEmpty else { return moveCursor(by: rows, &effects) }
        let total = t.total ?? Int.max
        let lastTop = max(0, total == Int.max ? t.view.scrollOffset + max(0, rows) : total - viewportRows)
        let scroll = min(max(0, t.view.scrollOffset + rows), lastTop)
        let cursor = min(max(t.view.cursor, scroll), scroll + viewportRows - 1, max(0, total - 1))
        guard scroll != t.view.scrollOffset || cursor != t.view.cursor else { return }
        t.view.scrollOffset = scroll
        t.view.cursor = cursor
        storeMoved(t, tab)
        _ = fetch(tab, scroll..<(scroll + viewportRows), &effects)
    }
}
