import TabdeckProtocol

/// The find asked of a plugin that answers `find` (PROTOCOL.md 11.15): one request from the
/// row after (or before) the cursor, wrapping, which the plugin's engine answers in one pass;
/// the host pages through nothing.
extension Workspace {
    /// Sends the find's `find` request when the tab's plugin (or the spool in front of it)
    /// answers it and none is out yet. Returns false when the host must look itself (a plugin
    /// without `find`, or a section's first row).
    mutating func pushFind(_ f: inout FindState, _ t: TableState, _ effects: inout [Effect]) -> Bool {
        guard f.section == nil, tabs[f.tab]?.capabilities?.find == true else { return false }
        if findRowInFlight(f) != nil { return true }
        // Forward: from the row after the cursor, wrapping, so that the cursor's row is looked
        // at last. Backward from the first row: from the last one (a `from` past the end).
        let from = f.backward ? (f.origin > 0 ? f.origin - 1 : (t.total ?? f.end).map { max($0 - 1, 0) } ?? Self.pastTheEnd)
                              : f.origin + 1
        let params = FindRequest(table: t.description.table, text: f.typed.isEmpty ? f.text : f.typed, from: from,
                                 backward: f.backward, wrap: true, sort: wireSort(t, f.tab), filter: wireFilter(t, f.tab),
                                 where: wireWhere(t, f.tab), generation: t.generation)
        _ = request(f.tab, Method.find, params.json, .findRow(table: t.key, generation: t.generation), &effects)
        return true
    }

    /// A `from` past any table's end: the plugin looks from its last row.
    static let pastTheEnd = Int(Int32.max)

    /// The plugin's answer to the find's `find` request: the cursor moves to the row found, or
    /// the find ends not found, or stops with the plugin's error.
    mutating func findRowReply(table key: String, generation: Int, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        guard var f = find, f.isSearching, f.table == key, f.generation == generation else { return }
        let result: FindResult
        switch outcome {
        case .error(let message):
            stopFind(message, &effects)
            return
        case .result(let value):
            do {
                result = try FindResult(value)
            } catch {
                stopFind("bad find result: \(error)", &effects)
                return
            }
        }
        guard let tab = tabs[f.tab], let i = tab.stack.firstIndex(where: { $0.key == f.table }) else {
            stopFind("the table was closed", &effects)
            return
        }
        guard result.generation == f.generation, tab.stack[i].generation == f.generation else {
            stopFind("the order changed", &effects)
            return
        }
        guard let offset = result.offset else {
            f.phase = .notFound
            find = f
            return
        }
        if let total = tab.stack[i].total, offset >= total {
            stopFind("the plugin found row \(offset + 1) of a table of \(total) rows", &effects)
            return
        }
        // Backward from the first row the plugin looked from the last: past the start.
        f.phase = .found(row: offset, wrapped: result.wrapped || (f.backward && f.origin == 0))
        find = f
        land(f, at: offset, level: i, &effects)
    }
}
