import TabdeckProtocol

extension Workspace {
    /// `export`, and an action on an "all, except" selection: page through the whole table in
    /// the current order (and filter), ``CoreSettings/scanPagesInFlight`` requests at once, writing rows in order as they
    /// arrive (export; memory stays bounded) or collecting the selected ids into `a.resolved`
    /// (action; `.done` with an empty output when they are all in).
    mutating func runScan(_ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        let t = tabs[tab]!.table!
        if a.scan == nil {
            a.scan = ScanProgress(table: t.key, generation: t.generation)
            if case .export(let path, let format) = a.command {
                let f = format ?? (path.lowercased().hasSuffix(".json") ? .json : .csv)
                effects.append(.exportBegin(path: path, format: f, columns: t.visibleColumns))
                a.scan!.started = true
            } else if a.copy == nil {
                a.resolved = []
            }
        }
        var scan = a.scan!
        if case .error(let message)? = a.reply { return .failed(message) }
        // Write what arrived, in order.
        let indices = t.visibleColumns.map { t.cellIndex(of: $0.id)! }
        while let rows = scan.arrived.removeValue(forKey: scan.written) {
            let offset = scan.written
            let end = scan.ends.removeValue(forKey: offset) ?? (offset + settings.scanPageSize)
            let more = scan.more.remove(offset) != nil
            if a.copy != nil {
                if let tooMuch = collectCopy(rows, &a, t) {
                    for id in scanInFlight(tab, table: scan.table, generation: scan.generation).values { cancel(id, &effects) }
                    a.scan = scan
                    return .failed(tooMuch)
                }
            } else if case .export = a.command {
                a.exportQueue.append(contentsOf: rows)
            } else {
                let selection = t.view.selection
                a.resolved!.append(contentsOf: rows.lazy.map(\.id).filter { selection.contains($0) })
            }
            scan.written += rows.count
            // A short page ends the table, unless it says more follow (PROTOCOL.md 11.3).
            if rows.count < end - offset && !more { scan.finished = true }
        }
        if let total = t.total, scan.written >= total { scan.finished = true }
        if case .export = a.command, !a.exportQueue.isEmpty {
            // Rows go out in order; a row with cut cells waits for their whole values.
            let ids = t.visibleColumns.map(\.id)
            // Taken from the queue's front in one step at the end (one at a time moved the rest each time).
            var taken = 0
            while taken < a.exportQueue.count {
                var row = a.exportQueue[taken]
                if !row.cut.isEmpty {
                    switch wholeRow(&a, t, &row, columns: ids, &effects) {
                    case .waiting: break
                    case .failed(let message):
                        writeExport(Array(a.exportQueue[..<taken]), indices, &effects)
                        a.exportQueue.removeFirst(taken)
                        a.scan = scan
                        return .failed("export: \(message)")
                    case .done:
                        a.exportQueue[taken] = row
                        taken += 1
                        continue
                    }
                    break
                }
                taken += 1
            }
            writeExport(Array(a.exportQueue[..<taken]), indices, &effects)
            a.exportQueue.removeFirst(taken)
        }
        if scan.finished && a.exportQueue.isEmpty {
            for id in scanInFlight(tab, table: scan.table, generation: scan.generation).values { cancel(id, &effects) }
            a.scan = scan
            if let copy = a.copy { return finishCopy(copy, &effects) }
            if case .export(let path, _) = a.command {
                effects.append(.exportEnd)
                return .done(CommandOutput(text: "exported \(scan.written) rows to \(path)",
                                           json: ["exported": .int(Int64(scan.written)), "path": .string(path)]))
            }
            return .done(CommandOutput(text: "", json: .null))
        }
        // The rest of pages that came short with more to follow.
        for (offset, end) in scan.refills.sorted(by: { $0.key < $1.key }) {
            let params = RowsRequest(table: t.description.table, offset: offset, limit: end - offset,
                                     sort: wireSort(t, tab), filter: wireFilter(t, tab), where: wireWhere(t, tab), generation: t.generation)
            _ = request(tab, Method.rows, params.json, .scan(table: t.key, generation: t.generation, offset: offset), &effects)
            scan.ends[offset] = end
        }
        scan.refills = [:]
        // Keep the pages in flight.
        var inflight = scanInFlight(tab, table: scan.table, generation: scan.generation).count
        while inflight < settings.scanPagesInFlight && scan.arrived.count < 4 && a.exportQueue.count < 4 * settings.scanPageSize {
            if let total = t.total, scan.nextOffset >= total { break }
            let params = RowsRequest(table: t.description.table, offset: scan.nextOffset, limit: settings.scanPageSize,
                                     sort: wireSort(t, tab), filter: wireFilter(t, tab), where: wireWhere(t, tab), generation: t.generation)
            _ = request(tab, Method.rows, params.json, .scan(table: t.key, generation: t.generation, offset: scan.nextOffset), &effects)
            inflight += 1
            scan.ends[scan.nextOffset] = scan.nextOffset + settings.scanPageSize
            scan.nextOffset += settings.scanPageSize
        }
        a.scan = scan
        tabs[tab]!.table = t
        return .waiting
    }

