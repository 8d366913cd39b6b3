import Dispatch
import Foundation
import TabdeckCore
import TabdeckTerminal

/// The full-screen workspace: keys in, frames out. It drives the same core and command
/// language as line mode; keys become commands (`goto 5`, `sort name`, `tab select 2`) or
/// change what only the UI knows (column cursor, help, detail).
public final class FullScreen {
    let runtime: Runtime
    let terminal: RawTerminal
    let editor: LineEditor
    var ui = UIState()
    var decoder = KeyDecoder()
    var previous: ScreenBuffer?
    /// The frame before `previous`, kept to draw the next frame into (no buffer allocated per frame).
    var spare: ScreenBuffer?
    let writer: ANSIWriter
    var size = RawTerminal.Size(width: 80, height: 24)
    var running = true
    /// The command typed at the prompt whose output should be shown (key commands show errors only).
    var promptCommand: String?
    /// Frame statistics for measurement (`TABDECK_FRAME_STATS=FILE`), nil when not asked for.
    let stats: FrameStats?
    /// When the oldest key not yet shown was read from the terminal.
    var keyReadAt: ContinuousClock.Instant?
    /// The find last announced (text, start, direction, phase), so each outcome is announced
    /// once; its rows are not compared.
    var shownFind: [String]?
    /// Seconds without input after which views moved by keys are saved, and the longest they
    /// stay unsaved while events keep coming.
    static let saveAfter = 0.3
    static let saveAtMost = 2.0
    /// The longest a batch of queued events is handled before a frame is drawn; also the
    /// interval of frames for plugin events when they come faster (`EventFrames`).
    static let frameBudget = 0.016
    /// When keys first moved a view not saved yet (``Runtime/now()``).
    var movedAt: Double?
    /// When a lone Esc becomes a key of its own.
    var escape = EscapeTimer()
    let resizeSource: DispatchSourceSignal
    /// SIGTERM, SIGHUP and SIGINT quit like `q`.
    let signals: SignalWatch

    public init(runtime: Runtime, editor: LineEditor, terminal: RawTerminal = RawTerminal()) {
        self.runtime = runtime
        self.editor = editor
        self.terminal = terminal
        self.writer = ANSIWriter(environment: ProcessInfo.processInfo.environment)
        self.stats = ProcessInfo.processInfo.environment["TABDECK_FRAME_STATS"].map(FrameStats.init(path:))
        let queue = runtime.queue
        signal(SIGWINCH, SIG_IGN)
        self.resizeSource = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resizeSource.setEventHandler { queue.put(.resize) }
        self.signals = SignalWatch(queue: queue)
    }

    /// Runs until `q`; returns the exit status.
    public func run() -> Int32 {
        runtime.write = { [weak self] text in self?.show(text, isError: false) }
        runtime.writeError = { [weak self] text in self?.show(text, isError: true) }
        terminal.enter()
        resizeSource.resume()
        // The main thread reads the keys itself while it waits for events (EventQueue).
        runtime.queue.attachInput(terminal.input)
        runtime.launch()
        relayout()
        runtime.dispatch(.refresh)
        draw()
        var changed = false  // events came since the last frame
        var eventFrames = EventFrames()
        while running {
            // A key's frame is drawn at once. Frames for plugin events too, unless they come
            // faster than `EventFrames` allows (a flood): then events wait (keys do not) until
            // the next one is allowed, so the main thread neither draws nor handles events one
            // at a time all the while, and a key finds it idle.
            let next = eventFrames.nextAllowed(now: runtime.now())
            let keyed = collect(drawBy: changed ? next : nil, holdEventsUntil: next)
            if keyed == true { runtime.dispatch(.refresh) }
            if keyed != nil { changed = true }
            if changed && (keyed == true || eventFrames.nextAllowed(now: runtime.now()) == nil) {
                announceFind()
                draw()
                if keyed != true { eventFrames.drawn(at: runtime.now()) }
                changed = false
            }
        }
        runtime.queue.detachInput()
        runtime.dispatch(.saveViews)
        terminal.leave()
        runtime.shutdown()
        stats?.finish()
        return 0
    }

