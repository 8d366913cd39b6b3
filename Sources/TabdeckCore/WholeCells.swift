import TabdeckProtocol

/// Cut cells (PROTOCOL.md 10.5 `cut`): a plugin may send a text cell over 64 KiB cut, saying its
/// whole size. What must have the whole value asks for it with `cell` (11.10), in parts of at
/// most 1 MiB by byte offset: `copy cell` up to the copy limit, `export` always (up to 16 MiB).
enum WholeStep: Hashable, Sendable {
    case waiting
    case done(String)
    case failed(String)
}

extension Workspace {
    /// The whole value of `row`'s cut cell in `column` (whose whole size is `size`), fetched by
    /// the active command with `cell` requests; `.waiting` until every part is in.
    mutating func fetchWhole(_ a: inout ActiveCommand, _ t: TableState, row: String, column: String, size: Int,
                             _ effects: inout [Effect]) -> WholeStep {
        let tab = a.tab
        let what = "row \(Sanitizer.clean(row)), column \(Sanitizer.clean(column))"
        guard tabs[tab]?.capabilities?.cells == true else {
            return .failed("\(what): the plugin sent only the first part of this cell (\(formatCount(size)) bytes in all) "
                           + "and cannot send the whole value")
        }
        guard size <= CutCell.maxWholeBytes else {
            return .failed("\(what): the cell is \(formatCount(size)) bytes, more than the \(formatCount(CutCell.maxWholeBytes)) "
                           + "bytes the host fetches whole")
        }
        if a.whole?.row != row || a.whole?.column != column { a.whole = WholeCellFetch(row: row, column: column, size: size) }
        var w = a.whole!
        if let reply = a.reply {
            a.reply = nil
            switch reply {
            case .error(let message): a.whole = nil; return .failed("\(what): \(message)")
            case .result(let value):
                do {
                    let part = try CellResult(value)
                    guard part.offset == w.bytes else { a.whole = nil; return .failed("\(what): a part for offset \(part.offset) came, \(w.bytes) was asked") }
                    guard part.size <= CutCell.maxWholeBytes else {
                        a.whole = nil
                        return .failed("\(what): the cell is \(formatCount(part.size)) bytes, more than the "
                                       + "\(formatCount(CutCell.maxWholeBytes)) bytes the host fetches whole")
                    }
                    guard !part.text.isEmpty || w.bytes >= part.size else {
                        a.whole = nil; return .failed("\(what): the plugin sent an empty part at byte \(w.bytes) of \(part.size)")
                    }
                    w.size = part.size
                    w.text += part.text
                    w.bytes += part.text.utf8.count
                } catch {
                    a.whole = nil
                    return .failed("\(what): bad cell result: \(error)")
                }
            }
        }
        if w.bytes >= w.size {
            a.whole = nil
            return .done(w.text)
        }
        a.whole = w
        if a.awaiting == nil {
            let params = CellRequest(table: t.description.table, row: row, column: column, offset: w.bytes, length: CutCell.partBytes)
            a.awaiting = request(tab, Method.cell, params.json, .cell, &effects)
        }
        return .waiting
    }

    /// Fills in the whole values of `row`'s cut cells among `columns` (ids) one after the other;
    /// `.done` when none is left cut.
    mutating func wholeRow(_ a: inout ActiveCommand, _ t: TableState, _ row: inout Row, columns: [String],
                           _ effects: inout [Effect]) -> WholeStep {
        while let column = columns.first(where: { row.cut[$0] != nil }) {
            switch fetchWhole(&a, t, row: row.id, column: column, size: row.cut[column]!, &effects) {
            case .waiting: return .waiting
            case .failed(let message): return .failed(message)
            case .done(let text):
                if let i = t.cellIndex(of: column), i < row.cells.count { row.cells[i] = .string(text) }
                row.cut[column] = nil
            }
        }
        return .done("")
    }
}

extension Workspace {
    /// Fetches, one after the other, the whole values of the selected table's cursor row's cut
    /// cells for the detail view (``Event/wholeCells``): beside any command, never more than
    /// one request at a time, the values kept for that row only.
    mutating func fetchDetailCells(_ effects: inout [Effect]) {
        guard let tab = layout.selected, var t = tabs[tab]?.table, case .ready = tabs[tab]!.phase,
              tabs[tab]!.capabilities?.cells == true, t.cursorPath.isEmpty, let row = t.cache.row(at: t.view.cursor) else { return }
        if t.wholeRow != row.id {
            if let f = t.wholeFetch { cancel(f.id, &effects) }
            t.wholeRow = row.id; t.wholeValues = [:]; t.wholeErrors = [:]; t.wholeFetch = nil
        }
        if t.wholeFetch == nil,
           let (column, size) = row.cut.sorted(by: { $0.key < $1.key }).first(where: { t.wholeValues[$0.key] == nil && t.wholeErrors[$0.key] == nil }) {
            if size > CutCell.maxWholeBytes {
                t.wholeErrors[column] = "\(formatCount(size)) bytes, more than the \(formatCount(CutCell.maxWholeBytes)) the host fetches whole; `export FILE` writes it"
            } else {
                let params = CellRequest(table: t.description.table, row: row.id, column: column, offset: 0)
                t.wholeFetch = DetailCellFetch(id: request(tab, Method.cell, params.json, .detailCell(table: t.key), &effects),
                                               column: column, size: size)
            }
        }
        tabs[tab]!.table = t
        if t.wholeFetch == nil && row.cut.keys.contains(where: { t.wholeValues[$0] == nil && t.wholeErrors[$0] == nil }) {
            fetchDetailCells(&effects)  // the next cell (this one was refused for its size)
        }
    }

    mutating func detailCellReply(_ tab: String, table key: String, id: RequestID, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        guard let i = tabs[tab]?.stack.firstIndex(where: { $0.key == key }) else { return }
        var t = tabs[tab]!.stack[i]
        guard var f = t.wholeFetch, f.id == id, let row = t.wholeRow else { return }
        t.wholeFetch = nil
        switch outcome {
        case .error(let message):
            t.wholeErrors[f.column] = message
        case .result(let value):
            do {
                let part = try CellResult(value)
                if part.offset != f.text.utf8.count || (part.text.isEmpty && part.offset < part.size) {
                    t.wholeErrors[f.column] = "the plugin sent a part for byte \(part.offset), \(f.text.utf8.count) was asked"
                } else if part.size > CutCell.maxWholeBytes {
                    t.wholeErrors[f.column] = "\(formatCount(part.size)) bytes, more than the \(formatCount(CutCell.maxWholeBytes)) the host fetches whole"
                } else {
                    f.text += part.text
                    f.size = part.size
                    if f.text.utf8.count >= f.size {
                        t.wholeValues[f.column] = f.text
                    } else {
                        let params = CellRequest(table: t.description.table, row: row, column: f.column, offset: f.text.utf8.count)
                        f.id = request(tab, Method.cell, params.json, .detailCell(table: t.key), &effects)
                        t.wholeFetch = f
                    }
                }
            } catch {
                t.wholeErrors[f.column] = "bad cell result: \(error)"
            }
        }
        tabs[tab]!.stack[i] = t
        if t.wholeFetch == nil && tab == layout.selected && i == tabs[tab]!.stack.count - 1 { fetchDetailCells(&effects) }
    }
}
