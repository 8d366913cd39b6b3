import TabdeckProtocol

/// The text `copy` collects: lines in one of its formats, with the byte count kept as they
/// come so that a copy too big for a clipboard stops early.
struct CopyBuffer: Hashable, Sendable {
    var target: Command.CopyTarget
    var format: Command.CopyFormat
    /// The columns copied, in view order.
    var columns: [ColumnSpec]
    /// The lines so far (a header line first for `selection` and `column`; JSON items).
    var lines: [String] = []
    /// Rows copied so far.
    var rows = 0
    /// UTF-8 bytes of the lines and their separators so far.
    var bytes = 0

    init(target: Command.CopyTarget, format: Command.CopyFormat, columns: [ColumnSpec]) {
        self.target = target; self.format = format; self.columns = columns
        if format == .json && isList { bytes = 4 }  // "[\n" and "\n]"
        if isList {
            switch format {
            case .tsv: add(columns.map(\.id).joined(separator: "\t"))
            case .csv: add(TableFormat.csvRecord(columns.map { .string($0.id) }, columns: columns, header: true))
            case .json: break
            }
        }
    }

    /// Whether the copy is a list (a header line, or a JSON array).
    var isList: Bool { target == .selection || target == .column }

    mutating func add(_ line: String) {
        // Lines are joined by "\n", JSON items by ",\n" inside "[\n" … "\n]".
        let json = format == .json && isList
        bytes += line.utf8.count + (lines.isEmpty ? 0 : (json ? 2 : 1))
        lines.append(line)
    }

    /// Adds one row's cells (in ``columns`` order).
    mutating func add(cells: [JSONValue]) {
        rows += 1
        switch format {
        case .tsv: add(TableFormat.tsvLine(cells, columns: columns))
        case .csv: add(TableFormat.csvRecord(cells, columns: columns))
        case .json:
            if target == .cell || target == .column {
                add(JSONWriter.string(cells.first ?? .null, terminalSafe: true))
            } else {
                add(TableFormat.jsonObject(cells, columns: columns))
            }
        }
    }

    /// The text for the clipboard: the lines joined by line feeds (no line feed after the last);
    /// JSON of several rows as an array, one item a line. Sanitized: no control character but
    /// tab and line feed.
    var text: String {
        let body = format == .json && isList ? "[\n" + lines.joined(separator: ",\n") + "\n]" : lines.joined(separator: "\n")
        return TableFormat.clipboardSafe(body)
    }

    /// What the status line says: `copied 3 rows, 412 bytes`.
    func summary(bytes: Int) -> String {
        let what: String
        switch target {
        case .row, .selection: what = rows == 1 ? "1 row" : "\(formatCount(rows)) rows"
        case .cell: what = "1 cell (\(columns.first.map { Sanitizer.clean($0.id) } ?? ""))"
        case .column: what = "column \(columns.first.map { Sanitizer.clean($0.id) } ?? ""), \(rows == 1 ? "1 row" : "\(formatCount(rows)) rows")"
        }
        return "copied \(what), \(bytes == 1 ? "1 byte" : "\(formatCount(bytes)) bytes")"
    }
}