    // MARK: Events

    /// Waits for events (at most until `drawBy`, when a frame is due; only for keys until
    /// `holdEventsUntil`) and handles a batch of them, up to the next frame: true if keys were
    /// pressed, false if not, nil if nothing came (views were saved, or a frame is due).
    func collect(drawBy: Double? = nil, holdEventsUntil hold: Double? = nil) -> Bool? {
        // Views moved by keys are saved once keys pause (or every few seconds while events
        // keep coming), never between a key and its frame.
        let now = runtime.now()
        if runtime.workspace.hasUnsavedViews { movedAt = movedAt ?? now } else { movedAt = nil }
        if let movedAt, now - movedAt >= Self.saveAtMost { runtime.dispatch(.saveViews); self.movedAt = nil }
        let idle = movedAt.map { min(now + Self.saveAfter, $0 + Self.saveAtMost) }
        guard let event = runtime.next(until: [idle, drawBy].compactMap { $0 }.min(), holdEventsUntil: hold) else {
            if let idle, runtime.now() >= idle { runtime.dispatch(.saveViews); movedAt = nil }
            return nil
        }
        var keyed = handle(event)
        // Take what is already queued (not what keeps arriving meanwhile) before drawing one
        // frame for all of it, but draw at least every `frameBudget` seconds, and at once after
        // keys: events that keep coming (a busy plugin, a slow machine) must not hold back the
        // frame of a key.
        let batchEnd = runtime.now() + Self.frameBudget
        var left = runtime.queue.count
        while running, left > 0, !keyed, !escape.isDue(now: runtime.now()), runtime.now() < batchEnd,
              let more = runtime.next(until: runtime.now(), holdEventsUntil: hold) {
            keyed = handle(more)
            left -= 1
        }
        // A lone Esc is a key of its own if nothing follows it within `EscapeTimer.wait` of
        // when it was read, however many other events come meanwhile.
        while running, let deadline = escape.deadline {
            if runtime.now() < deadline, let more = runtime.next(until: deadline) {
                keyed = handle(more) || keyed
                continue
            }
            if runtime.now() < deadline { continue }  // woken early with nothing to handle
            let keys = decoder.flush()
            escape.resolved(at: runtime.now())
            for key in keys where running { press(key) }
            keyed = true
        }
        return keyed
    }

    /// Handles one event; true if it was a key press.
    func handle(_ event: HostEvent) -> Bool {
        switch event {
        case .core(let e):
            runtime.dispatch(e)
            if runtime.quitRequested { running = false }
            return false
        case .resize:
            relayout()
            return false
        case .inputClosed:
            running = false
            return false
        case .signal:
            running = false  // SIGTERM, SIGHUP, SIGINT: quit (views saved, terminal restored, plugins stopped)
            return false
        case .input(let bytes, let readAt):
            if keyReadAt == nil { keyReadAt = readAt }
            typeKeys(bytes)
            escape.input(leftPending: decoder.isPending, now: runtime.now())
            return true
        }
    }

    /// Handles typed bytes as keys. At `:` in the table, the rest of the bytes go to the prompt
    /// (they may hold the whole command); bytes still unread stay in the terminal for readline,
    /// and what readline read but did not use (keys after Enter) are keys again.
    func typeKeys(_ bytes: [UInt8]) {
        var keys = decoder.feedKeepingBytes(bytes)[...]
        while running, let (key, _) = keys.popFirst() {
            if case .table = ui.mode, let typed = ui.keyMap.action(for: key)?.promptText {
                let leftover = prompt(typedAhead: Array(typed.utf8) + keys.flatMap(\.bytes) + decoder.takePending())
                keys = decoder.feedKeepingBytes(leftover)[...]
            } else {
                press(key)
            }
        }
    }

