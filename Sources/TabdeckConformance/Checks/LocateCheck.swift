import TabdeckProtocol

/// `locate`, for plugins that declare it (PROTOCOL.md 11.9): the row in the middle of the
/// natural order, and of a sorted order when the plugin sorts, is found at the offset where a
/// `rows` read put it (the first id asked for not being in the table), and ids in no row give
/// `row: null`. Plugins that do not declare `locate` get no line.
enum LocateCheck {
    static let noSuchRow = "conformance-no-such-row"

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.locate, ctx.capabilities.paging, ctx.table != nil else { return }
        ctx.check("locate", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            guard let table = ctx.table else { throw CheckAbort(reason: "there is no table", skip: true) }
            var orders: [[SortKey]] = [[]]
            if ctx.capabilities.sort, let column = table.columns.first(where: \.sortable) {
                orders.append([SortKey(column.id, .descending)])
            }
            var found: [String] = []
            for sort in orders {
                var scratch = Findings()
                let read = try sort.isEmpty ? ctx.naturalOrder(into: &scratch) : ctx.read(sort: sort, into: &scratch)
                scratch.failures.forEach { f.fail($0) }
                guard !read.rows.isEmpty else { return "the table is empty: nothing to locate" }
                let middle = read.rows.count / 2
                let id = read.rows[middle].id, position = read.positions[middle]
                let order = sort.isEmpty ? "the natural order" : String(CheckContext.sortText(sort).dropFirst(2))
                let answer = try locate(ctx, table, [noSuchRow, id], sort, into: &f)
                if let answer {
                    if answer.row != id {
                        f.fail("locate of [\(noSuchRow), \(id)] in \(order) answered row \(answer.row ?? "null"), expected \(id), which a rows read put at offset \(position) (PROTOCOL.md 11.9: the first id of rows that is in the view)")
                    } else if answer.offset != position {
                        f.fail("locate of row \(id) in \(order) answered offset \(answer.offset.map(String.init) ?? "none"), but a rows read put it at offset \(position) (PROTOCOL.md 11.9)")
                    }
                }
                found.append("\(id) at \(position) in \(order)")
            }
            if let answer = try locate(ctx, table, [noSuchRow], [], into: &f), answer.row != nil {
                f.fail("locate of an id no row has (\(noSuchRow)) answered row \(answer.row!), expected null (PROTOCOL.md 11.9)")
            }
            if !f.failures.isEmpty { return "locate did not answer where rows put the rows asked for" }
            return "found " + found.joined(separator: ", ") + "; an id in no row: null"
        }
    }

    /// One `locate` request; an error response or an invalid answer is a failure (nil).
    static func locate(_ ctx: CheckContext, _ table: TableDescription, _ rows: [String], _ sort: [SortKey],
                       into f: inout Findings) throws(CheckAbort) -> LocateResult? {
        let request = LocateRequest(table: table.table, rows: rows, sort: sort, generation: ctx.nextGeneration())
        switch try ctx.call(Method.locate, request.json) {
        case .failure(let error):
            f.fail("locate of \(rows) answered error \(error.code) (\(OrderCheck.clip(error.message, 60))), though the plugin declares locate (PROTOCOL.md 11.9)")
            f.notes += ["request: " + OrderCheck.clip(JSONWriter.string(request.json), 160)]
            return nil
        case .success(let value):
            do throws(JSONFieldError) {
                return try LocateResult(value)
            } catch {
                f.fail("invalid locate answer: \(error.description) (PROTOCOL.md 11.9)")
                f.notes += CheckContext.exchange(request.json, value)
                return nil
            }
        }
    }
}
