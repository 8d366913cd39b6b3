import Dispatch
import Foundation
import TabdeckCore
import TabdeckTerminal
import TabdeckTerminalIO

/// The full-screen workspace's shell: terminal bytes in, frames out. What a key does is
/// decided by the pure ``ScreenModel`` (`update(input) -> effects`); the shell reads the
/// terminal, carries out the model's effects (core events, the readline prompt, quitting) and
/// draws diffed frames.
public final class FullScreen {
    let runtime: Runtime
    let terminal: RawTerminal
    let editor: LineEditor
    /// The UI's state and logic, a value.
    var model = ScreenModel()
    var decoder = KeyDecoder()
    var previous: ScreenBuffer?
    /// The frame before `previous`, kept to draw the next frame into (no buffer allocated per frame).
    var spare: ScreenBuffer?
    let writer: ANSIWriter
    var running: Bool { model.running }
    /// Frame statistics for measurement (`TABDECK_FRAME_STATS=FILE`), nil when not asked for.
    let stats: FrameStats?
    /// When the oldest key not yet shown was read from the terminal.
    var keyReadAt: ContinuousClock.Instant?
    /// The model said a frame is due without an event (the job's tick).
    var frameDue = false
    let resizeSource: DispatchSourceSignal
    /// SIGTERM, SIGHUP and SIGINT quit like `q`.
    let signals: SignalWatch
    /// Reads the `:` line instead of readline (tests on a pipe, where readline has no terminal):
    /// given the bytes typed ahead, the line (nil: abandoned) and the bytes read after it.
    var readLine: ((_ typedAhead: [UInt8]) -> (line: String?, leftover: [UInt8]))?

    public init(runtime: Runtime, editor: LineEditor, terminal: RawTerminal = RawTerminal()) {
        self.runtime = runtime
        self.editor = editor
        self.terminal = terminal
        self.writer = ANSIWriter(environment: ProcessInfo.processInfo.environment)
        model.ui.ascii = UIState.wantsASCII(environment: ProcessInfo.processInfo.environment)
        model.ui.keyMap = runtime.keyMap
        self.stats = ProcessInfo.processInfo.environment["TABDECK_FRAME_STATS"].map(FrameStats.init(path:))
        let queue = runtime.queue
        signal(SIGWINCH, SIG_IGN)
        self.resizeSource = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resizeSource.setEventHandler {
            queue.put(.resize)
            LineEditor.wakeForResize()  // the main thread may be reading the `:` line
        }
        self.signals = SignalWatch(queue: queue, also: [SIGTSTP, SIGCONT])
    }

    /// Runs until `q`; returns the exit status.
    public func run() -> Int32 {
        start()
        while running { runOnce() }
        finish()
        return 0
    }

    /// Events came since the last frame.
    var changed = false

    /// Takes the terminal, launches the plugins and draws the first frame.
    func start() {
        // What the runtime says comes back as the model's inputs (``hear()``), not through callbacks.
        runtime.keepsSaid = true
        terminal.enter()
        resizeSource.resume()
        // The main thread reads the keys itself while it waits for events (EventQueue).
        runtime.queue.attachInput(terminal.input)
        runtime.streamViewsSoFar = true
        runtime.launch()
        relayout()
        give(.refresh)
        draw()
    }

    /// One turn of the loop: waits for a batch of events (or a timer), handles it, and draws a
    /// frame when one is due. The terminal and the tests (``ScreenDriver``) run the same turn.
    func runOnce() {
        // A key's frame is drawn at once. Frames for plugin events too, unless they come
        // faster than the model's pacing allows (a flood): then events wait (keys do not)
        // until the next one is allowed, so the main thread neither draws nor handles events
        // one at a time all the while, and a key finds it idle. Every other wait (a tick of
        // the running job, views to save, a lone Esc) is the model's ``ScreenModel/nextWake``.
        let next = model.nextEventFrame(now: runtime.now())
        let keyed = collect(drawBy: changed ? next : nil, holdEventsUntil: next)
        if keyed == true { give(.refresh) }
        if keyed != nil { changed = true }
        if frameDue { changed = true; frameDue = false }
        if changed && (keyed == true || model.nextEventFrame(now: runtime.now()) == nil) {
            apply(model.update(.coreChanged, workspace: runtime.workspace))
            draw()
            if keyed != true { apply(model.update(.eventFrameDrawn(at: runtime.now()), workspace: runtime.workspace)) }
            changed = false
        }
    }

    /// After `q`: views saved, the terminal given back, every plugin stopped.
    func finish() {
        runtime.queue.detachInput()
        runtime.dispatch(.saveViews)
        terminal.leave()
        runtime.shutdown()
        stats?.finish()
    }

    // MARK: Events