extension Workspace {
    /// `copy`: the cursor row or cell from the cache (fetched if needed), the selection or a
    /// column by reading the whole table like `export` (progress, Esc cancels). The text goes
    /// out as ``Effect/clipboard(_:)``; more than ``CoreSettings/maxCopyBytes`` is refused.
    mutating func runCopy(_ target: Command.CopyTarget, column: String?, format: Command.CopyFormat,
                          _ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        let t = tabs[tab]!.table!
        if a.copy == nil {
            if !t.cursorPath.isEmpty && target != .selection && target != .column {
                throw CommandError("copy takes the table's own rows, not an expanded row's children")
            }
            var columns = t.visibleColumns
            if target == .cell || target == .column {
                guard let first = columns.first else { throw CommandError("the table has no visible column") }
                let id = try column.map { (w) throws(CommandError) in try resolveColumn(w, in: t) } ?? first.id
                columns = t.description.columns.filter { $0.id == id }
            }
            if target == .selection && t.view.selection.isEmpty {
                throw CommandError("nothing is selected (Space selects the cursor row, `select all` every row)")
            }
            a.copy = CopyBuffer(target: target, format: format, columns: columns)
        }
        if target == .selection, case .ids(let ids) = t.view.selection, let rows = cachedRows(ids, t) {
            if let problem = collectCopy(rows, &a, t) { return .failed(problem) }
            return finishCopy(a.copy!, &effects)
        }
        // Rows not all at hand: read the whole table in view order, as `export` does.
        if target == .selection || target == .column { return try runScan(&a, &effects) }
        let cursor = t.view.cursor
        switch fetch(tab, cursor..<(cursor + 1), &effects) {
        case .waiting: return .waiting
        case .unavailable(let r): return .failed(r)
        case .ready: break
        }
        let now = tabs[tab]!.table!
        guard var row = now.cache.row(at: cursor) else { throw CommandError("the table is empty: nothing to copy") }
        let ids = a.copy!.columns.map(\.id)
        if let column = ids.first(where: { row.cut[$0] != nil }) {
            let size = row.cut[column]!
            let what = "row \(Sanitizer.clean(row.id)), column \(Sanitizer.clean(column))"
            guard target == .cell else {
                throw CommandError("copy: \(what) is a cell of \(formatCount(size)) bytes, of which the table holds the first part; "
                                   + "`copy cell \(Sanitizer.clean(column))` copies it whole, `export FILE` writes every value whole")
            }
            guard size <= settings.maxCopyBytes else {
                throw CommandError("copy: \(what) is \(formatCount(size)) bytes, more than \(formatCount(settings.maxCopyBytes)), "
                                   + "too much for a clipboard; use `export FILE` instead")
            }
            switch wholeRow(&a, now, &row, columns: ids, &effects) {
            case .waiting: return .waiting
            case .failed(let message): return .failed("copy: \(message)")
            case .done: break
            }
        }
        a.copy!.add(cells: copyCells(row, a.copy!.columns, now))
        return finishCopy(a.copy!, &effects)
    }

    /// The rows with these ids in view order when every one of them is cached, else nil.
    func cachedRows(_ ids: Set<String>, _ t: TableState) -> [Row]? {
        var found: [Row] = []
        for page in t.cache.cachedPages {
            for row in t.cache.pages[page] ?? [] where ids.contains(row.id) { found.append(row) }
        }
        return found.count == ids.count ? found : nil
    }

    /// The cells of `row` in `columns` order.
    func copyCells(_ row: Row, _ columns: [ColumnSpec], _ t: TableState) -> [JSONValue] {
        columns.map { c in t.cellIndex(of: c.id).flatMap { $0 < row.cells.count ? row.cells[$0] : nil } ?? .null }
    }

    /// Adds the rows a scan read to the copy; the error when the copy grew past the limit.
    mutating func collectCopy(_ rows: [Row], _ a: inout ActiveCommand, _ t: TableState) -> String? {
        guard var buffer = a.copy else { return nil }
        for row in rows where buffer.target == .column || t.view.selection.contains(row.id) {
            if let column = buffer.columns.first(where: { row.cut[$0.id] != nil }) {
                a.copy = buffer
                return "copy: row \(Sanitizer.clean(row.id)), column \(Sanitizer.clean(column.id)) is a cell of "
                    + "\(formatCount(row.cut[column.id]!)) bytes, of which the table holds the first part; use `export FILE` instead"
            }
            buffer.add(cells: copyCells(row, buffer.columns, t))
            if buffer.bytes > settings.maxCopyBytes {
                a.copy = buffer
                return "copy: more than \(formatCount(settings.maxCopyBytes)) bytes after \(formatCount(buffer.rows)) rows, "
                    + "too much for a clipboard; use `export FILE` instead"
            }
        }
        a.copy = buffer
        return nil
    }

    /// The copy is complete: its text to the clipboard, and what was copied.
    func finishCopy(_ buffer: CopyBuffer, _ effects: inout [Effect]) -> Step {
        let text = buffer.text
        let bytes = text.utf8.count
        if bytes > settings.maxCopyBytes {
            return .failed("copy: \(formatCount(bytes)) bytes, more than \(formatCount(settings.maxCopyBytes)), too much for a clipboard; use `export FILE` instead")
        }
        effects.append(.clipboard(text))
        return .done(CommandOutput(text: buffer.summary(bytes: bytes),
                                   json: ["copied": .string(buffer.target.rawValue), "rows": .int(Int64(buffer.rows)),
                                          "bytes": .int(Int64(bytes)), "format": .string(buffer.format.rawValue)]))
    }
}
