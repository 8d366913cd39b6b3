import TabdeckProtocol

/// Identifies a table's stored view state: a tab and a table key ("" = root).
public struct TableViewKey: Hashable, Sendable {
    public var tab: String
    public var table: String
    public init(tab: String, table: String) { self.tab = tab; self.table = table }
}

/// Tunables of the core, with the values the product uses.
public struct CoreSettings: Hashable, Sendable {
    /// Rows per page request.
    public var pageSize = 100
    /// Pages cached per table.
    public var cachePages = 64
    /// Pages fetched ahead of and behind the view.
    public var readAhead = 1
    /// Rows per request while exporting or selecting all.
    public var scanPageSize = 1000
    /// Pages requested at once while exporting or selecting all: one more than two, so that
    /// the plugin has the next page's query going while it sends one and the host writes one.
    public var scanPagesInFlight = 3
    /// Crashes allowed within `crashWindow` seconds before a plugin stays down.
    public var crashBudget = 5
    public var crashWindow = 60.0
    /// First restart delay; doubles per recent crash up to `maxBackoff`.
    public var baseBackoff = 0.5
    public var maxBackoff = 30.0
    /// First delay before a failed request (`rows`, `open`) is sent again; doubles per failure
    /// in a row up to `maxRequestBackoff`.
    public var baseRequestBackoff = 0.25
    public var maxRequestBackoff = 30.0
    /// The most rows `show N` prints (use `export` for more).
    public var maxShow = 1000
    /// The most row ids one `action` request carries: they all go in one protocol line, which
    /// the supervisor limits to 4 MiB (100,000 ids of up to ~40 bytes).
    public var maxActionRows = 100_000
    /// The most bytes `copy` puts on the clipboard (use `export` for more).
    public var maxCopyBytes = 1_000_000
    /// The keys in force, as the `keys` command lists them (the screen's key map fills it in).
    public var keyTable: [KeyTableEntry] = []
    /// The host's version, sent in `initialize`.
    public var hostVersion = "0.1.0"
    /// Seconds a request may go without an answer or progress before its plugin is stopped.
    public var requestTimeout = 10.0
    /// The same for `initialize`.
    public var handshakeTimeout = 5.0
    /// Seconds a cancelled request may stay unanswered before its plugin is stopped.
    public var cancelGrace = 5.0

    /// The timeout of a request: `initialize` has its own.
    func timeout(forMethod method: String) -> Double {
        method == Method.initialize ? handshakeTimeout : requestTimeout
    }
    public init() {}
}

/// Why a request was sent, so its reply can be routed.
enum RequestPurpose: Hashable, Sendable {
    case initialize
    case open
    case rows(table: String, generation: Int, page: Int)
    case scan(table: String, generation: Int, offset: Int)
    case find(table: String, generation: Int, offset: Int)
    /// The find's `find` request (PROTOCOL.md 11.15) on table `table` (its key).
    case findRow(table: String, generation: Int)
    case children(table: String, row: String)
    /// `locate` of the anchored cursor row of table `table` (its key) in generation `generation`.
    case locate(table: String, generation: Int)
    /// `children` of an expanded row: `path` is the ids from a row of table `table` to it.
    case expand(table: String, path: [String])
    /// A page of an expanded row's child table.
    case childRows(table: String, path: [String], generation: Int, page: Int)
    case action(String)
    case move
    /// A part of a cut cell's whole value, for the active command (`copy cell`, `export`).
    case cell
    /// A part of a cut cell's whole value, for the detail view of table `table` (its key).
    case detailCell(table: String)
    /// Opening level `level` of a tab's stack again in a restarted plugin (0: `open`, deeper:
    /// `children`).
    case reopen(level: Int)
    /// A frequency view counted again after its table changed (`invalidate` of a live table):
    /// level `level` of the stack, whose table had handle `handle`.
    case recount(level: Int, handle: String)
}

struct PendingRequest: Hashable, Sendable {
    var tab: String
    var purpose: RequestPurpose
}