    /// Waits for events (at most until `drawBy`, when a frame is due; only for keys until
    /// `holdEventsUntil`) and handles a batch of them, up to the next frame: true if keys were
    /// pressed, false if not, nil if nothing came (views were saved, or a frame is due).
    func collect(drawBy: Double? = nil, holdEventsUntil hold: Double? = nil) -> Bool? {
        // The model reads the clock before the wait: views moved by keys are saved once keys
        // pause (or every few seconds while events keep coming), never between a key and its frame.
        tellTime()
        if frameDue { return nil }  // the job's tick: its frame first
        guard let event = runtime.next(until: [model.nextWake, drawBy].compactMap { $0 }.min(), holdEventsUntil: hold) else {
            tellTime()
            return nil
        }
        var keyed = handle(event)
        // Take what is already queued (not what keeps arriving meanwhile) before drawing one
        // frame for all of it, but draw at least every `frameBudget` seconds, and at once after
        // keys: events that keep coming (a busy plugin, a slow machine) must not hold back the
        // frame of a key.
        let batchEnd = runtime.now() + ScreenTimers.frameBudget
        var left = runtime.queue.count
        while running, left > 0, !keyed, !escapeIsDue, runtime.now() < batchEnd,
              let more = runtime.next(until: runtime.now(), holdEventsUntil: hold) {
            keyed = handle(more)
            left -= 1
        }
        // A lone Esc is a key of its own if nothing follows it within `ScreenTimers.escapeWait`
        // of when it was read, however many other events come meanwhile.
        while running, let deadline = model.timers.escapeDeadline {
            if runtime.now() < deadline, let more = runtime.next(until: deadline) {
                keyed = handle(more) || keyed
                continue
            }
            if runtime.now() < deadline { continue }  // woken early with nothing to handle
            tellTime()
            keyed = true
        }
        return keyed
    }

    /// Whether the held bytes (a lone Esc) are due to be resolved.
    var escapeIsDue: Bool { model.timers.escapeDeadline.map { runtime.now() >= $0 } ?? false }

    /// Tells the model the time and carries out what fell due (views saved, a lone Esc
    /// resolved, the job's tick).
    func tellTime() {
        apply(model.update(.timer(now: runtime.now()), workspace: runtime.workspace))
    }

    /// Handles one event; true if it was a key press.
    func handle(_ event: HostEvent) -> Bool {
        switch event {
        case .core(let e):
            give(e)
            if runtime.quitRequested { model.running = false }
            return false
        case .resize:
            relayout()
            return false
        case .inputClosed:
            model.running = false
            return false
        case .signal(SIGTSTP):
            suspend()
            return true
        case .signal(SIGCONT):
            previous = nil  // stopped and continued by someone else (SIGSTOP): draw it all again
            relayout()
            return true
        case .signal:
            model.running = false  // SIGTERM, SIGHUP, SIGINT: quit (views saved, terminal restored, plugins stopped)
            return false
        case .input(let bytes, let readAt):
            if keyReadAt == nil { keyReadAt = readAt }
            typeKeys(bytes)
            apply(model.update(.bytesRead(leftPending: decoder.isPending, now: runtime.now()), workspace: runtime.workspace))
            return true
        }
    }

    /// Handles typed bytes as keys. When a key opens the prompt (the model says so with
    /// ``ScreenEffect/prompt(typed:)``), the rest of the bytes go to the prompt (they may hold
    /// the whole command); bytes still unread stay in the terminal for readline, and what
    /// readline read but did not use (keys after Enter) are keys again.
    func typeKeys(_ bytes: [UInt8]) {
        var keys = decoder.feedKeepingBytes(bytes)[...]
        while running, let (key, _) = keys.popFirst() {
            let effects = effects(of: key)
            guard let at = effects.firstIndex(where: { if case .prompt = $0 { true } else { false } }),
                  case .prompt(let typed) = effects[at] else {
                apply(effects)
                continue
            }
            apply(Array(effects[..<at]))
            let leftover = prompt(typedAhead: Array(typed.utf8) + keys.flatMap(\.bytes) + decoder.takePending())
            apply(Array(effects[(at + 1)...]))
            keys = decoder.feedKeepingBytes(leftover)[...]
        }
    }

    /// What the model does with a key (a mouse report is hit-tested against the frame on screen).
    func effects(of key: Key) -> [ScreenEffect] {
        if case .mouse(let event) = key {
            return model.update(.mouse(event, now: runtime.now(), screen: previous?.hits ?? HitMap()), workspace: runtime.workspace)
        }
        return model.update(.key(key), workspace: runtime.workspace)
    }

    /// Ctrl-Z (or SIGTSTP): the terminal restored, the process stopped; after `fg`, the
    /// terminal taken again (raw mode, alternate screen, the mouse) and drawn whole.
    func suspend() {
        give(.saveViews)
        terminal.stopProcess()
        previous = nil
        relayout()
    }

