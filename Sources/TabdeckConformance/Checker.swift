import Foundation
import TabdeckProtocol
import TabdeckSupervisor
import TabdeckTime

/// What to check and how patiently.
public struct CheckOptions: Sendable {
    /// The plugin's argv (a bare program name is looked up on `PATH`).
    public var command: [String]
    /// The `args` of `open` (the tab's `args` in config.json).
    public var args: JSONValue
    /// How long each request may take (the host's request timeout is 10 s).
    public var timeout: Duration
    /// How long `initialize` may take (5 s, as in the host).
    public var handshakeTimeout: Duration
    /// Variables added to the plugin's environment (besides `TABDECK_PROTOCOL=1`).
    public var environment: [String: String]
    /// The plugin's working directory; empty: the current one.
    public var workingDirectory: String
    /// A file to write the protocol trace of the run to.
    public var tracePath: String?
    /// Tables with at most this many rows are read whole for the order checks; bigger ones
    /// are checked on sample pages.
    public var wholeTableLimit: Int
    /// The host version sent in `initialize`.
    public var hostVersion: String
    /// Tables with at most this many rows have every id read (natural order) for the id and
    /// paging checks; bigger ones are sampled.
    public var idLimit: Int
    /// Run only the checks whose names start with one of these (`sort`, `filter`, `paging`);
    /// the handshake and `open` always run, the others are reported as not run. Empty: all.
    public var only: [String] = []
    /// Do not run the checks whose names start with one of these (`find`), even under ``only``;
    /// they are reported as not run.
    public var skip: [String] = []
    /// The host's own printable keys, each with what it does: an action's hotkey among them is
    /// a warning (the host's key wins, PROTOCOL.md 10.7). Empty: not checked.
    public var hostKeys: [Character: String] = [:]
    /// The clock of every deadline and of the times reported: `SystemClock()` for a real run.
    public var clock: any MonotonicClock

    /// Whether the check named `name` runs under ``only`` and ``skip``.
    func selects(_ name: String) -> Bool {
        if ["handshake", "open"].contains(name) { return true }
        if skip.contains(where: { name.hasPrefix($0) }) { return false }
        return only.isEmpty || only.contains { name.hasPrefix($0) }
    }

    public init(command: [String], args: JSONValue = [:], timeout: Duration = .seconds(10),
                handshakeTimeout: Duration = .seconds(5),
                environment: [String: String] = [:], workingDirectory: String = "", tracePath: String? = nil,
                wholeTableLimit: Int = 5000, hostVersion: String = "0.1.0", idLimit: Int = 100_000,
                clock: any MonotonicClock) {
        self.clock = clock
        self.command = command; self.args = args; self.timeout = timeout; self.handshakeTimeout = handshakeTimeout
        self.environment = environment
        self.workingDirectory = workingDirectory; self.tracePath = tracePath
        self.wholeTableLimit = wholeTableLimit; self.hostVersion = hostVersion; self.idLimit = idLimit
    }
}

