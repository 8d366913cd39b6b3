import TabdeckProtocol

/// A `/` find through the whole table, not only the rows loaded: it runs beside the commands
/// (it never makes the workspace busy, so scrolling and paging go on). A plugin that answers
/// `find` (PROTOCOL.md 11.15; the spool does for the plugins it sorts) is asked once and looks
/// at its engine's speed; for any other the host asks for the rows it has not seen, chunk by
/// chunk, in the current order.
public struct FindState: Hashable, Sendable {
    /// Where the find is.
    public enum Phase: Hashable, Sendable {
        case searching
        /// The cursor moved to this row; `wrapped` when the search went past the end (or start).
        case found(row: Int, wrapped: Bool)
        case notFound
        /// Stopped: the order changed, the table closed, or a request failed.
        case stopped(String)
    }

    /// The text looked for, lowered (case-insensitive, in any cell); for a section, its title.
    public var text: String
    /// The text as typed, which a `find` request carries (the plugin ignores case itself).
    var typed = ""
    /// When set, the find looks for the first row of this section (a `jump` whose section
    /// start is not known from counts or loaded rows), not for text.
    public var section: String?
    /// Searching towards the first row (`N`).
    public var backward: Bool
    public var tab: String
    /// The table's key, and the generation (sort) the search runs in.
    public var table: String
    public var generation: Int
    /// The row the search started from; it is checked last.
    public var origin: Int
    /// Rows checked so far (for progress).
    public var checked = 0
    public var phase: Phase = .searching
    /// The next row to check.
    var position: Int
    var wrapped = false
    /// Chunks arrived (by first row), not yet passed; those asked for are in the ledger
    /// (``Workspace/findRequests(_:)``).
    var arrived: [Int: [Row]] = [:]
    /// The first rows of chunks that came short with more to follow (`more`), by chunk start.
    var parts: [Int: [Row]] = [:]
    /// The row count learned from a short chunk when the table's total is unknown.
    var end: Int?

    /// Whether the find is still going.
    public var isSearching: Bool { phase == .searching }
}

extension Workspace {
    /// Starts a find on the selected table from the row after (or before) the cursor, replacing
    /// any find still going.
    mutating func startFind(_ text: String, backward: Bool, _ effects: inout [Effect]) {
        stopFind(nil, &effects)
        guard !text.isEmpty, let tab = layout.selected, let t = tabs[tab]?.table else { return }
        let origin = t.view.cursor
        find = FindState(text: text.lowercased(), backward: backward, tab: tab, table: t.key, generation: t.generation,
                         origin: origin, position: origin + (backward ? -1 : 1))
        find!.typed = text
        advanceFind(&effects)
    }

    /// Starts looking for the first row of section `id` of the selected table, from row 1
    /// (a `jump` to a section whose start is not known yet), replacing any find still going.
    mutating func startSectionFind(_ section: SectionSpec, _ effects: inout [Effect]) {
        stopFind(nil, &effects)
        guard let tab = layout.selected, let t = tabs[tab]?.table else { return }
        find = FindState(text: section.title, section: section.id, backward: false, tab: tab, table: t.key,
                         generation: t.generation, origin: -1, position: 0)
        advanceFind(&effects)
    }

    /// Stops the find (Esc), cancelling its requests; `reason` nil forgets it altogether.
    mutating func stopFind(_ reason: String?, _ effects: inout [Effect]) {
        guard var f = find else { return }
        for id in findRequests(f) { cancel(id, &effects) }
        f.arrived = [:]
        if let reason, f.isSearching { f.phase = .stopped(reason); find = f } else if reason == nil { find = nil } else { find = f }
    }

    /// Checks every row available (cached pages and arrived chunks) from the find's position,
    /// and asks for the chunks it needs next.
    mutating func advanceFind(_ effects: inout [Effect]) {
        guard var f = find, f.isSearching else { return }
        guard let tab = tabs[f.tab], let i = tab.stack.firstIndex(where: { $0.key == f.table }) else {
            stopFind("the table was closed", &effects)
            return
        }
        let t = tab.stack[i]
        guard t.generation == f.generation else {
            stopFind("the order changed", &effects)
            return
        }
        if pushFind(&f, t, &effects) {
            find = f
            return
        }
        let chunk = settings.scanPageSize
        while true {
            let total = t.total ?? f.end
            if let total, total == 0 || f.checked >= total { f.phase = .notFound; break }
            // Wrap around at either end.
            if f.position < 0 {
                guard let total else { f.phase = .notFound; break }
                f.position = total - 1; f.wrapped = true
            }
            if let total, f.position >= total { f.position = 0; f.wrapped = true }
            let p = f.position
            let start = p / chunk * chunk
            let row: Row?
            if let cached = t.cache.row(at: p) {
                row = cached
            } else if let rows = f.arrived[start] {
                if p - start >= rows.count {
                    // A short chunk: the table ends there.
                    f.end = start + rows.count
                    if f.backward { f.position = start + rows.count - 1 } else { f.position = 0; f.wrapped = true }
                    if f.end == 0 { f.phase = .notFound; break }
                    continue
                }
                row = rows[p - start]
            } else {
                row = nil
            }
            guard let row else {
                requestFindChunks(&f, t, around: start, &effects)
                break
            }
            f.checked += 1
            if matches(row, f, t.description.columns) {
                f.phase = .found(row: p, wrapped: f.wrapped)
                land(f, at: p, level: i, &effects)
                break
            }
            f.position += f.backward ? -1 : 1
            // Forget chunks the search has passed.
            if f.position / chunk * chunk != start { f.arrived[start] = nil }
        }
        if !f.isSearching {
            for id in findRequests(f) { cancel(id, &effects) }
            f.arrived = [:]
            f.parts = [:]
        }
        find = f
    }

