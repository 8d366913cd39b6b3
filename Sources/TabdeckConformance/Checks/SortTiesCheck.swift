import TabdeckProtocol

/// `sort: ties across pages`: the sortable column with the most ties, read once in one page and
/// again in pages of 7 rows, gives the same rows at the same positions (PROTOCOL.md 11.3: the
/// same sort and offset give the same rows; ties are broken the same way on every request).
enum SortTiesCheck {
    static let smallPage = 7
    static let span = 301

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.sort, ctx.capabilities.paging, let table = ctx.table, ctx.skipReason(.rows) == nil else { return }
        guard let natural = ctx.natural, !natural.rows.isEmpty else { return }
        // The column whose first rows hold the fewest distinct values: the most ties.
        let candidates = table.columns.enumerated().filter { $0.element.sortable }.map { index, column in
            (column, Set(natural.rows.prefix(span).map { index < $0.cells.count ? $0.cells[index] : .null }).count)
        }
        guard let (column, distinct) = candidates.min(by: { $0.1 < $1.1 }), distinct < min(span, natural.rows.count) else {
            ctx.record(CheckResult(name: "sort: ties across pages", status: .skipped, summary: "not run: no sortable column has equal values"))
            return
        }
        ctx.check("sort: ties across pages", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let sort = [SortKey(column.id, .ascending)]
            let whole = try ctx.page(offset: 0, limit: span, sort: sort, into: &f)
            var paged: [Row] = []
            while paged.count < whole.rows.count {
                let page = try ctx.page(offset: paged.count, limit: smallPage, sort: sort, into: &f)
                if page.rows.isEmpty { break }
                paged += page.rows
            }
            let label = "\(column.id) asc"
            var firstSeen: [String: Int] = [:]
            for (position, row) in paged.enumerated() {
                if let earlier = firstSeen[row.id] {
                    f.fail("sort by \(label) read \(smallPage) rows a page: row \(row.id) came at positions \(earlier) and \(position) (at a page border), though its id is unique: rows with equal \(column.id) changed places between pages. Ties must come in the same order on every request: break them by the natural order or the id (PROTOCOL.md 11.3)", cause: "unstable ties")
                    break
                }
                firstSeen[row.id] = position
            }
            if f.failures.isEmpty, let i = zip(whole.rows, paged).enumerated().first(where: { $0.element.0.id != $0.element.1.id })?.offset {
                f.fail("sort by \(label): position \(i) holds row \(paged[i].id) when read \(smallPage) rows a page, but row \(whole.rows[i].id) when read in one page of \(span): ties must come in the same order on every request (PROTOCOL.md 11.3)", cause: "unstable ties")
            }
            if paged.count != whole.rows.count {
                f.fail("sort by \(label): \(paged.count) rows read \(smallPage) a page, \(whole.rows.count) in one page")
            }
            return !f.failures.isEmpty ? "sort by \(label): ties came in another order in pages of \(smallPage)" : "sort by \(label) (\(distinct) distinct values in \(PagingChecks.rows(whole.rows.count))): the same rows in pages of \(smallPage) as in one page"
        }
    }
}