    func relayout() {
        size = terminal.size
        previous = nil
        runtime.dispatch(.viewport(rows: WorkspaceRenderer.tableRows(workspace: runtime.workspace, size: (size.width, size.height))))
    }

    /// Submits a command without waiting for it (its result comes back as a status message).
    func submit(_ line: String, fromPrompt: Bool = false) {
        promptCommand = fromPrompt ? line : nil
        runtime.submit(line)
        if runtime.quitRequested { running = false }
    }

    func show(_ text: String, isError: Bool) {
        guard isError || promptCommand != nil else { return }
        if text.contains("\n") {
            ui.mode = .output(text, scroll: 0)
        } else {
            ui.message = .init(text, isError: isError)
        }
    }

    // MARK: Keys

    var table: TableState? { runtime.workspace.selectedTab.flatMap { runtime.workspace.tabs[$0]?.table } }

    func press(_ key: Key) {
        switch ui.mode {
        case .prompt(let text):
            editFind(key, text)
            return
        case .sectionIndex(let typed):
            editSectionIndex(key, typed)
            return
        case .help(let scroll), .detail(let scroll), .output(_, let scroll):
            switch key {
            case .down, .char("j"): ui.mode = ui.mode.scrolled(to: scroll + 1)
            case .up, .char("k"): ui.mode = ui.mode.scrolled(to: max(0, scroll - 1))
            case .pageDown, .char(" "): ui.mode = ui.mode.scrolled(to: scroll + size.height - 2)
            case .pageUp: ui.mode = ui.mode.scrolled(to: max(0, scroll - size.height + 2))
            case .char("q"), .ctrl("c"): running = false
            default: ui.mode = .table
            }
            return
        case .table:
            break
        }
        guard let action = ui.keyMap.action(for: key) else { return }
        ui.message = nil
        perform(action)
    }

    func perform(_ action: Action) {
        let t = table
        let cursor = t?.view.cursor ?? 0
        switch action {
        case .moveDown: runtime.dispatch(.cursor(delta: 1))
        case .moveUp: runtime.dispatch(.cursor(delta: -1))
        case .pageDown: runtime.dispatch(.page(.next))
        case .pageUp: runtime.dispatch(.page(.prev))
        case .top: runtime.dispatch(.page(.first))
        case .bottom:
            if t?.total == nil { ui.message = .init("the row count is not known yet, so there is no last page", isError: true) }
            runtime.dispatch(.page(.last))
        case .columnLeft: ui.columnCursor = max(0, ui.columnCursor - 1)
        case .columnRight: ui.columnCursor = min(max(0, (t?.visibleColumns.count ?? 1) - 1), ui.columnCursor + 1)
        case .nextTab, .previousTab:
            let visible = runtime.workspace.layout.visibleTabs
            guard let current = runtime.workspace.selectedTab.flatMap({ visible.firstIndex(of: $0) }), !visible.isEmpty else { return }
            let step = action == .nextTab ? 1 : visible.count - 1
            submit("tab select \((current + step) % visible.count + 1)")
            ui.columnCursor = 0
        case .selectTab(let n):
            if n <= runtime.workspace.layout.visibleTabs.count { submit("tab select \(n)"); ui.columnCursor = 0 }
        case .sort:
            guard let t, ui.columnCursor < t.visibleColumns.count else { return }
            submit("sort \(quoted(t.visibleColumns[ui.columnCursor].id))")
        case .clearSort: submit("sort clear")
        case .toggleSelection:
            guard let t, let row = t.cache.row(at: cursor) else { return }
            submit((t.view.selection.contains(row.id) ? "unselect " : "select ") + quoted(row.id))
        case .open: submit("open")
        case .back: submit("back")
        case .detail: ui.mode = .detail(scroll: 0)
        case .help: ui.mode = .help(scroll: 0)
        case .dismiss:
            ui.mode = .table; ui.find = nil
            // Esc also stops long work: the running command (its requests get `$/cancel`) and the find.
            if runtime.workspace.isBusy || runtime.workspace.find?.isSearching == true { runtime.dispatch(.cancel) }
        case .restart: submit("restart")
        case .find: ui.mode = .prompt("/")
        case .findNext, .findPrevious:
            guard let text = ui.find, !text.isEmpty else { ui.message = .init("nothing to find yet: type / first", isError: true); return }
            shownFind = nil  // announce this find's outcome even if it is the same as the last one's
            runtime.dispatch(.find(text: text, backward: action == .findPrevious))
        case .sectionIndex:
            guard let t, !t.sections.isEmpty else { ui.message = .init("this table has no sections", isError: true); return }
            ui.mode = .sectionIndex("")
        case .command, .filter: typeKeys(prompt(typedAhead: Array((action.promptText ?? "").utf8)))
        case .quit: running = false
        }
    }