    /// Moves the cursor of the find's table (at `level` of its tab's stack) to row `p`, found.
    mutating func land(_ f: FindState, at p: Int, level i: Int, _ effects: inout [Effect]) {
        var t = tabs[f.tab]!.stack[i]
        move(&t, cursor: p)
        tabs[f.tab]!.stack[i] = t
        if i == tabs[f.tab]!.stack.count - 1 {
            saveTable(t, f.tab, &effects, ())
            _ = fetch(f.tab, t.view.scrollOffset..<(t.view.scrollOffset + viewportRows), &effects)
        }
    }

    /// Whether `row` is what the find looks for: a row of its section, or text in any cell (as
    /// it is shown: a decimal column's numbers with its `decimals`).
    func matches(_ row: Row, _ f: FindState, _ columns: [ColumnSpec]) -> Bool {
        if let section = f.section { return row.section == section }
        for (i, cell) in row.cells.enumerated() {
            let text = i < columns.count ? CellText.of(cell, in: columns[i]) : CellText.of(cell)
            if text.lowercased().contains(f.text) { return true }
        }
        return false
    }

    /// Keeps the chunk holding the search position and the next one (in the search's
    /// direction) asked for.
    mutating func requestFindChunks(_ f: inout FindState, _ t: TableState, around start: Int, _ effects: inout [Effect]) {
        let chunk = settings.scanPageSize
        var wanted = [start]
        let next = start + (f.backward ? -chunk : chunk)
        if next >= 0, (t.total ?? f.end).map({ next < $0 }) ?? true { wanted.append(next) }
        let asked = findChunksInFlight(f.tab, table: f.table, generation: f.generation)
        for offset in wanted where asked[offset] == nil && f.arrived[offset] == nil {
            let params = RowsRequest(table: t.description.table, offset: offset, limit: chunk,
                                     sort: wireSort(t, f.tab), filter: wireFilter(t, f.tab), where: wireWhere(t, f.tab), generation: t.generation)
            _ = request(f.tab, Method.rows, params.json, .find(table: t.key, generation: t.generation, offset: offset), &effects)
        }
    }

    /// A chunk of the find on table `key` in `generation` (the ledger routes only the replies
    /// still awaited: a chunk of a stopped or replaced find was cancelled).
    mutating func findReply(table key: String, generation: Int, offset: Int, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        guard var f = find, f.isSearching, f.table == key, f.generation == generation else { return }
        switch outcome {
        case .error(let message):
            find = f
            stopFind("rows \(offset + 1)…: \(message)", &effects)
            return
        case .result(let value):
            do {
                let result = try RowsResult(value).checked()
                guard result.generation == f.generation else {
                    stopFind("rows \(offset + 1)…: a page of generation \(result.generation), not \(f.generation)", &effects)
                    return
                }
                let got = (f.parts.removeValue(forKey: offset) ?? []) + result.rows
                let chunk = settings.scanPageSize
                if result.more && got.count < chunk, let t = tabs[f.tab]?.stack.first(where: { $0.key == f.table }) {
                    // A short chunk that is not the end: ask for the rest of it.
                    f.parts[offset] = got
                    let params = RowsRequest(table: t.description.table, offset: offset + got.count, limit: chunk - got.count,
                                             sort: wireSort(t, f.tab), filter: wireFilter(t, f.tab), where: wireWhere(t, f.tab), generation: t.generation)
                    _ = request(f.tab, Method.rows, params.json, .find(table: t.key, generation: t.generation, offset: offset), &effects)
                    find = f
                    return
                }
                f.arrived[offset] = got
                if result.totalSent, let total = result.total, let i = tabs[f.tab]?.stack.firstIndex(where: { $0.key == f.table }) {
                    tabs[f.tab]!.stack[i].total = total
                }
            } catch {
                find = f
                stopFind("bad rows result: \(error)", &effects)
                return
            }
        }
        find = f
        advanceFind(&effects)
    }
}
