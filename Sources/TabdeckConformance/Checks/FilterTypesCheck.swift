import TabdeckProtocol

/// `filter: <type> column <id>`: a filter matches the text of every cell, not only of text
/// cells (PROTOCOL.md 11.3, "filter"): a number as written in JSON (`2048`, `0.5`), a date as
/// its ISO string, a boolean as `true` or `false`, an enum as its value. One check per integer,
/// decimal, bool, date and enum column: the full text of one of its
/// cells keeps that cell's row, and only rows that contain the text in some cell.
enum FilterTypesCheck {
    static let types: Set<String> = ["integer", "decimal", "bool", "date", "enum"]
    /// The rows a text is picked from, and the most a filter's page reads.
    static let firstRows = 50, limit = 1_000

    /// The first of `rows` whose cell in column `index` has a text of 2 or more characters.
    static func pick(_ rows: [Row], _ index: Int) -> (row: Row, text: String)? {
        for row in rows where index < row.cells.count && row.cells[index] != .null {
            let text = FilterCheck.cellText(row.cells[index])
            if text.count >= 2 { return (row, text) }
        }
        return nil
    }

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.filter, ctx.capabilities.paging, let table = ctx.table, ctx.skipReason(.rows) == nil else { return }
        let columns = table.columns.enumerated().filter { types.contains($0.element.type.name) }
        // The filters of every typed column go together, a batch at a time (PROTOCOL.md 4.3).
        var ahead: [RowsRequest] = []
        if ctx.options.selects("filter: "), ctx.blocker(of: "filter: ") == nil {
            var scratch = Findings()
            if let first = try? ctx.page(offset: 0, limit: firstRows, into: &scratch) {
                ahead = columns.compactMap { index, _ in
                    pick(first.rows, index).map { RowsRequest(table: table.table, offset: 0, limit: limit, filter: $0.text) }
                }
            }
        }
        for (n, (index, column)) in columns.enumerated() {
            if n % RequestBatches.size == 0 { ctx.sendAhead(Array(ahead.dropFirst(n).prefix(RequestBatches.size))) }
            ctx.check("filter: \(column.type.name) column \(column.id)", needs: .rows) { (f) throws(CheckAbort) in
                let first = try ctx.page(offset: 0, limit: firstRows, into: &f)
                guard let (source, text) = pick(first.rows, index) else {
                    throw CheckAbort(reason: "not run: no cell of 2 or more characters in this column in the first 50 rows", skip: true)
                }
                let kept = try ctx.page(offset: 0, limit: limit, filter: text, into: &f)
                let needle = text.lowercased()
                let strays = kept.rows.filter { row in !row.cells.contains { FilterCheck.matches($0, needle) } }
                if let stray = strays.first {
                    f.fail("filter \"\(text)\" kept \(strays.count) rows without it in a cell, such as \(stray.id) (PROTOCOL.md 11.3)")
                }
                if kept.rows.count < limit, !kept.rows.contains(where: { $0.id == source.id }) {
                    // A live table's cell may have changed between the two reads: only a warning there.
                    f.problem(warning: ctx.capabilities.live, "filter \"\(text)\" did not keep row \(source.id), whose \(column.type.name) cell \(column.id) is \(text): a filter matches the text of \(column.type.name) cells too (PROTOCOL.md 11.3)")
                }
                return !f.failures.isEmpty ? "filter \"\(text)\" (a cell of \(column.id)) did not keep the right rows" : "filter \"\(text)\" (a cell of \(column.id)) kept \(PagingChecks.rows(kept.rows.count)), row \(source.id) among them"
            }
        }
    }
}