/// Runs a plugin through the protocol, the way the host would and a little harder, and
/// reports how it went (`tabdeck plugin check`). The checks, in order:
///
/// 1. `handshake`: `initialize` answered in time, protocol version 1, capabilities parsed
///    (unknown ones ignored).
/// 2. `open`: a valid table description (columns, types, enum values, widths, total).
/// 3. `paging: …`: the first page; the whole table (ids unique, count = total, pages join up);
///    a middle page and the end (short last page, empty past the end); `paging: every id`: every
///    id of a table of up to 100,000 rows read to the very end (``EveryIDCheck``); generation and offset
///    echoed in every page; the same id always with the same cells.
///    With `paging: false`, `stream: whole table` and `stream: again` instead (``StreamChecks``).
/// 4. `sort: ties across pages` (``SortTiesCheck``), then `sort: …`: each sortable column in both directions (whole table up to 5,000 rows, else
///    sample pages), in the right order (see ``OrderCheck``) with the same ids; multi-key sorts
///    with `multiSort`; non-sortable columns refused.
/// 5. `sections` (``SectionsCheck``),
///    `filter` and `filter: <type> column …` (``FilterCheck``, ``FilterTypesCheck``),
///    `children` and `close` (``ChildrenCheck``), `actions` (``ActionsCheck``), `invalidate`
///    (``InvalidateCheck``: the notifications sent during the run agree with the table).
///    `locate` (``LocateCheck``, only for plugins that declare it): rows are found at the offsets a
///    `rows` read puts them, an unknown id gives `row: null`. `find` (``FindCheck``, only for
///    plugins that declare it): forward and backward, with and without wrap, from past the end, in
///    the natural order, a sort and a filter, at the positions a scan of `rows` pages gives.
///    `cell` (``CellCheck``, only for plugins that declare `cells`): a cut cell fetched whole
///    starts with the page's part.
///    `where: <type> column …` (``WhereCheck``, only with `where`): conditions from the table's own
///    values keep the rows ``Where/matches`` keeps. `aggregate: …` (``AggregateCheck``, only with
///    `aggregate`): counts, bins, natural order, paging and `close` of the groups' table, against
///    the checker's own count (``GroupBins``).
/// 6. `cancel`: `$/cancel` of an in-flight request is tolerated and the next one answered.
/// 7. `errors: …`: unknown method (-32601), invalid `rows` params, unknown table, unknown
///    sort column.
/// 8. `speed: pages sent together` (``ConcurrencyCheck``): pages sent in batches and answered
///    one at a time made the check slow (a warning, with figures).
/// 9. `errors: malformed line` and `exit at end of input`, on a second process: a line that is
///    not JSON is answered with -32700 or ignored, the plugin keeps answering, and it exits
///    when its stdin closes.
/// 10. `shutdown`: answered, then exit with status 0 within 2 s of stdin closing. `messages`: the
///    notifications were valid, no replies to ids that were not pending.
///
/// A check that cannot run (the plugin died, `open` failed, ...) is reported as skipped.
public struct PluginChecker: Sendable {
    public var options: CheckOptions

    public init(options: CheckOptions) { self.options = options }

    /// Runs every check; `onResult` sees each result as soon as it is known (for live output).
    public func run(onResult: ((CheckResult) -> Void)? = nil) throws(TraceError) -> Report {
        let tracer = try options.tracePath.map { (path) throws(TraceError) in try ProtocolTracer(allTabsPath: path) }
        let ctx = CheckContext(options: options, tracer: tracer, onResult: onResult)
        defer { ctx.session.kill() }
        HandshakeCheck.run(ctx)
        OpenCheck.run(ctx)
        if ctx.capabilities.paging { PagingChecks.run(ctx); EveryIDCheck.run(ctx) } else { StreamChecks.run(ctx) }
        SortTiesCheck.run(ctx)
        SortChecks.run(ctx)
        SectionsCheck.run(ctx)
        FilterCheck.run(ctx)
        FilterTypesCheck.run(ctx)
        ChildrenCheck.run(ctx)
        ActionsCheck.run(ctx)
        InvalidateCheck.run(ctx)
        LocateCheck.run(ctx)
        FindCheck.run(ctx)
        CellCheck.run(ctx)
        WhereCheck.run(ctx)
        AggregateCheck.run(ctx)
        CancelCheck.run(ctx)
        ErrorChecks.run(ctx)
        ConcurrencyCheck.run(ctx)
        RawChecks.run(ctx)
        ShutdownCheck.run(ctx)
        MessagesCheck.run(ctx)
        StderrCheck.run(ctx)
        var report = Report(command: options.command, results: ctx.results)
        if let id = ctx.identity {
            let c = id.capabilities
            let names: [(String, Bool)] = [("sort", c.sort), ("multiSort", c.multiSort), ("filter", c.filter),
                                           ("sections", c.sections), ("children", c.children), ("actions", c.actions),
                                           ("live", c.live), ("cells", c.cells),
                                           ("locate", c.locate), ("where", c.where), ("aggregate", c.aggregate),
                                           ("describe", c.describe), ("query", c.query), ("find", c.find)]
            report.plugin = PluginIdentity(name: id.name, version: id.version, protocolVersion: id.protocolVersion,
                                           capabilities: names.filter(\.1).map(\.0) + (c.paging ? [] : ["paging:false"]))
        }
        return report
    }
}