/// A command that is waiting for a plugin before it can finish.
struct ActiveCommand: Hashable, Sendable {
    var command: Command
    /// The tab the command concerns.
    var tab: String
    /// The line as typed (for messages about the command).
    var line = ""
    /// Export progress, or the resolution of an "all" selection for an action.
    var scan: ScanProgress?
    /// A request whose reply the command waits for, and the reply once it came.
    var awaiting: RequestID?
    var reply: ReplyOutcome?
    /// The command already changed state (so re-running it must not do it again).
    var applied = false
    /// The row a drill-down was asked for.
    var scanRowID: String?
    /// The `aggregate` request a frequency view was asked with.
    var aggregate: AggregateRequest?
    /// The `describe` request a describe view was asked with.
    var describe: DescribeRequest?
    /// What a plot is made of, once asked.
    var plot: PlotFacts?
    /// A remark for the command's output (the filter dropped an "all" selection).
    var note: String?
    /// The row ids an "all, except" selection resolved to, once the scan for an action ended.
    var resolved: [String]?
    /// The row ids an action was sent to.
    var sent: [String]?
    /// The text `copy` collected so far while it reads the table.
    var copy: CopyBuffer?
    /// The whole value of a cut cell being fetched (`cell` requests, in parts).
    var whole: WholeCellFetch?
    /// Rows `export` has read and not yet written: they wait for their cut cells' whole values.
    var exportQueue: [Row] = []
}

/// A cut cell's whole value, fetched part by part (PROTOCOL.md 11.10).
struct WholeCellFetch: Hashable, Sendable {
    var row: String
    var column: String
    /// The whole value's size in bytes, as the row's `cut` said (then as the plugin says).
    var size: Int
    var text = ""
    var bytes = 0
}

enum ReplyOutcome: Hashable, Sendable {
    case result(JSONValue)
    case error(String)
}

/// Paging through a whole table for `export`, and for an action on an "all, except" selection.
struct ScanProgress: Hashable, Sendable {
    var table: String
    var generation: Int
    var nextOffset = 0
    /// Pages that arrived out of order, waiting for their turn.
    var arrived: [Int: [Row]] = [:]
    /// Where each request in flight or arrived ends (its offset plus its limit).
    var ends: [Int: Int] = [:]
    /// Arrived pages that came short with more to follow (`more`): not the end of the table.
    var more: Set<Int> = []
    /// The rest of such pages, to ask for: offset → end.
    var refills: [Int: Int] = [:]
    var written = 0
    var finished = false
    var started = false
}

/// The whole state of the host: a value, changed only by ``update(_:now:)``.
public struct Workspace: Sendable {
    public let config: WorkspaceConfig
    public var settings: CoreSettings
    public internal(set) var layout: WorkspaceLayout
    public internal(set) var tabs: [String: TabState]
    /// View state loaded from the store, used when a table opens.
    public internal(set) var savedViews: [TableViewKey: TableViewState]
    /// Table rows the user sees at once (terminal height, or 20 in line mode).
    public internal(set) var viewportRows = 20
    public internal(set) var quitting = false
    /// A screen shows the selected tab (set by the first ``Event/refresh``): plugin events then
    /// also keep its visible rows fetched.
    public internal(set) var followsView = false
    /// The full screen takes the mouse (config.json's `"mouse"`, the `mouse on|off` command).
    public internal(set) var mouse = true
    var nextRequestID: Int64 = 1
    /// The one ledger of requests per plugin connection.
    var pending = PendingRequests()
    /// The wake-up last asked for to give up requests (``Effect/wake(at:)``), if still ahead.
    var requestWake: Double?
    var active: ActiveCommand?
    /// The `/` find going through the whole table (beside the commands), or its outcome.
    public internal(set) var find: FindState?
    /// Views moved by keys (``Event/cursor(delta:)``, ``Event/page(_:)``) and not saved yet.
    var unsavedViews: Set<TableViewKey> = []
    /// Whether keys moved a view that ``Event/saveViews`` has not saved yet.
    public var hasUnsavedViews: Bool { !unsavedViews.isEmpty }
    var now: Double = 0

