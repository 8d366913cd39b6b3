import TabdeckProtocol

extension Workspace {
    /// `refresh` (key `r`): the current table's cached rows (and its expanded rows' children)
    /// are dropped and the rows in view fetched again, the cursor keeping its row. On a tab
    /// whose plugin is down or failed it is `restart`.
    mutating func runRefresh(_ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        guard config.tab(tab) != nil else { throw CommandError("no tab is selected (all tabs are hidden?)") }
        if !a.applied {
            switch tabs[tab]!.phase {
            case .down, .failed:
                a.command = .plugin(.restart, tab: nil)
                return try runPluginCommand(.restart, tab, &a, &effects)
            default: break
            }
        }
        // Asked for by the person: a table that failed to open is tried now, not after its back-off.
        if !a.applied { tabs[tab]!.openFailure?.retryAt = now }
        switch ensureTable(tab, &effects) {
        case .ready: break
        case .waiting: return .waiting
        case .unavailable(let reason): return .failed("tab \(tab): \(reason)")
        }
        if !a.applied {
            a.applied = true
            var t = tabs[tab]!.table!
            anchorCursor(&t, droppedRows: nil)
            t.generation += 1
            cancelPages(tab, table: t.key, &effects)
            t.cache.removeAll()
            t.rowsFailure = nil
            closeOutline(t, tab, &effects)
            t.outline = [:]
            tabs[tab]!.table = t
        }
        let start = tabs[tab]!.table!.view.scrollOffset
        switch fetch(tab, start..<(start + viewportRows), &effects) {
        case .waiting: return .waiting
        case .unavailable(let reason): return .failed(reason)
        case .ready:
            fetchOutline(tab, &effects)
            let t = tabs[tab]!.table!
            let rows = t.total == nil ? "" : ": " + t.totalText + (t.total == 1 ? " row" : " rows")
            return .done(CommandOutput(text: "refreshed \(Sanitizer.clean(t.label))" + rows,
                                       json: ["refreshed": .string(tab), "total": t.totalJSON]))
        }
    }
}
