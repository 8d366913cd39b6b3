import TabdeckProtocol

/// `paging: every id`: for a table too big to be read whole by the other checks but of at most
/// `idLimit` rows (100,000), every page in the natural order, to the very end: each id once
/// (PROTOCOL.md 10.5), the pages join up, the last one is short or empty, and the count matches
/// `total` (PROTOCOL.md 11.3). Bigger tables are sampled by `paging: whole table`.
enum EveryIDCheck {
    static func run(_ ctx: CheckContext) {
        guard ctx.skipReason(.rows) == nil else { return }
        if let natural = ctx.natural, natural.complete { return }  // already read whole
        let limit = ctx.options.idLimit
        if let total = ctx.total, total > limit {
            ctx.record(CheckResult(name: "paging: every id", status: .skipped,
                                   summary: "not run: \(total) rows, more than \(limit): ids were checked on sample pages"))
            return
        }
        ctx.check("paging: every id", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let size = CheckContext.readPageSize
            var first: [String: Int] = [:]
            var count = 0, duplicates = 0, requests = 0
            var lastTotal = ctx.total
            while true {
                let page = try ctx.page(offset: count, limit: size, into: &f)
                requests += 1
                if page.totalSent { lastTotal = page.total }
                for (i, row) in page.rows.enumerated() {
                    if let earlier = first[row.id] {
                        if duplicates < 3 { f.fail("id \(row.id) is used by rows \(earlier) and \(count + i): row ids must be unique (PROTOCOL.md 10.5)") }
                        duplicates += 1
                    } else {
                        first[row.id] = count + i
                    }
                }
                count += page.rows.count
                if page.rows.count < size { break }
                if count > limit {
                    f.note("more than \(limit) rows: stopped reading at \(count)")
                    return "\(PagingChecks.rows(count)) read (of more)" + (f.failures.isEmpty ? ", ids unique so far" : "")
                }
            }
            if duplicates > 3 { f.fail("… \(duplicates - 3) more duplicate ids") }
            if let t = lastTotal, t != count {
                f.fail("the pages end after \(PagingChecks.rows(count)) (offset \(count) gave a short page), but total says \(t) (PROTOCOL.md 11.3)")
            }
            return "\(PagingChecks.rows(count)) in \(requests) requests of up to \(size), to the end" + (f.failures.isEmpty ? "; ids unique" : "")
        }
    }
}
