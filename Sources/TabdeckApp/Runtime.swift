import Foundation
import Logging
import TabdeckCore
import TabdeckProtocol
import TabdeckSpool
import TabdeckStore
import TabdeckSupervisor
import TabdeckTerminal
import TabdeckTime

/// How the runtime prints command results.
public enum OutputFormat: String, Sendable {
    case text, json
}

/// The edge that runs the pure core: it feeds events to ``Workspace/update(_:now:)`` and
/// carries out the effects (plugins, database, files, output).
public final class Runtime {
    public internal(set) var workspace: Workspace
    let database: AppDatabase
    /// The plugin processes, one ``ProcessEndpoint`` per tab.
    let processes: ProcessEndpoints
    /// The supervisor that runs them (diagnostics).
    var supervisor: PluginSupervisor { processes.supervisor }
    /// Each tab's plugin endpoint, made on first use: every message to and from a tab's
    /// plugin goes through it, and nothing else.
    var endpoints: [String: any PluginEndpoint] = [:]
    /// Descriptors handed to a tab's plugin as its descriptor 3: the data of a pipe
    /// (``StandardInputData``), by tab id.
    public var dataDescriptors: [String: Int32] = [:]
    /// Whether sorted and filtered views of a stream still running show the rows so far (the
    /// full screen sets it) rather than wait for the end (line mode and scripts, whose answers
    /// are about whole tables).
    public var streamViewsSoFar: Bool {
        get { viewsSoFar.value }
        set { viewsSoFar.value = newValue }
    }
    /// Read by the endpoints as they are made (``makeEndpoint``).
    private let viewsSoFar = StreamViewsSetting()
    /// Makes a tab's endpoint: its plugin process behind the spool (``SpooledEndpoint``,
    /// which passes everything through unless the plugin cannot sort or page). Tests put a
    /// fake plugin in its place.
    var makeEndpoint: (String) -> any PluginEndpoint
    /// Where every endpoint delivers its events: the event queue.
    let endpointEvents: EndpointEvents
    /// Writes the protocol traffic of traced tabs (`--trace FILE`, `"trace": true`).
    let tracer: ProtocolTracer?
    let queue: EventQueue
    let stateDirectory: String
    let output: OutputFormat
    /// The host's one clock: supervisor deadlines, the core's `now`, the event queue's
    /// deadlines and the screen's timers; a `ManualClock` in tests.
    let clock: MonotonicClock
    /// The clock's reading when the runtime started (the core's time 0).
    let started: Double
    var wakeAt: Double?
    /// The loggers of the tabs' log files (``appendLog(_:_:)``), opened on first use.
    var tabLoggers: [String: Logger] = [:]
    var export: ExportWriter?
    var finished = false
    var currentLine = ""
    /// A write to the database failed during the current command.
    var persistFailure: String?
    /// Line mode's progress on stderr, when stderr is a terminal and results are text.
    lazy var progressLine: ProgressLine? = output == .text && isatty(STDERR_FILENO) == 1
        ? ProgressLine { Descriptors.writeAll(STDERR_FILENO, $0) } : nil
    /// Commands that failed so far.
    public internal(set) var failures = 0
    public internal(set) var quitRequested = false
    /// Stdout's reader went away (a write failed): line mode stops reading commands and quits.
    public internal(set) var outputGone = false
    /// Where results go in line mode (stdout by default; ``outputGone`` once a write fails);
    /// replaced in tests. The full screen keeps them instead (``keepsSaid``).
    lazy var write: (String) -> Void = { [unowned self] text in
        if !outputGone && !Descriptors.writeAll(STDOUT_FILENO, text + "\n") { outputGone = true }
    }
    var writeError: (String) -> Void = { Descriptors.writeAll(STDERR_FILENO, $0 + "\n") }
    /// Where a tab's notice goes the moment it happens (a restart) in line mode: stderr.
    var writeNotice: (String) -> Void = { Descriptors.writeAll(STDERR_FILENO, $0 + "\n") }
    /// The keys in force: the standard key map with config.json's `"keys"` applied.
    public let keyMap: KeyMap
    /// Writes an OSC 52 sequence to stdout in line mode; false when it is not a terminal.
    var clipboard: ([UInt8]) -> Bool = { bytes in
        guard isatty(STDOUT_FILENO) == 1 else { return false }
        return Descriptors.writeAll(STDOUT_FILENO, bytes)
    }
    /// Whether what the runtime says is kept for ``takeSaid()`` (the full screen) rather than
    /// printed (line mode).
    var keepsSaid = false
    /// What was said since the last ``takeSaid()``, in order.
    private var said: [RuntimeSaid] = []
    /// The last `copy` reached no terminal: its result says so.
    var clipboardMissed = false
    /// The ssh destinations whose shared connection a remote tab used: ended on shutdown.
    var remoteDestinations: Set<String> = []

