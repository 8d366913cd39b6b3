/// `speed: pages sent together`: the checker sends independent pages in batches, as the host
/// does (``RequestBatches``). A plugin MAY answer them one at a time (PROTOCOL.md 4.3); when that
/// made the check slow (over ``slowBy`` longer than answering concurrently would take), it is a
/// warning with the figures, since the host waits the same way for its read-ahead.
enum ConcurrencyCheck {
    /// Time lost to answering one at a time that draws a warning.
    static let slowBy = Duration.seconds(2)

    static func run(_ ctx: CheckContext) {
        let (count, took, concurrently) = ctx.batches.timing
        guard count > 0 else {
            ctx.record(CheckResult(name: "speed: pages sent together", status: .skipped,
                                   summary: "not run: no requests were sent together"))
            return
        }
        ctx.check("speed: pages sent together", needs: .process) { (f) throws(CheckAbort) in
            let figures = "\(count) batches of up to \(RequestBatches.size) requests took \(Report.formatDuration(took))"
            guard took - concurrently > slowBy, took > concurrently * 3 / 2 else {
                return figures
            }
            f.warn("the plugin answered requests sent together one at a time: \(figures), about \(Report.formatDuration(concurrently)) "
                   + "if answered concurrently (PROTOCOL.md 4.3 allows either; the host's read-ahead waits the same way)")
            return figures + ", one at a time"
        }
    }
}
