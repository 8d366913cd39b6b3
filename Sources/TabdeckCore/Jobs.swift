import TabdeckProtocol

/// Long work the user waits for and may stop (Esc, `cancel`): a command waiting for a plugin,
/// the `/` find, or the selected tab's table being opened. The screen shows it with a progress
/// bar (when the plugin or the host counts) or a spinner and the time it has taken.
public struct Job: Hashable, Sendable {
    /// What kind of work it is.
    public enum Kind: Hashable, Sendable {
        /// A command (`sort`, `filter`, `open`, `export`, `action`...) waiting for its plugin.
        case command
        /// The `/` find paging through the table.
        case find
        /// The selected tab's plugin starting and its root table opening.
        case opening
        /// The rows in view of a new sort order (the plugin sorts a big table).
        case loading
        /// The rows in view, asked of the plugin and not in yet (a slow or hung plugin): the
        /// screen says so once they are late (``Job/waitingGrace``).
        case waiting
    }

    /// Seconds the rows in view may take before the screen shows that it waits for them
    /// (quicker answers show no job line at all).
    public static let waitingGrace = 0.5

    public var kind: Kind
    /// The tab the work is for.
    public var tab: String
    /// What the status line calls it: `sort age`, `find "ada"`, `opening People`
    /// (sanitized).
    public var title: String
    /// Rows the host has gone through, when it counts them itself (`export`, an action on all
    /// rows, the find).
    public var done: Int?
    /// The rows there are, when known.
    public var total: Int?

    public init(kind: Kind, tab: String, title: String, done: Int? = nil, total: Int? = nil) {
        self.kind = kind; self.tab = tab; self.title = title; self.done = done; self.total = total
    }

    /// The same work, whatever its counts: a job keeps its identity while it advances.
    public var identity: String { "\(kind)|\(tab)|\(title)" }
}

extension Workspace {
    /// The long work running now, if any (a command first, then the find, then the selected
    /// tab's table opening).
    public var job: Job? {
        if let a = active {
            var job = Job(kind: .command, tab: a.tab, title: Sanitizer.clean(a.line))
            if let scan = a.scan { job.done = scan.written; job.total = tabs[a.tab]?.table?.total }
            return job
        }
        if let f = find, f.isSearching {
            // A find the plugin answers reports its own progress (nil: the plugin's counts show).
            return Job(kind: .find, tab: f.tab, title: "find \"\(Sanitizer.clean(f.text))\"", done: findRowInFlight(f) == nil ? f.checked : nil,
                       total: tabs[f.tab]?.stack.first { $0.key == f.table }?.total)
        }
        if let tab = layout.selected, let state = tabs[tab], let line = state.viewJob, !state.loadCancelled,
           let t = state.table, !viewLoaded(t) {
            return Job(kind: .loading, tab: tab, title: Sanitizer.clean(line))
        }
        if let tab = layout.selected, let state = tabs[tab], !state.loadCancelled, !state.terminating,
           let t = state.table, !pagesInFlight(tab, t).isEmpty, !viewLoaded(t) {
            return Job(kind: .waiting, tab: tab, title: "waiting for " + Sanitizer.clean(config.tab(tab)?.title ?? tab))
        }
        guard let tab = layout.selected, let state = tabs[tab], state.stack.isEmpty, !state.loadCancelled,
              state.problem == nil, !state.terminating else { return nil }
        let opening: Bool
        switch state.phase {
        case .starting: opening = true
        case .ready: opening = state.navigating || state.reopenLevel != nil
        default: opening = false
        }
        return opening ? Job(kind: .opening, tab: tab, title: "opening " + Sanitizer.clean(config.tab(tab)?.title ?? tab)) : nil
    }

    /// Stops the selected tab's opening (its `open` request gets `$/cancel`): nothing more is
    /// asked of its plugin until the user moves, runs a command on the tab or restarts it.
    /// Returns what was stopped, nil if the tab was not opening.
    mutating func cancelOpening(_ effects: inout [Effect]) -> String? {
        guard let job = job, job.kind == .opening else { return nil }
        for (id, purpose) in pending.running(tab: job.tab) {
            if case .open = purpose { cancel(id, &effects) }
        }
        tabs[job.tab]!.navigating = false
        tabs[job.tab]!.loadCancelled = true
        return job.title
    }

    /// `line` (a sort) changed what the view of `tab` shows: until its rows are in, it is a job.
    mutating func awaitView(_ tab: String, _ line: String) {
        guard let t = tabs[tab]?.table else { return }
        tabs[tab]!.viewJob = viewLoaded(t) ? nil : line
    }

    /// Ends the view's job once its rows are in.
    mutating func settleViewJob(_ tab: String) {
        guard tabs[tab]?.viewJob != nil, let t = tabs[tab]!.table, viewLoaded(t) else { return }
        tabs[tab]!.viewJob = nil
    }

    /// Whether every row in `t`'s view is cached.
    func viewLoaded(_ t: TableState) -> Bool {
        var end = t.view.scrollOffset + viewportRows
        if let total = t.total { end = min(end, total) }
        guard end > t.view.scrollOffset else { return true }
        let pages = t.cache.page(of: t.view.scrollOffset)...t.cache.page(of: end - 1)
        return pages.allSatisfy { t.cache.has(page: $0) }
    }

    /// Stops the selected tab's view job (the rows of a new sort): its pages get `$/cancel`, and
    /// the order before the sort comes back (SortUndo.swift); when there is none the pages are
    /// not asked for again until a key moves the view. Returns the job's title, nil if none.
    mutating func cancelViewJob(_ effects: inout [Effect]) -> String? {
        guard let job = job, job.kind == .loading || job.kind == .waiting, let t = tabs[job.tab]!.table else { return nil }
        cancelPages(job.tab, table: t.key, &effects)
        tabs[job.tab]!.viewJob = nil
        tabs[job.tab]!.progress = nil  // the plugin's report was about the sort cancelled
        // The order before the sort comes back with its pages, shown at once; without it the
        // rows wait for a key.
        // Waiting for rows of an order already shown, there is nothing to go back to.
        if job.kind == .waiting || !undoSort(job.tab, &effects) { tabs[job.tab]!.loadCancelled = true }
        return job.title
    }

    /// After a cancel the table's rows are fetched again (a key moved the view, a command runs
    /// on the tab).
    mutating func resumeLoading(_ tab: String?) {
        guard let tab, tabs[tab]?.loadCancelled == true else { return }
        tabs[tab]!.loadCancelled = false
    }
}

extension Workspace {
    /// Whether `command` may run while another command waits: it changes only the layout
    /// (other tabs) or shows help, never the running command's table.
    func runsBeside(_ command: Command) -> Bool {
        switch command {
        case .tabs, .tabSelect, .tabMove, .tabHide, .tabShow, .tabReset, .sectionMove, .help, .mouse: true
        default: false
        }
    }

    /// Runs a command that ``runsBeside(_:)`` the active one, at once.
    mutating func runBeside(_ command: Command, _ effects: inout [Effect]) {
        do {
            if case .help(let topic) = command {
                effects.append(.commandDone(try help(topic)))
            } else if case .mouse(let on) = command {
                effects.append(.commandDone(setMouse(on)))
            } else {
                effects.append(.commandDone(try runLayoutCommand(command, &effects)))
            }
        } catch {
            effects.append(.commandFailed(error.description))
        }
    }
}