    /// Carries out the model's effects, in order.
    func apply(_ effects: [ScreenEffect]) {
        for effect in effects where running {
            switch effect {
            case .core(.run(let command)): runtime.submit(command); hear()
            case .core(.command(let line)): runtime.submit(line); hear()
            case .core(let event): give(event)
            case .prompt(let typed): typeKeys(prompt(typedAhead: Array(typed.utf8)))
            case .redraw: previous = nil
            case .redrawPrompt: redrawUnderPrompt()
            case .quit: model.running = false
            case .mouseReporting(let on): terminal.setMouse(on)
            case .suspend: suspend()
            case .resolveHeldKeys:
                for key in decoder.flush() where running { apply(self.effects(of: key)) }
            case .frameDue: frameDue = true
            }
            if runtime.quitRequested { model.running = false }
        }
    }

    func relayout() {
        let size = terminal.size
        apply(model.update(.resize(width: size.width, height: size.height), workspace: runtime.workspace))
    }

    /// Gives the runtime an event, then the model what the runtime said meanwhile.
    func give(_ event: Event) {
        runtime.dispatch(event)
        hear()
    }

    /// What the runtime said (results, errors, clipboard bytes) as the model's inputs, in order.
    /// A tab's notice is on its status line already.
    func hear() {
        for said in runtime.takeSaid() {
            switch said {
            case .output(let text): apply(model.update(.output(text, isError: false), workspace: runtime.workspace))
            case .error(let text): apply(model.update(.output(text, isError: true), workspace: runtime.workspace))
            case .notice: break
            case .clipboard(let bytes): terminal.write(bytes)
            }
        }
    }

    /// `:` opens a GNU readline prompt on the bottom line, in cooked mode; the screen is redrawn
    /// after. `typedAhead` is input already read that belongs to the prompt (the main thread is
    /// the only reader of the terminal, so readline reads the rest itself). Returns what
    /// readline read but did not use (keys after Enter), to be handled as keys.
    func prompt(typedAhead: [UInt8]) -> [UInt8] {
        if let readLine {
            let (line, leftover) = readLine(typedAhead)
            previous = nil
            apply(model.update(.promptClosed(line), workspace: runtime.workspace))
            return leftover
        }
        terminal.suspend()
        terminal.write(Array("\u{1b}[\(model.height);1H\u{1b}[2K".utf8))
        nonisolated(unsafe) let screen = self
        editor.onResize = { screen.relayout() }
        // A quitting signal abandons the line; the main thread then quits as `q` does.
        let line = signals.whileReading(ignoresInterrupt: true, quit: { _ in LineEditor.wakeToQuit() }) {
            editor.readLine(prompt: ":", typedAhead: typedAhead, fullScreen: true)
        }
        editor.onResize = nil
        let leftover = editor.leftover
        terminal.resume()
        previous = nil
        // Time at the prompt is not key-to-frame latency; keys after Enter start now.
        keyReadAt = leftover.isEmpty ? nil : .now
        apply(model.update(.promptClosed(line), workspace: runtime.workspace))
        if LineEditor.quitRequested { model.running = false }
        return leftover
    }

    /// The terminal was resized at the prompt (the main thread is inside readline, between
    /// keys): the workspace at the new size, then the prompt's line on the new bottom line.
    func redrawUnderPrompt() {
        draw()
        terminal.write(Array("\u{1b}[\(model.height);1H\u{1b}[2K\u{1b}[?25h".utf8))
        editor.redisplay(rows: model.height, columns: model.width)
    }

    // MARK: Frames

    /// Renders, diffs against the previous frame and writes the changes in one write. With
    /// frame statistics on, records the time since the oldest key shown was read.
    func draw() {
        // The model keeps the column scroll in step (its update computes the layout).
        let size = model.size
        let layout = WorkspaceRenderer.columnLayout(workspace: runtime.workspace, size: size, ui: model.ui)
        var frame = spare ?? ScreenBuffer(width: size.width, height: size.height)
        spare = nil  // `frame` is now the only reference: cleared and drawn in place
        if frame.width == size.width && frame.height == size.height { frame.clear() } else {
            frame = ScreenBuffer(width: size.width, height: size.height)
        }
        WorkspaceRenderer.render(workspace: runtime.workspace, ui: model.ui, layout: layout, into: &frame)
        let diff = Diff.between(previous, frame)
        if !diff.runs.isEmpty || diff.isFull { terminal.write(writer.bytes(for: diff)) }
        spare = previous
        previous = frame
        if let stats {
            if let readAt = keyReadAt { stats.key(ContinuousClock.now - readAt) }
            stats.frame(pageLoaded: { WorkspaceRenderer.visibleRowsLoaded(workspace: runtime.workspace,
                                                                        size: size, ui: model.ui) })
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