    /// `/` find: type the text, Enter finds it in the whole table (the core pages through the
    /// plugin from the cursor, wrapping around; the status line shows how far it got).
    func editFind(_ key: Key, _ text: String) {
        switch key {
        case .escape, .ctrl("c"): ui.mode = .table; ui.find = nil
        case .backspace: ui.mode = text.count > 1 ? .prompt(String(text.dropLast())) : .table
        case .char(let c): ui.mode = .prompt(text + String(c))
        case .paste(let s): ui.mode = .prompt(text + s)
        case .enter:
            let needle = String(text.dropFirst())
            ui.find = needle.isEmpty ? nil : needle
            ui.mode = .table
            if !needle.isEmpty { shownFind = nil; runtime.dispatch(.find(text: needle, backward: false)) }
        default: break
        }
    }

    /// Says once how a find ended: the row found, or not found.
    func announceFind() {
        let f = runtime.workspace.find
        let seen = f.map { [$0.text, String($0.origin), String($0.backward), String(describing: $0.phase)] }
        guard seen != shownFind else { return }
        shownFind = seen
        guard let f else { return }
        switch f.phase {
        case .searching: break
        case .found(let row, let wrapped):
            ui.message = .init("found \"\(f.text)\" at row \(formatCount(row + 1))" + (wrapped ? " (wrapped around)" : ""))
        case .notFound: ui.message = .init("not found: \(f.text)", isError: true)
        case .stopped(let why): ui.message = .init("find stopped: \(why)", isError: true)
        }
    }

    /// The section index: each letter jumps to the first section whose title starts with what
    /// was typed; Enter or Esc closes it.
    func editSectionIndex(_ key: Key, _ typed: String) {
        switch key {
        case .escape, .ctrl("c"), .enter: ui.mode = .table
        case .backspace: ui.mode = typed.isEmpty ? .table : .sectionIndex(String(typed.dropLast()))
        case .char(let c):
            let now = typed + String(c)
            ui.mode = .sectionIndex(now)
            if table?.section(matching: now) != nil { submit("jump " + quoted(now)) }
        default: break
        }
    }

    /// `:` opens a GNU readline prompt on the bottom line, in cooked mode; the screen is redrawn
    /// after. `typedAhead` is input already read that belongs to the prompt (the main thread is
    /// the only reader of the terminal, so readline reads the rest itself). Returns what
    /// readline read but did not use (keys after Enter), to be handled as keys.
    func prompt(typedAhead: [UInt8]) -> [UInt8] {
        terminal.suspend()
        terminal.write(Array("\u{1b}[\(size.height);1H\u{1b}[2K".utf8))
        nonisolated(unsafe) let screen = self
        let line = signals.whileReading(ignoresInterrupt: true, quit: { _ in
            // The main thread is blocked in readline: quit from here.
            screen.runtime.dispatch(.saveViews)
            screen.terminal.leave()
            screen.runtime.shutdown()
            exit(0)
        }) { editor.readLine(prompt: ":", typedAhead: typedAhead) }
        let leftover = editor.leftover
        terminal.resume()
        previous = nil
        // Time at the prompt is not key-to-frame latency; keys after Enter start now.
        keyReadAt = leftover.isEmpty ? nil : .now
        if let line, !line.trimmingCharacters(in: .whitespaces).isEmpty { submit(line, fromPrompt: true) }
        return leftover
    }

