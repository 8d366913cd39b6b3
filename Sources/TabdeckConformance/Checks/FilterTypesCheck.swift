import TabdeckProtocol

/// `filter: <type> column <id>`: a filter matches the text of every cell, not only of text
/// cells (PROTOCOL.md 11.3, "filter"): a number as written in JSON (`2048`, `0.5`), a date as
/// its ISO string, a boolean as `true` or `false`, an enum as its value. One check per integer,
/// decimal, bool, date and enum column: the full text of one of its
/// cells keeps that cell's row, and only rows that contain the text in some cell.
enum FilterTypesCheck {
    static let types: Set<String> = ["integer", "decimal", "bool", "date", "enum"]

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.filter, ctx.capabilities.paging, let table = ctx.table, ctx.skipReason(.rows) == nil else { return }
        for (index, column) in table.columns.enumerated() where types.contains(column.type.name) {
            ctx.check("filter: \(column.type.name) column \(column.id)", needs: .rows) { (f) throws(CheckAbort) in
                let first = try ctx.page(offset: 0, limit: 50, into: &f)
                let candidates = first.rows.compactMap { row -> (Row, String)? in
                    guard index < row.cells.count, row.cells[index] != .null else { return nil }
                    let text = FilterCheck.cellText(row.cells[index])
                    return text.count >= 2 ? (row, text) : nil
                }
                guard let (source, text) = candidates.first else {
                    throw CheckAbort(reason: "not run: no cell of 2 or more characters in this column in the first 50 rows", skip: true)
                }
                let limit = 1_000
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