    /// A workspace for `config`, merged with what the store kept.
    public init(config: WorkspaceConfig, storedLayout: WorkspaceLayout?, storedViews: [TableViewKey: TableViewState],
                settings: CoreSettings = CoreSettings()) {
        self.config = config
        self.settings = settings
        self.layout = LayoutMerge.merge(stored: storedLayout, config: config)
        self.savedViews = storedViews
        self.mouse = config.mouse
        self.tabs = Dictionary(uniqueKeysWithValues: config.tabs.map { ($0.id, TabState(id: $0.id)) })
        for tab in config.tabs {
            guard let reason = tab.unavailable else { continue }
            tabs[tab.id]!.phase = .down(reason: reason)
            tabs[tab.id]!.error = reason
        }
    }

    /// Whether a command is still waiting for a plugin.
    public var isBusy: Bool { active != nil }

    /// The earliest time a request is given up (its timeout or cancel grace), if any is pending.
    public var requestDeadline: Double? { pending.earliest }

    /// Requests in flight, per tab (for status and tests).
    public func pendingRequests(tab: String) -> Int { pending.running(tab: tab).count }

    /// The selected tab's id.
    public var selectedTab: String? { layout.selected }

    /// Effects to run at launch: start the plugins of `background` tabs.
    public mutating func launch(now: Double) -> [Effect] {
        self.now = now
        var effects: [Effect] = []
        for tab in config.tabs where tab.background {
            _ = ensureReady(tab.id, &effects)
        }
        scheduleRequestWake(&effects)  // the handshakes' timeouts
        return effects
    }

    /// Effects to run on quit: stop every running plugin.
    public mutating func shutdown() -> [Effect] {
        var effects: [Effect] = []
        for (id, tab) in tabs.sorted(by: { $0.key < $1.key }) {
            switch tab.phase {
            case .starting, .ready:
                Self.stop(&tabs[id]!, kill: false, &effects)
            default: break
            }
        }
        return effects
    }

    // MARK: Requests

    mutating func request(_ tab: String, _ method: String, _ params: JSONValue, _ purpose: RequestPurpose, _ effects: inout [Effect]) -> RequestID {
        let id = RequestID.int(nextRequestID)
        nextRequestID += 1
        pending.insert(id, tab: tab, method: method, purpose: purpose, timeout: settings.timeout(forMethod: method),
                       limit: config.tab(tab)?.requestLimit, now: now)
        effects.append(.send(tab: tab, .request(id: id, method: method, params: params)))
        return id
    }

    mutating func cancel(_ id: RequestID, _ effects: inout [Effect]) {
        guard let tab = pending.cancel(id, grace: settings.cancelGrace, now: now) else { return }
        effects.append(.send(tab: tab, .notification(method: Method.cancel, params: ["id": id.json])))
    }

    /// Resolves TAB as an id, a title (case-insensitive) or a 1-based position among visible tabs.
    func resolveTab(_ word: String) throws(CommandError) -> String {
        if config.tab(word) != nil { return word }
        let visible = layout.visibleTabs
        if let n = Int(word) {
            guard n >= 1 && n <= visible.count else { throw CommandError("no tab at position \(n) (there are \(visible.count) visible tabs)") }
            return visible[n - 1]
        }
        let byTitle = config.tabs.filter { $0.title.lowercased() == word.lowercased() }
        if byTitle.count == 1 { return byTitle[0].id }
        if byTitle.count > 1 { throw CommandError("\"\(word)\" is the title of several tabs; use an id: \(byTitle.map(\.id).joined(separator: ", "))") }
        throw CommandError("no tab \"\(word)\"", suggestion: CommandParser.suggest(word, among: config.tabs.map(\.id) + config.tabs.map(\.title)))
    }

    func resolveSection(_ word: String) throws(CommandError) -> String {
        if config.section(word) != nil { return word }
        if let s = config.sections.first(where: { $0.title.lowercased() == word.lowercased() }) { return s.id }
        throw CommandError("no section \"\(word)\"", suggestion: CommandParser.suggest(word, among: config.sections.map(\.id)))
    }
}