    func quoted(_ word: String) -> String {
        word.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "#" }) ? "'\(word)'" : word
    }

    // MARK: Frames

    /// Renders, diffs against the previous frame and writes the changes in one write. With
    /// frame statistics on, records the time since the oldest key shown was read.
    func draw() {
        // The column layout keeps the column scroll in step; the frame is drawn with the same one.
        let layout = WorkspaceRenderer.columnLayout(workspace: runtime.workspace, size: (size.width, size.height), ui: ui)
        if let layout { ui.columnScroll = layout.scroll }
        var frame = spare ?? ScreenBuffer(width: size.width, height: size.height)
        spare = nil  // `frame` is now the only reference: cleared and drawn in place
        if frame.width == size.width && frame.height == size.height { frame.clear() } else {
            frame = ScreenBuffer(width: size.width, height: size.height)
        }
        WorkspaceRenderer.render(workspace: runtime.workspace, ui: ui, layout: layout, into: &frame)
        let diff = Diff.between(previous, frame)
        if !diff.runs.isEmpty || diff.isFull { terminal.write(writer.bytes(for: diff)) }
        spare = previous
        previous = frame
        if let stats {
            if let readAt = keyReadAt { stats.key(ContinuousClock.now - readAt) }
            stats.frame(pageLoaded: { WorkspaceRenderer.visibleRowsLoaded(workspace: runtime.workspace,
                                                                        size: (size.width, size.height), ui: ui) })
        }
        keyReadAt = nil
    }
}

/// Frame statistics (`TABDECK_FRAME_STATS=FILE`), as lines:
/// `first-frame <unix epoch seconds>` when the first frame is written, `first-page <unix epoch
/// seconds>` for the first frame whose visible rows are all loaded (both written at once), and
/// `key <seconds>` per frame drawn for key presses, from when the main thread read the bytes
/// to when the frame was written (appended at exit). `Scripts/bench` and
/// `Scripts/measure-keys.py` read this format.
final class FrameStats {
    let path: String
    private var keys: [Double] = []
    private var sawFirstFrame = false
    private var sawFirstPage = false

    init(path: String) {
        self.path = path
        FileManager.default.createFile(atPath: path, contents: Data())
    }

    func key(_ d: Duration) {
        keys.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    /// After each frame written; `pageLoaded` (asked only until the first page is seen) says
    /// whether every visible row is loaded.
    func frame(pageLoaded: () -> Bool) {
        if !sawFirstFrame { sawFirstFrame = true; append("first-frame " + epoch()) }
        if !sawFirstPage && pageLoaded() { sawFirstPage = true; append("first-page " + epoch()) }
    }

    /// Appends the key-to-frame times.
    func finish() {
        guard !keys.isEmpty else { return }
        append(keys.map { String(format: "key %.6f", $0) }.joined(separator: "\n"))
        keys = []
    }

    private func epoch() -> String { String(format: "%.6f", Date().timeIntervalSince1970) }

    private func append(_ line: String) {
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((line + "\n").utf8))
    }
}

/// How often frames are drawn for plugin events (not keys): at once, except that at most
/// ``burst`` of them fall in any ``burst`` × ``FullScreen/frameBudget`` (about 60 a second on
/// average): a page that arrives right after its table is drawn at once, a flood is drawn at
/// the frame rate. Times are ``Runtime/now()`` seconds.
struct EventFrames {
    static let burst = 3
    private var recent: [Double] = []

    /// When the next frame for events may be drawn; nil: now.
    func nextAllowed(now: Double) -> Double? {
        guard recent.count == Self.burst, let oldest = recent.first else { return nil }
        let next = oldest + Double(Self.burst) * FullScreen.frameBudget
        return now < next ? next : nil
    }

    mutating func drawn(at now: Double) {
        recent.append(now)
        if recent.count > Self.burst { recent.removeFirst() }
    }
}