    /// Appends rows to the export file (cells in the order of `indices`).
    func writeExport(_ rows: [Row], _ indices: [Int], _ effects: inout [Effect]) {
        guard !rows.isEmpty else { return }
        effects.append(.exportRows(rows.map { row in indices.map { $0 < row.cells.count ? row.cells[$0] : .null } }))
    }

    /// A page of the active command's scan of table `key` in `generation` (the ledger routes
    /// only the replies still awaited).
    mutating func scanReply(table key: String, generation: Int, offset: Int, _ outcome: ReplyOutcome) {
        guard var scan = active?.scan, scan.table == key, scan.generation == generation else { return }
        switch outcome {
        case .error(let message):
            active?.reply = .error("rows \(offset + 1)…: \(message)")
        case .result(let value):
            do {
                let result = try RowsResult(value).checked()
                scan.arrived[offset] = result.rows
                if result.more {
                    scan.more.insert(offset)
                    let end = scan.ends[offset] ?? (offset + result.rows.count)
                    if offset + result.rows.count < end { scan.refills[offset + result.rows.count] = end }
                }
            } catch {
                active?.reply = .error("bad rows result: \(error)")
            }
        }
        active?.scan = scan
    }

    /// `open [ID]`: drill down into a row's children.
    mutating func runOpen(_ rowWord: String?, _ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        let t = tabs[tab]!.table!
        if let reply = a.reply {
            switch reply {
            case .error(let message): return .failed(message)
            case .result(let value):
                do {
                    let description = try TableDescription(value).checked()
                    let rowID = a.scanRowID ?? rowWord ?? ""
                    let label = description.title ?? rowID
                    let child = makeTable(tab: tab, key: t.key + "/" + rowID, description: description, label: label)
                    tabs[tab]!.stack.append(child)
                    return .done(breadcrumbOutput(tab))
                } catch {
                    return .failed("children returned a bad table description: \(error)")
                }
            }
        }
        if a.awaiting != nil { return .waiting }
        guard tabs[tab]!.capabilities?.children == true else { throw CommandError("rows of \(tabName(tab)) cannot be opened") }
        let rowID: String
        if let rowWord {
            rowID = rowWord
        } else {
            switch fetch(tab, t.view.cursor..<(t.view.cursor + 1), &effects) {
            case .waiting: return .waiting
            case .unavailable(let r): return .failed(r)
            case .ready: break
            }
            guard let row = tabs[tab]!.table!.cache.row(at: t.view.cursor) else { throw CommandError("the table is empty") }
            guard row.hasChildren else { throw CommandError("row \(row.id) has no children") }
            rowID = row.id
        }
        a.scanRowID = rowID
        a.awaiting = request(tab, Method.children, ["table": .string(t.description.table), "row": .string(rowID)],
                             .children(table: t.key, row: rowID), &effects)
        return .waiting
    }
}

extension Workspace {
    /// An action's ids travel in one message: more than ``CoreSettings/maxActionRows`` are refused.
    func tooManyRows(_ action: ActionSpec, _ count: Int, atLeast: Bool = false) -> CommandError {
        CommandError("action \(action.name) on \(atLeast ? "more than " : "")\(formatCount(atLeast ? settings.maxActionRows : count)) rows: "
                     + "an action takes at most \(formatCount(settings.maxActionRows)) rows (their ids go in one message); "
                     + "narrow the selection first (filter, then select all)")
    }
}

/// Orders ids so that "2" comes before "10".
func naturalOrder(_ a: String, _ b: String) -> Bool {
    if let x = Int(a), let y = Int(b) { return x < y }
    return a < b
}
