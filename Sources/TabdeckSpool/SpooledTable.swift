import TabdeckProtocol

/// One table of a plugin that cannot sort or page, as the spool keeps it.
final class SpooledTable {
    /// The plugin's handle for the table.
    let handle: String
    let schema: SpoolSchema
    /// The row count the table description announced, if any (for the progress bar).
    let announcedTotal: Int?
    var fill: SpoolFill = .idle
    /// Rows in the spool (their `seq` runs from 1 to `arrived`).
    var arrived = 0
    /// Core requests waiting for rows: id and params, in arrival order.
    var waiting: [(id: RequestID, request: RowsRequest)] = []
    /// The spool's own requests in flight for this table: id → offset (-1 for a stream).
    var inflight: [RequestID: Int] = [:]
    /// Pull of a paging plugin: the next offset to ask for, pages that came early, the end seen.
    var nextPull = 0
    var early: [Int: [Row]] = [:]
    var pullEnded = false
    /// Materialized sort orders: order → table name.
    var orders: [[SortKey]: String] = [:]
    /// Rows passing each filter asked for (text → count), for `total`.
    var filteredCounts: [RowKeep: Int] = [:]
    /// The first rows of the last sorted order asked for (``SpoolRouter/headRows``).
    var head: (sort: [SortKey], rows: [JSONValue])?
    /// While a view shows the rows received so far: how many it showed at its last refresh.
    /// Nil when no such view was answered (or the stream ended).
    var viewedSoFar: Int?
    /// True while the tab's status says a sorted or filtered view shows the rows so far.
    var saidSoFar = false
    /// `arrived` when progress was last reported.
    var reported = 0

    init(handle: String, schema: SpoolSchema, announcedTotal: Int?) {
        self.handle = handle
        self.schema = schema
        self.announcedTotal = announcedTotal
    }
}
