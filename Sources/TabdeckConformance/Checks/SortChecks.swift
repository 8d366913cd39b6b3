import TabdeckProtocol

/// `sort: …`: every sortable column in both directions, multi-key sorts, and non-sortable
/// columns refused. Only for plugins that declare `sort` (others receive `sort: []` only).
/// A column in its source's own order (`order: source`) is checked for consistency only.
enum SortChecks {
    static func run(_ ctx: CheckContext) {
        guard ctx.skipReason(.rows) == nil else {
            ctx.check("sort", needs: .rows) { _ in "" }
            return
        }
        guard ctx.capabilities.sort, let table = ctx.table else {
            ctx.record(CheckResult(name: "sort", status: .skipped,
                                   summary: "not run: the plugin does not declare sort (it receives sort: [] only)"))
            return
        }
        let sortable = table.columns.filter(\.sortable)
        // The first pages of the one-column sorts go together, a batch at a time (PROTOCOL.md 4.3).
        let orders = sortable.filter { $0.order != .source }.flatMap { column in
            [SortDirection.ascending, .descending].map { [SortKey(column.id, $0)] }
        }
        var next = 0
        for column in sortable {
            if column.order == .source {
                sourceOrdered(ctx, column)
                continue
            }
            for direction in [SortDirection.ascending, .descending] {
                if next % RequestBatches.size == 0, ctx.options.selects("sort: "), ctx.blocker(of: "sort: ") == nil {
                    ctx.sendAhead(orders[next...].prefix(RequestBatches.size).map(ctx.firstPage))
                }
                next += 1
                sorted(ctx, [SortKey(column.id, direction)])
            }
        }
        if ctx.capabilities.multiSort {
            if let (first, second) = multiKeyColumns(ctx, sortable) {
                sorted(ctx, [SortKey(first, .ascending), SortKey(second, .descending)])
                sorted(ctx, [SortKey(first, .descending), SortKey(second, .ascending)])
            } else {
                ctx.record(CheckResult(name: "sort: multi-key", status: .skipped, summary: "not run: fewer than 2 sortable columns"))
            }
        } else {
            ctx.record(CheckResult(name: "sort: multi-key", status: .skipped, summary: "not run: the plugin does not declare multiSort"))
        }
        let fixed = table.columns.filter { !$0.sortable }
        if !fixed.isEmpty { refusesUnsortable(ctx, fixed) }
    }

    /// `sort: age desc` (or `sort: state asc, age desc`): the rows come in that order, and they
    /// are the same rows (ids and cells) as in the natural order.
    static func sorted(_ ctx: CheckContext, _ sort: [SortKey]) {
        let name = "sort: " + sort.map { "\($0.column) \($0.direction.rawValue)" }.joined(separator: ", ")
        ctx.check(name, needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            var scratch = Findings()
            let natural = try ctx.naturalOrder(into: &scratch)
            scratch.failures.forEach { f.fail("in the natural order: " + $0) }
            let read = try ctx.read(sort: sort, into: &f)
            if read.complete { ctx.keepSortedRead(sort, read) }
            let keys = sort.compactMap { ctx.sortColumn($0) }
            let verdict = OrderCheck.verify(read.rows, positions: read.positions, keys: keys)
            var summary: String
            switch verdict {
            case .ordered:
                summary = "in order"
            case .orderedBy(let rule, let reference):
                f.fail("not in the protocol's order: \(reference.description) (PROTOCOL.md 11.3, Sort order); "
                       + "the rows are in order with \(rule): \(declaration(rule))")
                summary = "not in order (\(rule))"
            case .unordered(let violation, let count):
                f.fail(violation.description + (count > 1 ? " (\(count) neighbouring pairs out of order)" : "") + " (PROTOCOL.md 11.3, Sort order)")
                summary = "not in order"
            }
            if read.complete && natural.complete {
                compareIDs(read, natural, into: &f)
                summary += "; \(PagingChecks.rows(read.rows.count))" + (f.failures.isEmpty ? ", the same ids as unsorted" : "")
            } else {
                summary += "; \(PagingChecks.rows(read.rows.count)) in \(read.requests) requests (sample pages)"
            }
            return summary
        }
    }

    /// What a column declares when its order is `rule` (PROTOCOL.md 10.2): the checker holds an
    /// undeclared order to the protocol's.
    static func declaration(_ rule: OrderRule) -> String {
        var says: [String] = []
        if !rule.nullsFirst {
            says.append("if nulls come last ascending and first descending (one convention for both directions), declare \"nulls\": \"largest\"")
        }
        switch rule.text {
        case .unicode: break
        case .caseInsensitive, .asciiCaseInsensitive: says.append("if text ignores letter case, declare \"order\": \"casefold\"")
        case .caseAndAccentInsensitive: says.append("a collation that also ignores accents is declared \"order\": \"source\"")
        }
        return says.joined(separator: "; ") + " (10.2)"
    }