    /// Loads the config, opens the store and prepares the workspace. Nothing is spawned yet.
    /// `settings` holds the core's limits, request timeouts included (tests shorten them). `tracer` (from `--trace FILE`) gets every tab's traffic;
    /// tabs with `"trace": true` are also traced to `<state>/logs/<tab>.trace`. `mode` ("full
    /// screen", "line mode") is written into the state folder's lock, so that a second Tabdeck
    /// on the same folder is refused with a message naming this one. `clock` is the one
    /// monotonic clock of the host, handed to the supervisor too.
    /// `configPath` nil: no config file (sources were given and none was found); `opened`: the
    /// tabs of the sources on the command line (``OpenedSources``), shown first.
    public init(configPath: String?, opened: [TabConfig] = [], stateDirectory: String, output: OutputFormat = .text,
                settings: CoreSettings = CoreSettings(),
                tracer: ProtocolTracer? = nil, mode: String = "line mode",
                clock: MonotonicClock) throws(AppError) {
        signal(SIGPIPE, SIG_IGN)
        var config: WorkspaceConfig
        if let configPath {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: configPath)) } catch {
                throw .unreadableConfig(path: configPath, reason: (error as NSError).localizedDescription)
            }
            let directory = URL(fileURLWithPath: configPath).deletingLastPathComponent().path
            do { config = try WorkspaceConfig.parse(Array(data), file: configPath, directory: directory) } catch {
                throw .config(error.description)
            }
        } else {
            config = .empty(directory: FileManager.default.currentDirectoryPath)
        }
        config = config.opening(opened)
        // Keys of one's own are checked before anything is touched (the store, plugins).
        let keyMap: KeyMap
        do { keyMap = try KeyMap.standard.applying(config.keys, file: configPath ?? "") } catch { throw .config(error.description) }
        var settings = settings
        settings.keyTable = keyMap.table
        let database: AppDatabase
        let recovery: StoreRecovery?
        do { (database, recovery) = try AppDatabase.open(stateDirectory: stateDirectory, owner: .current(mode: mode)) } catch {
            throw .store(error.description)
        }
        let layout: WorkspaceLayout?
        var views: [TableViewKey: TableViewState] = [:]
        do {
            layout = try database.loadLayout()
            try database.pruneViews()
            if !config.opened.isEmpty { try database.noteOpened(config.opened) }
            for (key, view) in try database.loadAllViews() { views[TableViewKey(tab: key.tab, table: key.table)] = view }
        } catch { throw .store(error.description) }
        self.database = database
        self.keyMap = keyMap
        self.stateDirectory = stateDirectory
        self.output = output
        self.clock = clock
        self.started = clock.now()
        self.queue = EventQueue(clock: clock)
        self.workspace = Workspace(config: config, storedLayout: layout, storedViews: views, settings: settings)
        let traced = config.tabs.filter(\.trace)
        let tracer = tracer ?? (traced.isEmpty ? nil : try? ProtocolTracer())
        for tab in traced { tracer?.traceTab(tab.id, to: stateDirectory + "/logs/\(Locations.fileName(tab: tab.id)).trace") }
        self.tracer = tracer
        let queue = self.queue
        let spoolFolder = SpoolFolder.folder(stateDirectory: stateDirectory)
        SpoolFolder.removeStale(folder: spoolFolder)
        let events: EndpointEvents = { event in Runtime.enqueue(event, on: queue) }
        endpointEvents = events
        let processes = ProcessEndpoints(clock: clock, trace: tracer)
        self.processes = processes
        let viewsSoFar = self.viewsSoFar
        makeEndpoint = { tab in
            SpooledEndpoint(tab: tab, folder: spoolFolder, viewsSoFar: viewsSoFar.value, trace: tracer, onEvent: events) { pluginEvents in
                processes.endpoint(tab: tab, onEvent: pluginEvents)
            }
        }
        if let recovery {
            writeError("tabdeck: \(recovery.reason); the old database was moved to \(recovery.movedTo) and a fresh one started")
        }
    }

    /// The folder of the running executable: plugins built with it live there too.
    public static let executableDirectory: String? = {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return URL(fileURLWithPath: path).deletingLastPathComponent().path
    }()

    /// The per-tab plugin log file.
    public func logFile(tab: String) -> String { stateDirectory + "/logs/\(Locations.fileName(tab: tab)).log" }

    /// Says on stderr why each source on the command line that cannot open cannot (line mode
    /// and scripts, where no tab shows it), counting each as a failed command.
    public func reportUnopenedSources() {
        for id in workspace.config.opened {
            guard let reason = workspace.config.tab(id)?.unavailable else { continue }
            failures += 1
            writeError("error: \(Sanitizer.clean(reason))")
        }
    }

    /// Seconds since the runtime started: the core's clock.
    func now() -> Double { clock.now() - started }

    /// Starts background plugins.
    public func launch() { execute(workspace.launch(now: now())) }

    /// Runs one command line to completion (waiting for plugins as needed); false if it failed.
    @discardableResult
    public func run(_ line: String) -> Bool {
        let before = failures
        finished = false
        persistFailure = nil
        currentLine = line
        // Events that came in since the last command (badges, exits of background plugins)
        // first, so that a command that needs no plugin (`tabs`) does not show stale state.
        takeQueuedEvents(interruptQuits: false)
        // And a request deadline that passed meanwhile: the core gives requests up only when
        // woken (a background plugin hanging on `initialize` fails even while no command waits).
        // Restarts stay for the next command that uses the tab, as before.
        if let deadline = workspace.requestDeadline, now() >= deadline {
            if let wake = wakeAt, wake <= now() { wakeAt = nil }
            dispatch(.wake)
        }
        dispatch(.command(line))
        pump { self.finished }
        return failures == before
    }

    /// Waits until every stream being read has ended (a script sees the whole table: `-e`,
    /// `--commands`, and the first page printed when there is no terminal).
    public func waitForStreams() {
        takeQueuedEvents(interruptQuits: false)
        pump { !self.endpoints.values.contains { ($0 as? SpooledEndpoint)?.isFilling == true } || self.quitRequested }
    }

    /// Handles events until `condition` holds of the workspace (a test waiting for a plugin's
    /// progress, with no clock and no polling).
    public func wait(until condition: (Workspace) -> Bool) {
        takeQueuedEvents(interruptQuits: false)
        pump { condition(self.workspace) || self.quitRequested }
    }

    /// Starts a command without waiting for it to finish (the full-screen UI); its result is
    /// reported through `write`/`writeError` when it completes.
    public func submit(_ line: String) {
        persistFailure = nil
        currentLine = line
        dispatch(.command(line))
    }

    /// Submits a typed command (a key of the full screen) without waiting for it.
    public func submit(_ command: Command) {
        persistFailure = nil
        currentLine = command.text
        dispatch(.run(command))
    }

    /// Stops every plugin and waits for them to exit.
    public func shutdown() {
        queue.stopWaiting()  // nothing takes events any more: a waiting reader must not keep its plugin alive
        execute(workspace.shutdown())
        processes.stopAll()
        for endpoint in endpoints.values { endpoint.close() }
        closeRemoteConnections()
        // Closed here, not when the runtime goes away: the state folder is free for the next
        // Tabdeck as soon as this one has quit.
        try? database.close()
    }

    /// The endpoint of `tab`, made on first use.
    func endpoint(_ tab: String) -> any PluginEndpoint {
        if let endpoint = endpoints[tab] { return endpoint }
        let endpoint = makeEndpoint(tab)
        endpoints[tab] = endpoint
        return endpoint
    }


}


/// The runtime's ``Runtime/streamViewsSoFar``, shared with the closure that makes endpoints.
final class StreamViewsSetting: @unchecked Sendable {
    var value = false
}

extension Runtime {
    /// Says something: kept for the full screen, or printed at once in line mode. Returns false
    /// when clipboard bytes reached no terminal.
    @discardableResult
    func say(_ what: RuntimeSaid) -> Bool {
        if keepsSaid { said.append(what); return true }
        switch what {
        case .output(let text): write(text)
        case .error(let text): writeError(text)
        case .notice(let text): writeNotice(text)
        case .clipboard(let bytes): return clipboard(bytes)
        }
        return true
    }

    /// What was said since the last call, in order (the full screen's inputs).
    func takeSaid() -> [RuntimeSaid] {
        defer { said = [] }
        return said
    }
}
