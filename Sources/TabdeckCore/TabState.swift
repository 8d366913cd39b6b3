import TabdeckProtocol

/// Where a tab's plugin is in its life.
public enum PluginPhase: Hashable, Sendable {
    /// Not running (never started, or stopped).
    case stopped
    /// Spawned; `initialize` sent.
    case starting
    /// Handshake done.
    case ready(InitializeResult)
    /// Crashed, hung or misbehaved; restarts on next use after `retryAt`.
    case failed(reason: String, retryAt: Double)
    /// Will not be restarted until `plugin restart` (crash budget spent, or incompatible).
    case down(reason: String)

    public var name: String {
        switch self {
        case .stopped: "stopped"
        case .starting: "starting"
        case .ready: "running"
        case .failed: "failed"
        case .down: "down"
        }
    }
}

/// One table on a tab's navigation stack (the root table, or a drilled-down child).
public struct TableState: Hashable, Sendable {
    /// Persistence key: "" for the root, parent key + "/" + row id for children.
    public var key: String
    public var description: TableDescription
    public var view: TableViewState
    /// Bumped whenever the sort (or filter) changes; pages of older generations are dropped.
    public var generation: Int = 1
    /// The row count as now known; nil: unknown. Setting it makes it exact (an estimate comes
    /// with ``setTotal(_:estimate:)``), so an exact count always replaces an estimate.
    public var total: Int? { didSet { totalIsEstimate = false } }
    /// `total` is the plugin's estimate (PROTOCOL.md 10.1, `totalIsEstimate`), shown as
    /// `≈ 3,000,000` (``totalText``) until an exact count replaces it.
    public private(set) var totalIsEstimate = false

    /// Sets the row count as a plugin sent it: exact, or its estimate (`estimate`).
    mutating func setTotal(_ count: Int?, estimate: Bool) {
        total = count
        totalIsEstimate = estimate && count != nil
    }

    /// Takes the count a `rows` result brought, unless it is an estimate and the count known
    /// is exact (a short page or an `invalidate` said where the rows end): an estimate never
    /// replaces an exact count.
    mutating func takeTotal(_ count: Int, estimate: Bool) {
        if estimate && total != nil && !totalIsEstimate { return }
        setTotal(count, estimate: estimate)
    }
    /// Set by `G` while the row count is unknown: the cursor's row at that moment. When the
    /// count arrives and the cursor has not moved since, the view goes to the last row.
    public var endWanted: Int?
    public var cache: PageCache
    /// The breadcrumb label.
    public var label: String
    /// Made by the host from the level below (a frequency view, a group's rows); nil for the
    /// plugin's own tables.
    public var derived: DerivedTable?
    /// Failed `rows` requests, by page: each page waits for its own backoff, and its failure
    /// ends when that page arrives (an error belongs to the request that failed).
    public var pageFailures: [Int: RequestFailure] = [:]
    /// Whole values of the cursor row's cut cells, fetched for the detail view (``Event/wholeCells``),
    /// by column id, for the row ``wholeRow``; a value that could not be fetched has its error in
    /// ``wholeErrors``.
    public internal(set) var wholeValues: [String: String] = [:]
    public internal(set) var wholeErrors: [String: String] = [:]
    /// The row the whole values are of.
    public internal(set) var wholeRow: String?
    /// The cut cell being fetched: its request, column, size and the text so far.
    var wholeFetch: DetailCellFetch?
    /// The pages the view last needed (``Workspace/fetch``): their failures are the ones shown.
    var neededPages: ClosedRange<Int>?
    /// The failure to show: that of the first page the view needs that failed (a read-ahead
    /// page's failure is not shown). Setting nil forgets them all.
    public var rowsFailure: RequestFailure? {
        get {
            guard !pageFailures.isEmpty else { return nil }
            guard let needed = neededPages else { return pageFailures[pageFailures.keys.min()!] }
            return needed.lazy.compactMap { pageFailures[$0] }.first
        }
        set { if newValue == nil { pageFailures = [:] } }
    }
    /// After a restart: the id of the row the cursor was on, so the cursor follows that row
    /// when the first page around it arrives (nil once settled).
    public var cursorRowID: String?
    /// The ids of the rows next to the cursor's when it was anchored (below, then above): the
    /// nearest row takes the cursor when its own row left the view (see CursorFollow.swift).
    public var cursorFallbacks: [String] = []
    /// A `locate` for the anchored row is due (the plugin has the capability).
    var locateWanted = false
    /// The `locate` request in flight, and the cursor position it was asked from.
    var locating: (id: RequestID, from: Int)? {
        get { locatingID.map { ($0, locatingFrom) } }
        set { locatingID = newValue?.id; locatingFrom = newValue?.from ?? 0 }
    }
    private var locatingID: RequestID?
    private var locatingFrom = 0
    /// The cursor's place below its top-level row (`view.cursor`) in the expanded tree: empty on
    /// the row itself, `[3]` on its child row 3, `[3, 0]` on that row's first child (Outline.swift).
    public var cursorPath: [Int] = []
    /// The order shown before a sort whose rows are still on their way (SortUndo.swift).
    var sortUndo: SortUndo?
    /// The child tables opened for expanded rows, by the path of row ids to the expanded row.
    public var outline: [[String]: OutlineChild] = [:]
    /// The sections of the whole table (no filter), as the plugin last described them: back
    /// when the filter is cleared.
    var unfilteredSections: [SectionSpec]

