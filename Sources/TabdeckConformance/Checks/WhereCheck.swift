import TabdeckProtocol

/// `where: <type> column <id>` (PROTOCOL.md 11.11), for a plugin that declares `where`: one
/// check per column. Conditions made from values the checker read from the table itself (`=`,
/// `!=`, `<`, `between`, `in`, `null`, `notNull`) must keep exactly the rows ``Where/matches``
/// keeps, in the natural order, with a `total` that counts them; a value of the wrong type is
/// an error -32602.
enum WhereCheck {
    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.where, ctx.capabilities.paging, let table = ctx.table, ctx.skipReason(.rows) == nil else { return }
        for (index, column) in table.columns.enumerated() {
            ctx.check("where: \(column.type.name) column \(column.id)", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
                let natural = try ctx.naturalOrder(into: &f)
                guard natural.complete else {
                    throw CheckAbort(reason: "not run: the table has more than \(ctx.options.wholeTableLimit) rows", skip: true)
                }
                let cells = natural.rows.map { index < $0.cells.count ? $0.cells[index] : .null }
                let conditions = Self.conditions(column, cells)
                guard !conditions.isEmpty else {
                    throw CheckAbort(reason: "not run: the column has no value to compare with", skip: true)
                }
                for c in conditions {
                    let expected = natural.rows.filter { Where.matches($0.cells, columns: table.columns, [c]) }.map(\.id)
                    let (got, total) = try readAll(ctx, where: [c], limit: natural.rows.count, into: &f)
                    compare(got, expected, total: total, condition: c, into: &f)
                }
                try wrongValue(ctx, column, into: &f)
                return f.failures.isEmpty ? "\(conditions.count) conditions (\(conditions.map(\.op.rawValue).joined(separator: ", "))) kept the rows they should"
                    : "conditions on \(column.id) kept other rows than they should"
            }
        }
    }

    /// Conditions from the column's own values: the middle value and the quartiles of the
    /// distinct non-null values in the column's order (exact operators only for a column in its
    /// source's order), and `null`, `notNull`.
    static func conditions(_ column: ColumnSpec, _ cells: [JSONValue]) -> WhereClause {
        var values: [JSONValue] = []
        for cell in cells where cell != .null && Where.problem(cell, column.type) == nil {
            if !values.contains(where: { Where.compare($0, cell, type: column.type) == 0 }) { values.append(cell) }
        }
        var clause: WhereClause = [WhereCondition(column.id, .null), WhereCondition(column.id, .notNull)]
        guard !values.isEmpty else { return clause }
        values.sort { (Where.compare($0, $1, type: column.type, order: column.order) ?? 0) < 0 }
        let v = values[values.count / 2], low = values[values.count / 4], high = values[values.count * 3 / 4]
        clause += [WhereCondition(column.id, .equal, [v]), WhereCondition(column.id, .notEqual, [v]),
                   WhereCondition(column.id, .in, low == high ? [low] : [low, high])]
        if column.order != .source {
            clause += [WhereCondition(column.id, .less, [v]), WhereCondition(column.id, .between, [low, high])]
        }
        return clause
    }

    /// Every row a `where` keeps, in pages of 1,000 (at most `limit` + 1,000 rows), and the
    /// last total sent.
    static func readAll(_ ctx: CheckContext, where clause: WhereClause, limit: Int,
                        into f: inout Findings) throws(CheckAbort) -> (ids: [String], total: Int?) {
        var ids: [String] = []
        var total: Int?
        while true {
            let page = try ctx.page(offset: ids.count, limit: CheckContext.readPageSize, where: clause, into: &f)
            ids += page.rows.map(\.id)
            if page.totalSent { total = page.total }
            if page.rows.count < CheckContext.readPageSize || ids.count > limit + CheckContext.readPageSize { break }
        }
        return (ids, total)
    }

    static func compare(_ got: [String], _ expected: [String], total: Int?, condition c: WhereCondition, into f: inout Findings) {
        let text = "where [" + JSONWriter.string(c.json) + "]"
        if got != expected {
            let want = Set(expected), have = Set(got)
            let missing = expected.filter { !have.contains($0) }, extra = got.filter { !want.contains($0) }
            if missing.isEmpty && extra.isEmpty {
                f.fail("\(text) kept the right rows but not in the natural order (first: \(got.prefix(3).joined(separator: ", "))) (PROTOCOL.md 11.11)")
            } else {
                var parts: [String] = []
                if !missing.isEmpty { parts.append("left out \(missing.count) rows that meet it, such as \(missing.prefix(3).joined(separator: ", "))") }
                if !extra.isEmpty { parts.append("kept \(extra.count) rows that do not, such as \(extra.prefix(3).joined(separator: ", "))") }
                f.fail("\(text) kept \(got.count) rows, expected \(expected.count): " + parts.joined(separator: "; ") + " (PROTOCOL.md 11.11)")
            }
        }
        if let total, total != got.count {
            f.fail("\(text): total is \(total) but \(got.count) rows came (PROTOCOL.md 11.11: total counts the kept rows)")
        }
    }

    /// A value of another type than the column's is an error -32602 naming the member.
    static func wrongValue(_ ctx: CheckContext, _ column: ColumnSpec, into f: inout Findings) throws(CheckAbort) {
        let bad: JSONValue = column.type == .text ? .int(1) : .string("tabdeck-check: not a value")
        guard let table = ctx.table else { return }
        let clause = [WhereCondition(column.id, .equal, [bad])]
        let request = RowsRequest(table: table.table, offset: 0, limit: 10, where: clause, generation: ctx.nextGeneration())
        let text = "where [" + JSONWriter.string(clause[0].json) + "]"
        switch try ctx.call(Method.rows, request.json) {
        case .success:
            f.fail("\(text), a value that is not \(column.type.name), was answered with rows; expected error -32602 (PROTOCOL.md 11.11)")
        case .failure(let error) where error.code != RPCError.invalidParams:
            f.fail("\(text), a value that is not \(column.type.name), answered error \(error.code); expected -32602 (PROTOCOL.md 11.11)")
        case .failure(let error):
            if !error.message.contains("where[0]") {
                f.warn("\(text) answered -32602 with a message that does not name the member where[0].value: \(OrderCheck.clip(error.message, 80)) (PROTOCOL.md 11.11)")
            }
        }
    }
}