    /// `sort: ip (the source's order)`: an order only the plugin knows (`order: source`,
    /// PROTOCOL.md 10.2) is checked for consistency: the pages join up (as every read checks),
    /// the same rows come at the same positions when asked again, the same rows as unsorted,
    /// and (a warning: two different cells may tie in the source's order) descending gives the
    /// cells of ascending reversed.
    static func sourceOrdered(_ ctx: CheckContext, _ column: ColumnSpec) {
        ctx.check("sort: \(column.id) (the source's order)", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            var scratch = Findings()
            let natural = try ctx.naturalOrder(into: &scratch)
            scratch.failures.forEach { f.fail("in the natural order: " + $0) }
            let up = try ctx.read(sort: [SortKey(column.id, .ascending)], into: &f)
            let again = try ctx.read(sort: [SortKey(column.id, .ascending)], into: &f)
            if let i = zip(up.ids, again.ids).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                f.fail("sort by \(column.id) asc, asked twice: position \(up.positions[i]) held row \(up.ids[i]), then row \(again.ids[i]); "
                       + "the same sort must give the same rows on every request, ties included (PROTOCOL.md 11.3)")
            } else if up.ids.count != again.ids.count {
                f.fail("sort by \(column.id) asc, asked twice: \(up.ids.count) rows, then \(again.ids.count)")
            }
            let down = try ctx.read(sort: [SortKey(column.id, .descending)], into: &f)
            var summary = "not checked against an order (the column is in its source's own order)"
            if up.complete && down.complete && natural.complete {
                compareIDs(up, natural, into: &f)
                compareIDs(down, natural, into: &f)
                guard let index = ctx.table?.columns.firstIndex(of: column) else { return summary }
                func cells(_ read: TableRead) -> [JSONValue] { read.rows.map { index < $0.cells.count ? $0.cells[index] : .null } }
                let reversed = Array(cells(up).reversed()), downCells = cells(down)
                if let i = zip(reversed, downCells).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                    f.warn("sort by \(column.id) desc is not sort by \(column.id) asc reversed: position \(i) holds "
                           + "\(OrderCheck.clip(JSONWriter.string(downCells[i]))) descending but \(OrderCheck.clip(JSONWriter.string(reversed[i]))) "
                           + "in the ascending order reversed (desc reverses the whole order, nulls included; PROTOCOL.md 11.3)")
                }
                summary += "; \(PagingChecks.rows(up.rows.count)) the same each time" + (f.failures.isEmpty ? ", the same ids as unsorted" : "")
                    + (f.warnings.isEmpty ? ", descending the reverse of ascending" : "")
            } else {
                summary += "; sample pages the same each time"
            }
            return summary
        }
    }

    /// The sorted read holds exactly the rows of the natural read.
    static func compareIDs(_ read: TableRead, _ natural: TableRead, into f: inout Findings) {
        if read.rows.count != natural.rows.count {
            f.fail("\(read.rows.count) rows sorted but \(natural.rows.count) unsorted")
        }
        let sorted = Set(read.ids), unsorted = Set(natural.ids)
        let missing = unsorted.subtracting(sorted), extra = sorted.subtracting(unsorted)
        if !missing.isEmpty { f.fail("ids missing when sorted: \(PagingChecks.preview(missing.sorted()))") }
        if !extra.isEmpty { f.fail("ids that only appear when sorted: \(PagingChecks.preview(extra.sorted()))") }
    }

    /// For the multi-key checks: first the sortable column with the fewest distinct values
    /// (at least 2: it has ties for the second key to break), then the one with the most.
    static func multiKeyColumns(_ ctx: CheckContext, _ sortable: [ColumnSpec]) -> (String, String)? {
        guard sortable.count >= 2, let table = ctx.table else { return nil }
        let rows = ctx.natural?.rows ?? []
        func distinct(_ column: ColumnSpec) -> Int {
            guard let index = table.columns.firstIndex(of: column) else { return 0 }
            return Set(rows.map { index < $0.cells.count ? $0.cells[index] : .null }).count
        }
        let counts = sortable.map { ($0.id, distinct($0)) }
        let first = counts.filter { $0.1 >= 2 }.min { $0.1 < $1.1 }?.0 ?? sortable[0].id
        let second = counts.filter { $0.0 != first }.max { $0.1 < $1.1 }!.0
        return (first, second)
    }

    /// `sort: refuses columns that are not sortable`: a sort on such a column gets an error
    /// (-32002 is the usual); rows are a warning (the host never asks for them).
    static func refusesUnsortable(_ ctx: CheckContext, _ columns: [ColumnSpec]) {
        ctx.check("sort: non-sortable columns", needs: .rows) { (f) throws(CheckAbort) in
            var answers: [String] = []
            for column in columns {
                let request = RowsRequest(table: ctx.table!.table, offset: 0, limit: 10, sort: [SortKey(column.id)],
                                          generation: ctx.nextGeneration())
                switch try ctx.call(Method.rows, request.json) {
                case .failure(let error):
                    answers.append("\(column.id) refused (error \(error.code))")
                    if error.code != RPCError.notSupported { f.note("\(column.id): error \(error.code) (-32002 is the usual)") }
                case .success(let value):
                    if let failure = ErrorChecks.notRows(value, request, ctx.table!, ctx) {
                        f.fail("\(column.id) is declared not sortable, and a sort by it was answered with a result that is not a rows answer (\(failure)): "
                               + "a refusal is an error response, {\"error\": {\"code\": -32002, \"message\"}} in place of \"result\" (PROTOCOL.md 4.1, 14.1)")
                        f.notes += CheckContext.exchange(request.json, value)
                        answers.append("\(column.id) answered with a result that is not rows")
                        continue
                    }
                    f.warn("\(column.id) is declared not sortable, yet a sort by it was answered with rows (-32002 is expected)")
                    answers.append("\(column.id) answered with rows")
                }
            }
            return answers.joined(separator: ", ")
        }
    }
}