    public init(key: String, description: TableDescription, view: TableViewState, label: String, cache: PageCache) {
        self.key = key; self.description = description; self.view = view
        self.total = description.total
        self.totalIsEstimate = description.totalIsEstimate && description.total != nil
        self.label = label; self.cache = cache
        self.unfilteredSections = description.sections
    }

    /// The columns in the user's order, with their customization.
    public var orderedColumns: [(spec: ColumnSpec, custom: ColumnCustomization)] {
        view.columns.compactMap { c in description.columns.first { $0.id == c.id }.map { ($0, c) } }
    }

    /// The visible columns in the user's order.
    public var visibleColumns: [ColumnSpec] { orderedColumns.filter { !$0.custom.hidden }.map(\.spec) }

    /// The index of a column in the plugin's cell order.
    public func cellIndex(of column: String) -> Int? { description.columns.firstIndex { $0.id == column } }
}

/// The whole value of one cut cell being fetched for the detail view.
struct DetailCellFetch: Hashable, Sendable {
    var id: RequestID
    var column: String
    var size: Int
    var text = ""
}

/// Requests of one kind that failed, and when the next one may be sent: exponential backoff
/// (0.25 s doubling up to 30 s by default), so a plugin that fails every request is asked
/// again a few times a minute, not in a loop.
public struct RequestFailure: Hashable, Sendable {
    /// What failed and what the plugin said (`rows 1–100: disk on fire`).
    public var message: String
    /// Failures in a row.
    public var count: Int
    /// The earliest time (the core's clock) the request may be sent again.
    public var retryAt: Double

    /// The failure after `previous` (nil: the first), at `now`.
    static func next(after previous: RequestFailure?, _ message: String, now: Double, settings: CoreSettings) -> RequestFailure {
        let count = (previous?.count ?? 0) + 1
        let delay = min(settings.maxRequestBackoff, settings.baseRequestBackoff * Double(1 << min(count - 1, 20)))
        return RequestFailure(message: message, count: count, retryAt: now + delay)
    }
}

/// Progress reported by a plugin.
public struct PluginProgress: Hashable, Sendable {
    public var done: Double
    public var total: Double?
    public var message: String?

    public init(done: Double, total: Double?, message: String?) {
        self.done = done; self.total = total; self.message = message
    }
}

/// Everything the host knows about one tab.
public struct TabState: Hashable, Sendable {
    public var id: String
    public var phase: PluginPhase = .stopped
    public var badge: BadgeValue?
    /// The last failure, shown in the tab (with a `!` badge) until the plugin works again.
    public var error: String?
    public var status: String?
    public var progress: PluginProgress?
    /// Answers from the plugin that nobody waited for (an unknown id, a cancelled or forgotten
    /// request), ignored, over the tab's lifetime.
    public internal(set) var ignoredReplies = 0
    /// The navigation stack; empty until the root table is open.
    public var stack: [TableState] = []
    /// An `open` or `children` request is in flight.
    public var navigating = false
    /// Times of recent crashes, for backoff and the crash budget.
    public var crashes: [Double] = []
    /// Why the process is going away, when the host knows better than the exit status.
    var exitReason: String?
    /// The last lines of stderr, quoted in crash messages.
    public var recentStderr: [String] = []
    /// The host is stopping this plugin on purpose (its exit is not a crash).
    var stopping = false
    /// The process is going away (stopped, killed or violating); no new one starts until it has.
    var terminating = false
    /// The navigation stack outlived its plugin process: the next process must open it again,
    /// level by level (`open`, then `children` for each drill-down), before rows are asked for.
    /// nil when nothing is to be replayed; otherwise the level being reopened.
    public internal(set) var reopenLevel: Int?
    /// What the recovery did or why it stopped, shown in the tab (`plugin restarted (2 of 5):
    /// exited with status 3`). Replaced by the next such note, cleared by a new command on the tab.
    public var notice: String?
    /// Why the plugin last went away, for the notice once the restart has replayed the session.
    var restartReason: String?
    /// A page of the sorted or filtered view shown was lost with the plugin (LostView.swift):
    /// the restart's notice names the sort and filter.
    var lostViewRequest = false
    /// `open` failed: the next attempt waits for the backoff.
    public var openFailure: RequestFailure?
    /// The user cancelled the tab's loading (Esc): no `open` or `rows` is sent for it until a
    /// key moves the view or a command runs on it (``Workspace/job``).
    public internal(set) var loadCancelled = false
    /// The command (`sort name`) whose rows the view waits for: a ``Job`` until they are in.
    public internal(set) var viewJob: String?

    public init(id: String) { self.id = id }

    /// The table shown (top of the stack).
    public var table: TableState? {
        get { stack.last }
        set { if let newValue, !stack.isEmpty { stack[stack.count - 1] = newValue } }
    }

    /// The problem to show in the tab: the plugin's error, or else the table's failing requests.
    public var problem: String? { error ?? table?.rowsFailure?.message }

    /// The badge to show: `!` while the tab has a problem.
    public var shownBadge: String? { problem != nil ? "!" : badge?.description }

    /// Capabilities once the handshake is done.
    public var capabilities: PluginCapabilities? {
        if case .ready(let r) = phase { return r.capabilities }
        return nil
    }
}
