import TabdeckProtocol

/// `invalidate` (PROTOCOL.md 12.2), for a plugin that sent any during the run: each names a table
/// the plugin gave, its sections are the table's, and the `total` of the last one for the root
/// table is what the next page says (unless the table is `live` and may have changed since).
enum InvalidateCheck {
    static func run(_ ctx: CheckContext) {
        guard ctx.skipReason(.rows) == nil, let table = ctx.table else { return }
        let sent = ctx.session.received.notifications.filter { $0.method == Method.invalidate }
        guard !sent.isEmpty else {
            ctx.record(CheckResult(name: "invalidate", status: .skipped, summary: "not run: the plugin sent no invalidate"))
            return
        }
        ctx.check("invalidate", needs: .rows) { (f) throws(CheckAbort) in
            let known = Set(table.sections.map(\.id))
            var lastTotal: Int?
            for (_, params) in sent {
                guard let name = params["table"]?.stringValue else { continue }  // `messages` reports the shape
                if name == table.table {
                    if let total = params["total"], total != .null, let n = total.intValue { lastTotal = Int(n) }
                    for section in params["sections"]?.arrayValue ?? [] {
                        if let id = section["id"]?.stringValue, !known.contains(id) {
                            f.fail("an invalidate of \(name) lists section \(id), which the table does not list (PROTOCOL.md 10.6)")
                        }
                    }
                }
            }
            let count = sent.count == 1 ? "1 invalidate" : "\(sent.count) invalidates"
            guard let expected = lastTotal, ctx.capabilities.paging else {
                return f.failures.isEmpty ? "\(count), each about a table and sections the plugin gave" : "\(count): not all agree with the table"
            }
            let before = ctx.session.invalidateCount
            let page = try ctx.page(offset: 0, limit: 1, into: &f)
            if page.totalSent, let now = page.total, now != expected, ctx.session.invalidateCount == before {
                let text = "the last invalidate said total \(expected), but the next rows answer says \(now): a rows total is the count as now known, and an invalidate announces the new one (PROTOCOL.md 12.2)"
                if ctx.capabilities.live { f.warn(text) } else { f.fail(text) }
            }
            return f.failures.isEmpty ? "\(count); the last one's total \(expected) is the table's" : "\(count): not all agree with the table"
        }
    }
}
