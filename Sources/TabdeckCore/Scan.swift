import TabdeckProtocol

extension Workspace {
    /// `export`, and an action on an "all, except" selection: page through the whole table in
    /// the current order (and filter), two requests in flight, writing rows in order as they
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
            } else {
                a.resolved = []
            }
        }
        var scan = a.scan!
        if case .error(let message)? = a.reply { return .failed(message) }
        // Write what arrived, in order.
        let indices = t.visibleColumns.map { t.cellIndex(of: $0.id)! }
        while let rows = scan.arrived.removeValue(forKey: scan.written) {
            if case .export = a.command {
                if !rows.isEmpty {
                    effects.append(.exportRows(rows.map { row in indices.map { $0 < row.cells.count ? row.cells[$0] : .null } }))
                }
            } else {
                let selection = t.view.selection
                a.resolved!.append(contentsOf: rows.lazy.map(\.id).filter { selection.contains($0) })
            }
            scan.written += rows.count
            if rows.count < settings.scanPageSize { scan.finished = true }
        }
        if let total = t.total, scan.written >= total { scan.finished = true }
        if scan.finished {
            for id in scan.inflight.values { cancel(id, &effects) }
            scan.inflight = [:]
            a.scan = scan
            if case .export(let path, _) = a.command {
                effects.append(.exportEnd)
                return .done(CommandOutput(text: "exported \(scan.written) rows to \(path)",
                                           json: ["exported": .int(Int64(scan.written)), "path": .string(path)]))
            }
            return .done(CommandOutput(text: "", json: .null))
        }
        // Keep two pages in flight.
        while scan.inflight.count < 2 && scan.arrived.count < 4 {
            if let total = t.total, scan.nextOffset >= total { break }
            let params = RowsRequest(table: t.description.table, offset: scan.nextOffset, limit: settings.scanPageSize,
                                     sort: wireSort(t, tab), filter: wireFilter(t, tab), generation: t.generation)
            scan.inflight[scan.nextOffset] = request(tab, Method.rows, params.json,
                                                     .scan(table: t.key, generation: t.generation, offset: scan.nextOffset), &effects)
            scan.nextOffset += settings.scanPageSize
        }
        a.scan = scan
        tabs[tab]!.table = t
        return .waiting
    }

    mutating func scanReply(id: RequestID, offset: Int, _ outcome: ReplyOutcome) {
        guard var scan = active?.scan, scan.inflight[offset] == id else { return }
        scan.inflight[offset] = nil
        switch outcome {
        case .error(let message):
            active?.reply = .error("rows \(offset + 1)…: \(message)")
        case .result(let value):
            do {
                let result = try RowsResult(value).checked()
                scan.arrived[offset] = result.rows
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
        guard tabs[tab]!.capabilities?.children == true else { throw CommandError("plugin \(tab) has no drill-down (no children capability)") }
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

    /// `action NAME`: run a plugin action on the selection (or the cursor row).
    mutating func runAction(_ word: String, confirmed: Bool, _ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        var t = tabs[tab]!.table!
        let actions = t.description.actions
        guard let action = actions.first(where: { $0.id == word }) ?? actions.first(where: { $0.title.lowercased() == word.lowercased() }) else {
            let known = actions.map(\.id)
            throw CommandError(known.isEmpty ? "\(t.label) has no actions" : "no action \"\(word)\" (actions: \(known.joined(separator: ", ")))",
                               suggestion: CommandParser.suggest(word, among: known))
        }
        // (A reply while the selection is being read is the scan's, handled by runScan.)
        if let reply = a.reply, a.scan?.finished != false {
            switch reply {
            case .error(let message): return .failed("action \(action.id) failed: \(message)")
            case .result(let value):
                let message = value["message"]?.stringValue ?? "done"
                if value["invalidate"]?.boolValue == true {
                    for id in t.cache.inflight.values { cancel(id, &effects) }
                    t.cache.removeAll()
                    tabs[tab]!.table = t
                }
                return .done(CommandOutput(text: Sanitizer.clean(message), json: ["action": .string(action.id), "result": value]))
            }
        }
        if a.awaiting != nil { return .waiting }
        var ids: [String]
        if t.view.selection.isAll {
            // The protocol sends ids: resolve "all, except" by paging through the table now.
            let count = t.view.selection.count(total: t.total)
            if !action.multiple, let count, count > 1 { throw CommandError("action \(action.id) applies to one row; \(formatCount(count)) are selected") }
            if let count, count > settings.maxActionRows { throw tooManyRows(action, count) }
            if action.confirm && !confirmed {
                let rows = count.map { "all \(formatCount($0)) rows" } ?? "all rows"
                throw CommandError("action \(action.id) on \(rows) needs confirmation: run `action \(action.id) --yes`")
            }
            if a.resolved == nil || a.scan?.finished != true {
                switch try runScan(&a, &effects) {
                case .waiting:
                    // The count was unknown: stop reading as soon as there are too many.
                    if let n = a.resolved?.count, n > settings.maxActionRows {
                        for id in a.scan!.inflight.values { cancel(id, &effects) }
                        a.scan!.inflight = [:]
                        a.scan!.finished = true
                        throw tooManyRows(action, n, atLeast: true)
                    }
                    return .waiting
                case .failed(let message): return .failed("action \(action.id): reading the selected rows failed: \(message)")
                case .done: break
                }
            }
            t = tabs[tab]!.table!
            ids = a.resolved ?? []
            guard !ids.isEmpty else { throw CommandError("action \(action.id): no rows are selected (all rows were excepted)") }
        } else {
            ids = t.view.selection.listed.sorted(by: naturalOrder)
        }
        if ids.isEmpty {
            switch fetch(tab, t.view.cursor..<(t.view.cursor + 1), &effects) {
            case .waiting: return .waiting
            case .unavailable(let r): return .failed(r)
            case .ready: break
            }
            guard let row = tabs[tab]!.table!.cache.row(at: t.view.cursor) else { throw CommandError("nothing selected and the table is empty") }
            ids = [row.id]
        }
        if ids.count > settings.maxActionRows { throw tooManyRows(action, ids.count) }
        if !action.multiple && ids.count > 1 { throw CommandError("action \(action.id) applies to one row; \(ids.count) are selected") }
        if action.confirm && !confirmed {
            throw CommandError("action \(action.id) on \(ids.count) row(s) needs confirmation: run `action \(action.id) --yes`")
        }
        a.awaiting = request(tab, Method.action, ["table": .string(t.description.table), "action": .string(action.id),
                                                  "rows": .array(ids.map { .string($0) })], .action(action.id), &effects)
        return .waiting
    }
}

extension Workspace {
    /// An action's ids travel in one message: more than ``CoreSettings/maxActionRows`` are refused.
    func tooManyRows(_ action: ActionSpec, _ count: Int, atLeast: Bool = false) -> CommandError {
        CommandError("action \(action.id) on \(atLeast ? "more than " : "")\(formatCount(atLeast ? settings.maxActionRows : count)) rows: "
                     + "an action takes at most \(formatCount(settings.maxActionRows)) rows (their ids go in one message); "
                     + "narrow the selection first (filter, then select all)")
    }
}

/// Orders ids so that "2" comes before "10".
func naturalOrder(_ a: String, _ b: String) -> Bool {
    if let x = Int(a), let y = Int(b) { return x < y }
    return a < b
}
