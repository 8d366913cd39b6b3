import TabdeckProtocol

/// `find`, for plugins that declare it (PROTOCOL.md 11.15): the table is paged through `rows` in
/// the natural order, in a sort the plugin allows (descending, on a column with ties when there
/// is one) and under a filter (with `filter`); texts are taken from real cells (one near the
/// start, one past the middle, in other letter case) and one is in no row; each `find`, forward
/// and backward, with and without `wrap`, from past the end, must answer the position a scan of
/// those pages gives, with the row id at that position, `wrapped` as it went, and the generation
/// echoed. Plugins that do not declare `find` get no line.
enum FindCheck {
    static let noSuchText = "tabdeck-check: no row has this 5e1d"

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.find, ctx.capabilities.paging, ctx.table != nil else { return }
        ctx.check("find", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            guard let table = ctx.table else { throw CheckAbort(reason: "there is no table", skip: true) }
            var asked = 0, unsure = 0
            var looked: [String] = []
            for view in try views(ctx, table, into: &f) {
                guard let count = view.count, count > 0 else { continue }
                let cases = self.cases(view, count: count)
                let requests = cases.map { c in
                    FindRequest(table: table.table, text: c.text, from: c.from, backward: c.backward, wrap: c.wrap,
                                sort: view.sort, filter: view.filter, generation: ctx.nextGeneration())
                }
                // Independent finds go together, a batch at a time (PROTOCOL.md 4.3).
                for start in stride(from: 0, to: requests.count, by: RequestBatches.size) {
                    let batch = Array(requests[start..<min(start + RequestBatches.size, requests.count)])
                    let ids = try ctx.post(Method.find, together: batch.map(\.json))
                    for (request, id) in zip(batch, ids) {
                        guard let answer = try find(ctx, request, id: id, in: view, into: &f) else { continue }
                        if !verify(answer, request, view, count: count, into: &f) { unsure += 1 }
                        asked += 1
                    }
                }
                if !cases.isEmpty { looked.append(view.name) }
            }
            if !f.failures.isEmpty { return "find did not answer what a scan of rows pages finds (PROTOCOL.md 11.15)" }
            if looked.isEmpty { return "the table is empty: nothing to find" }
            let open = unsure > 0 ? " (\(unsure) not decidable from the pages read)" : ""
            return "\(asked) finds agree with a scan of rows pages in \(looked.joined(separator: ", "))\(open)"
        }
    }

    // MARK: Views

    /// The rows of one order and filter, as `rows` pages gave them.
    struct View {
        var name: String
        var sort: [SortKey]
        var filter: String?
        /// Position → row, for the positions read.
        var rows: [Int: Row]
        /// The view's row count, when known.
        var count: Int?
        /// The rows read, in order (the picks come from them), and their positions.
        var ordered: [Row]
        var positions: [Int]
    }

    static func views(_ ctx: CheckContext, _ table: TableDescription, into f: inout Findings) throws(CheckAbort) -> [View] {
        var scratch = Findings()
        defer { scratch.failures.forEach { f.fail($0) } }
        let natural = try ctx.naturalOrder(into: &scratch)
        var out = [view("the natural order", [], nil, natural)]
        if ctx.capabilities.sort, let key = sortKey(table, natural.rows) {
            out.append(view(String(CheckContext.sortText([key]).dropFirst(2)), [key], nil, try ctx.read(sort: [key], into: &scratch)))
        }
        if ctx.capabilities.filter, let (_, text) = pick(natural.rows[...], excluding: []) {
            out.append(view("filter \"\(text)\"", [], text, try readFiltered(ctx, text, into: &scratch)))
        }
        return out
    }

    static func view(_ name: String, _ sort: [SortKey], _ filter: String?, _ read: TableRead) -> View {
        View(name: name, sort: sort, filter: filter, rows: Dictionary(zip(read.positions, read.rows), uniquingKeysWith: { a, _ in a }),
             count: read.complete ? read.rows.count : read.total, ordered: read.rows, positions: read.positions)
    }

    /// A descending key on a sortable column whose values repeat in the rows read (ties), else
    /// on the first sortable column.
    static func sortKey(_ table: TableDescription, _ rows: [Row]) -> SortKey? {
        let sortable = table.columns.indices.filter { table.columns[$0].sortable }
        let tied = sortable.first { i in Set(rows.map { $0.cells.indices.contains(i) ? $0.cells[i] : .null }).count < rows.count }
        return (tied ?? sortable.first).map { SortKey(table.columns[$0].id, .descending) }
    }

    /// The view under a filter, in pages of 1,000, up to the whole-table limit.
    static func readFiltered(_ ctx: CheckContext, _ text: String, into f: inout Findings) throws(CheckAbort) -> TableRead {
        var rows: [Row] = []
        var total: Int?
        while rows.count <= ctx.options.wholeTableLimit {
            let page = try ctx.page(offset: rows.count, limit: CheckContext.readPageSize, filter: text, into: &f)
            if page.totalSent { total = page.total }
            rows += page.rows
            if page.rows.count < CheckContext.readPageSize {
                return TableRead(rows: rows, positions: Array(rows.indices), complete: true, requests: 0, total: total)
            }
        }
        return TableRead(rows: rows, positions: Array(rows.indices), complete: false, requests: 0, total: total)
    }

    /// Three ASCII letters from the middle of a text cell (letter case flipped) of the first of
    /// `rows` that has one not in `excluding`.
    static func pick(_ rows: ArraySlice<Row>, excluding: [String]) -> (String, String)? {
        for row in rows {
            for cell in row.cells {
                guard let (_, text) = FilterCheck.pickText([Row(id: row.id, cells: [cell])]),
                      !excluding.contains(where: { $0.lowercased() == text.lowercased() }) else { continue }
                return (row.id, text)
            }
        }
        return nil
    }

    // MARK: Cases

    struct Case {
        var text: String
        var from: Int
        var backward = false
        var wrap = false
    }

    /// The finds asked in a view of `count` rows: a text from near the start and one from past
    /// the middle, forward and backward, with and without wrap, from its first hit, the middle
    /// and past the end; a text in no row.
    static func cases(_ view: View, count: Int) -> [Case] {
        // Under a filter, another text than the filter's when a cell has one.
        let exclude = view.filter.map { [$0] } ?? []
        guard let (_, early) = pick(view.ordered[...], excluding: exclude) ?? pick(view.ordered[...], excluding: []) else { return [] }
        var out: [Case] = []
        let middle = count / 2
        let earlyHits = hits(view, early)
        out += [Case(text: early, from: 0), Case(text: early, from: (earlyHits.first ?? 0) + 1),
                Case(text: early, from: middle, wrap: true), Case(text: early, from: count + 3),
                Case(text: early, from: count + 3, wrap: true), Case(text: early, from: count + 3, backward: true)]
        let past = view.positions.firstIndex { $0 >= middle } ?? view.ordered.count
        if let (_, late) = pick(view.ordered[past...], excluding: exclude + [early]) {
            let lateHits = hits(view, late)
            out += [Case(text: late, from: 0), Case(text: late, from: count - 1, backward: true),
                    Case(text: late, from: middle, backward: true),
                    Case(text: late, from: max(0, (lateHits.first ?? 1) - 1), backward: true, wrap: true),
                    Case(text: late, from: (lateHits.last ?? middle) + 1, wrap: true)]
        }
        out += [Case(text: noSuchText, from: middle, wrap: true), Case(text: noSuchText, from: middle, backward: true, wrap: true)]
        return out
    }

    /// The positions read whose rows surely hold `text`, in order.
    static func hits(_ view: View, _ text: String) -> [Int] {
        view.rows.keys.sorted().filter { holds(view.rows[$0]!, text) == .yes }
    }

    // MARK: Matching

    enum Holds { case yes, maybe, no }

    /// Whether a row holds `text` by the filter's rule (PROTOCOL.md 11.3): `maybe` where a
    /// plugin may decide either way (a number as its source wrote it, a letter case folded
    /// beyond ASCII, a cut cell).
    static func holds(_ row: Row, _ text: String) -> Holds {
        let needle = FilterText(text)
        let lowered = text.lowercased()
        var result = Holds.no
        for cell in row.cells {
            let shown = FilterCheck.cellText(cell)
            switch cell {
            case .null: continue
            case .string, .bool:
                if needle.contains(Array(shown.utf8)) { return .yes }
                if FilterText(lowered).contains(Array(shown.lowercased().utf8)) { result = .maybe }
            case .int:
                if needle.contains(Array(shown.utf8)) { return .yes }
                if FilterCheck.matches(cell, lowered) { result = .maybe }
            default:  // a double: its text may differ from the plugin's (exponents, digits)
                if FilterCheck.matches(cell, lowered) || text.allSatisfy({ "0123456789.eE+-".contains($0) }) { result = .maybe }
            }
        }
        if !row.cut.isEmpty && result == .no { result = .maybe }
        return result
    }

    // MARK: Asking and verifying

    static func describe(_ r: FindRequest, _ view: View) -> String {
        let how = (r.backward ? "backward" : "forward") + (r.wrap ? " with wrap" : "")
        return "find \"\(r.text)\" from \(r.from) \(how) in \(view.name)"
    }

    /// One `find` request; an error response or an invalid answer is a failure (nil).
    static func find(_ ctx: CheckContext, _ request: FindRequest, id: RequestID, in view: View,
                     into f: inout Findings) throws(CheckAbort) -> FindResult? {
        switch try ctx.answer(id, Method.find) {
        case .failure(let error):
            f.fail("\(describe(request, view)) answered error \(error.code) (\(OrderCheck.clip(error.message, 60))), though the plugin declares find (PROTOCOL.md 11.15)")
            f.notes += ["request: " + OrderCheck.clip(JSONWriter.string(request.json), 160)]
            return nil
        case .success(let value):
            do throws(JSONFieldError) {
                return try FindResult(value)
            } catch {
                f.fail("invalid find answer: \(error.description) (PROTOCOL.md 11.15)")
                f.notes += CheckContext.exchange(request.json, value)
                return nil
            }
        }
    }

    /// Checks an answer against the scan of the view's pages; false when the pages read do not
    /// decide it (a big table read in samples).
    static func verify(_ answer: FindResult, _ r: FindRequest, _ view: View, count: Int, into f: inout Findings) -> Bool {
        let what = describe(r, view)
        if answer.generation != r.generation {
            f.fail("\(what) answered generation \(answer.generation), but it must echo the request's \(r.generation) (PROTOCOL.md 11.15)")
        }
        let ranges = r.positions(count: count)
        var maybes: Set<Int> = [], seen: Set<Int> = []
        var first: Int?
        var decided = true
        walk: for range in ranges {
            for p in r.backward ? AnySequence(range.reversed()) : AnySequence(range) {
                guard let row = view.rows[p] else { decided = false; break walk }
                seen.insert(p)
                let h = holds(row, r.text)
                if h == .yes { first = p; break walk }
                if h == .maybe { maybes.insert(p) }
            }
        }
        let expected = first.map { "finds it first at offset \($0) (row \(view.rows[$0]!.id))" } ?? "finds no row holding it"
        guard let offset = answer.offset else {
            if first != nil { f.fail("\(what) answered offset null, but a scan of rows pages \(expected) (PROTOCOL.md 11.15)") }
            return first != nil || decided
        }
        if offset >= count || !ranges.contains(where: { $0.contains(offset) }) {
            f.fail("\(what) answered offset \(offset), which is not among the positions it looks at in a view of \(count) rows; a scan of rows pages \(expected) (PROTOCOL.md 11.15)")
            return true
        }
        if offset != first && !maybes.contains(offset) {
            if seen.contains(offset) || first != nil {
                f.fail("\(what) answered offset \(offset)\(answer.row.map { " (row \($0))" } ?? ""), but a scan of rows pages \(expected) (PROTOCOL.md 11.15)")
            } else {
                return false  // beyond the positions read
            }
        }
        if let row = view.rows[offset], answer.row != row.id {
            f.fail("\(what) answered offset \(offset) with row \(answer.row ?? "null"), but rows put row \(row.id) at offset \(offset) (PROTOCOL.md 11.15)")
        }
        let far = r.backward ? offset > r.from : offset < r.from
        // From past the end with wrap, the look starts over at row 0: either reading of `wrapped` is taken.
        let either = !r.backward && r.wrap && r.from >= count
        if answer.wrapped != far && !either {
            f.fail("\(what) answered offset \(offset) with wrapped \(answer.wrapped), expected \(far): "
                   + "wrapped is true when the row lies past the \(r.backward ? "start" : "end") (PROTOCOL.md 11.15)")
        }
        return true
    }
}
