import TabdeckProtocol

/// `paging: …`: pages at the start, through the whole table, in the middle and at the end,
/// in the plugin's natural order (`sort: []`).
enum PagingChecks {
    static let pageSize = 100

    static func run(_ ctx: CheckContext) {
        firstPage(ctx)
        wholeTable(ctx)
        middlePage(ctx)
        lastPage(ctx)
    }

    /// `paging: first page`: offset 0, a full page unless the table is smaller.
    static func firstPage(_ ctx: CheckContext) {
        ctx.check("paging: first page", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let opened = ctx.total
            let page = try ctx.page(offset: 0, limit: pageSize, into: &f)
            let known = page.totalSent ? page.total : opened
            if let known, page.rows.count < min(pageSize, known) {
                f.fail("\(page.rows.count) rows at offset 0 for a limit of \(pageSize), but the table has \(known) (PROTOCOL.md 11.3)")
            }
            if page.totalSent, let opened, let now = page.total, now != opened, !ctx.capabilities.live {
                f.warn("total is \(now) here but \(opened) in open (only live tables change)")
            }
            return "\(rows(page.rows.count)) for a limit of \(pageSize)\(ofTotal(known)); generation echoed"
        }
    }

    /// `paging: whole table`: up to 5,000 rows read in pages of 1,000 (else sample pages): the
    /// pages join up, the count matches `total`, ids are unique, and the first page read again
    /// gives the same rows.
    static func wholeTable(_ ctx: CheckContext) {
        ctx.check("paging: whole table", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let read = try ctx.naturalOrder(into: &f)
            let again = try ctx.page(offset: 0, limit: min(pageSize, max(1, read.rows.count)), into: &f)
            let expected = Array(read.rows.prefix(again.rows.count).map(\.id))
            if again.rows.map(\.id) != expected {
                f.fail("the first page read twice gave different rows: \(preview(expected)) then \(preview(again.rows.map(\.id))) (PROTOCOL.md 11.3)")
            }
            let requests = read.requests == 1 ? "1 request" : "\(read.requests) requests"
            if read.complete {
                return "\(rows(read.rows.count)) in \(requests) of up to \(CheckContext.readPageSize); ids unique; the same page twice is the same"
            }
            return "\(read.total.map { rows($0) } ?? "more than \(ctx.options.wholeTableLimit) rows"): "
                + "checked \(rows(read.rows.count)) in \(requests) (sample pages); ids unique; the same page twice is the same"
        }
    }

    /// `paging: middle page`: a page in the middle matches the rows read before at those positions.
    static func middlePage(_ ctx: CheckContext) {
        ctx.check("paging: middle page", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            var scratch = Findings()
            let read = try ctx.naturalOrder(into: &scratch)
            scratch.failures.forEach { f.fail($0) }
            // With total null and a big table, the rows read so far stand in for the length.
            let exact = length(ctx, read)
            let count = exact ?? (read.positions.last.map { $0 + 1 } ?? 0)
            guard count > 1 else { return "the table has fewer than 2 rows: no middle" }
            let middle = count / 2
            let page = try ctx.page(offset: middle, limit: pageSize, into: &f)
            let expected = min(pageSize, count - middle)
            if exact != nil ? page.rows.count != expected : page.rows.count < expected {
                f.fail("\(rows(page.rows.count)) at offset \(middle) for a limit of \(pageSize), expected \(expected) of \(count) (PROTOCOL.md 11.3)")
            }
            compare(page, at: middle, with: read, into: &f)
            return "offset \(middle): \(rows(page.rows.count))" + (f.failures.isEmpty ? ", the same as read page by page" : "")
        }
    }

    /// `paging: last page`: a page reaching past the end is short, offsets at and past the
    /// end give no rows.
    static func lastPage(_ ctx: CheckContext) {
        ctx.check("paging: last page", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            var scratch = Findings()
            let read = try ctx.naturalOrder(into: &scratch)
            scratch.failures.forEach { f.fail($0) }
            guard let count = length(ctx, read) else {
                throw CheckAbort(reason: "not run: the table's end is unknown (total is null, and it has more than \(ctx.options.wholeTableLimit) rows)", skip: true)
            }
            let start = max(0, count - pageSize / 2)
            let page = try ctx.page(offset: start, limit: pageSize, into: &f)
            if page.rows.count != count - start {
                f.fail("\(rows(page.rows.count)) at offset \(start) for a limit of \(pageSize), expected a short page of \(count - start) (the table has \(count); PROTOCOL.md 11.3)")
            }
            compare(page, at: start, with: read, into: &f)
            var seen = ["offset \(start): \(rows(page.rows.count))"]
            for offset in [count, count + 1000] where offset != start {
                let past = try ctx.page(offset: offset, limit: pageSize, into: &f)
                if !past.rows.isEmpty {
                    f.fail("\(past.rows.count) rows at offset \(offset), past the end of a table of \(count) rows (expected none; PROTOCOL.md 11.3)")
                }
                seen.append("offset \(offset): \(rows(past.rows.count))")
            }
            return seen.joined(separator: "; ")
        }
    }

    /// The number of rows: from the whole read, else the total.
    static func length(_ ctx: CheckContext, _ read: TableRead) -> Int? {
        read.complete ? read.rows.count : (ctx.total ?? read.total)
    }

    /// The rows of `page` must be the ones read before at the same positions.
    static func compare(_ page: RowsResult, at offset: Int, with read: TableRead, into f: inout Findings) {
        var byPosition: [Int: String] = [:]
        for (position, row) in zip(read.positions, read.rows) { byPosition[position] = row.id }
        var mismatches = 0
        for (i, row) in page.rows.enumerated() {
            guard let before = byPosition[offset + i], before != row.id else { continue }
            if mismatches < 3 { f.fail("position \(offset + i) holds id \(row.id) here but id \(before) when read page by page (PROTOCOL.md 11.3: the same offset gives the same rows)") }
            mismatches += 1
        }
        if mismatches > 3 { f.fail("… \(mismatches - 3) more positions differ") }
    }

    /// `1 row`, `5 rows`.
    static func rows(_ n: Int) -> String { n == 1 ? "1 row" : "\(n) rows" }

    static func ofTotal(_ total: Int?) -> String { total.map { " (total \($0))" } ?? " (total unknown)" }

    static func preview(_ ids: [String]) -> String {
        let head = ids.prefix(5).joined(separator: ", ")
        return "[" + head + (ids.count > 5 ? ", …" : "") + "]"
    }
}
