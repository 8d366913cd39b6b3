import TabdeckProtocol

/// One table of a plugin that cannot sort or page, as the spool keeps it.
final class SpooledTable {
    /// The plugin's handle for the table.
    let handle: String
    let schema: SpoolSchema
    /// The row count the table description announced, if any (for the progress bar).
    let announcedTotal: Int?
    /// The table's title in its description, if any (an aggregate's title starts with it).
    let title: String?
    /// A table the spool made itself (an `aggregate`'s groups, a `describe`'s statistics): complete from the start, its
    /// handle unknown to the plugin, never refilled.
    let own: Bool
    var fill: SpoolFill = .idle
    /// Rows in the spool (their `seq` runs from 1 to `arrived`).
    var arrived = 0
    /// Core requests waiting for rows: id and params, in arrival order.
    var waiting: [(id: RequestID, request: RowsRequest)] = []
    /// Core `aggregate` and `describe` requests waiting for every row, in arrival order.
    var waitingWhole: [(id: RequestID, question: SpoolRouter.Question)] = []
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
    /// Progress was reported during this fill: the tab shows a progress bar, kept true on every
    /// arrival from then on (a stream that pauses must not leave it behind the rows).
    var progressShown = false

    init(handle: String, schema: SpoolSchema, announcedTotal: Int?, title: String? = nil, own: Bool = false) {
        self.handle = handle
        self.schema = schema
        self.announcedTotal = announcedTotal
        self.title = title
        self.own = own
    }

    /// Whether core requests wait for this table's rows.
    var hasWaiting: Bool { !waiting.isEmpty || !waitingWhole.isEmpty }
}
