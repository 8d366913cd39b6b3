import TabdeckProtocol

/// How far a spooled table has been filled from its plugin.
public enum SpoolFill: Hashable, Sendable {
    /// Nothing asked for yet.
    case idle
    /// Rows are arriving.
    case filling
    /// Every row is in the spool.
    case complete
    /// The stream or the pull failed; the message says why.
    case failed(String)
}

/// What to do with one of the core's `rows` requests for a table of a plugin that cannot sort
/// or cannot page. Pure, so the rules are tested without a plugin.
public enum PageRoute: Hashable, Sendable {
    /// Send it to the plugin unchanged (a natural-order page of a plugin that pages).
    case forward
    /// Answer it from the spool now.
    case answer
    /// Answer it from the rows received so far (a view of the first screens of a stream that
    /// is still running).
    case answerSoFar
    /// Keep it until more rows have arrived (or all of them).
    case wait
    /// Answer it with this error.
    case fail(String)

    /// The rules:
    /// - a plugin that pages serves natural-order pages itself;
    /// - a complete spool answers everything;
    /// - while rows arrive, a natural-order page whose rows have all arrived is answered at once
    ///   (rows are usable before the stream ends);
    /// - a page of the first screens (ending before row ``partialRows``) is answered from the
    ///   rows received so far: natural-order ones that start within them, sorted and filtered
    ///   ones once any row is in (a stream may never end: `tail -f x | tabdeck`); the spool
    ///   refreshes them as more arrive;
    /// - a deeper sorted or filtered page waits until every row has arrived. Scans (`export`,
    ///   `select all`) ask 1,000 rows a page (`Workspace.scanPageSize`), so they always see the
    ///   whole table, never a part of it in an order that is not yet the real one.
    ///
    /// `soFar` false (line mode and scripts, whose commands want whole-table answers): sorted
    /// and filtered pages always wait for every row.
    public static func decide(_ request: RowsRequest, pluginPages: Bool, fill: SpoolFill, arrived: Int,
                              soFar: Bool = true) -> PageRoute {
        let natural = request.sort.isEmpty && request.filter == nil && request.where.isEmpty
        if pluginPages && natural { return .forward }
        switch fill {
        case .complete: return .answer
        case .failed(let message): return .fail(message)
        case .idle, .filling:
            if natural && request.offset + request.limit <= arrived { return .answer }
            guard !pluginPages, fill == .filling, request.offset + request.limit < partialRows else { return .wait }
            if natural ? request.offset < arrived : soFar && arrived > 0 { return .answerSoFar }
            return .wait
        }
    }

    /// Where the first screens of a sorted or filtered view of a stream end (rows).
    public static let partialRows = 1000
}

/// When materializing a sort order pays: a page past the first screens of a big table
/// (paging through `OFFSET` would sort the whole table again for every page).
public enum OrderPolicy {
    /// Rows below which every page is sorted on the fly.
    public static let minimumRows = 20_000
    /// The first offset that makes an order worth materializing.
    public static let deepOffset = 1_000

    public static func materialize(offset: Int, rows: Int) -> Bool {
        rows >= minimumRows && offset >= deepOffset
    }
}
