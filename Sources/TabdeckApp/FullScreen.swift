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
    let writer: ANSIWriter
    var size = RawTerminal.Size(width: 80, height: 24)
    var running = true
    /// The command typed at the prompt whose output should be shown (key commands show errors only).
    var promptCommand: String?
    /// Key-to-frame times in seconds, for measurement (`TABDECK_FRAME_STATS=FILE`).
    var frameTimes: [Double] = []
    let input: InputReader
    let resizeSource: DispatchSourceSignal

    public init(runtime: Runtime, editor: LineEditor, terminal: RawTerminal = RawTerminal()) {
        self.runtime = runtime
        self.editor = editor
        self.terminal = terminal
        self.writer = ANSIWriter(environment: ProcessInfo.processInfo.environment)
        let queue = runtime.queue
        self.input = InputReader(fd: terminal.input) { queue.put($0) }
        signal(SIGWINCH, SIG_IGN)
        self.resizeSource = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resizeSource.setEventHandler { queue.put(.resize) }
    }

    /// Runs until `q`; returns the exit status.
    public func run() -> Int32 {
        runtime.write = { [weak self] text in self?.show(text, isError: false) }
        runtime.writeError = { [weak self] text in self?.show(text, isError: true) }
        terminal.enter()
        resizeSource.resume()
        input.start()
        runtime.launch()
        relayout()
        runtime.dispatch(.refresh)
        draw(since: nil)
        while running {
            guard let event = runtime.next(until: nil) else { continue }
            let started = ContinuousClock.now
            var keyed = handle(event)
            // Take everything already queued before drawing one frame for all of it.
            while running, let more = runtime.next(until: Date()) { keyed = handle(more) || keyed }
            // A lone ESC is a key of its own if nothing follows it within 30 ms.
            while running && decoder.isPending {
                if let more = runtime.next(until: Date().addingTimeInterval(0.03)) {
                    keyed = handle(more) || keyed
                } else {
                    for key in decoder.flush() where running { press(key) }
                    keyed = true
                }
            }
            if keyed { runtime.dispatch(.refresh) }
            draw(since: keyed ? started : nil)
        }
        input.stop()
        terminal.leave()
        runtime.shutdown()
        writeFrameStats()
        return 0
    }

    // MARK: Events

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
        case .input(let bytes):
            for key in decoder.feed(bytes) where running { press(key) }
            return true
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
        case .pageDown: submit("page next")
        case .pageUp: submit("page prev")
        case .top: submit("page first")
        case .bottom: submit("page last")
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
        case .dismiss: ui.mode = .table; ui.find = nil
        case .find: ui.mode = .prompt("/")
        case .command: prompt()
        case .quit: running = false
        }
    }

    /// `/` find: typing narrows, Enter jumps to the next cached row containing the text.
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
            if let row = nextMatch(needle) { submit("goto \(row + 1)") } else if !needle.isEmpty {
                ui.message = .init("not found in the rows loaded: \(needle)", isError: true)
            }
        default: break
        }
    }

    func nextMatch(_ needle: String) -> Int? {
        guard let t = table, !needle.isEmpty else { return nil }
        let lower = needle.lowercased()
        for page in t.cache.cachedPages {
            for i in 0..<t.cache.pageSize {
                let index = page * t.cache.pageSize + i
                guard index > t.view.cursor, let row = t.cache.row(at: index) else { continue }
                if row.cells.contains(where: { CellText.of($0).lowercased().contains(lower) }) { return index }
            }
        }
        return nil
    }

    /// `:` opens a GNU readline prompt on the bottom line, in cooked mode; the screen is redrawn after.
    func prompt() {
        input.pause()
        terminal.suspend()
        terminal.write(Array("\u{1b}[\(size.height);1H\u{1b}[2K".utf8))
        let line = editor.readLine(prompt: ":")
        terminal.resume()
        input.resume()
        previous = nil
        if let line, !line.trimmingCharacters(in: .whitespaces).isEmpty { submit(line, fromPrompt: true) }
    }

    func quoted(_ word: String) -> String {
        word.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "#" }) ? "'\(word)'" : word
    }

    // MARK: Frames

    func draw(since started: ContinuousClock.Instant?) {
        if let layout = WorkspaceRenderer.columnLayout(workspace: runtime.workspace, size: (size.width, size.height), ui: ui) {
            ui.columnScroll = layout.scroll
        }
        let frame = WorkspaceRenderer.render(workspace: runtime.workspace, size: (size.width, size.height), ui: ui)
        let diff = Diff.between(previous, frame)
        if !diff.runs.isEmpty || diff.isFull { terminal.write(writer.bytes(for: diff)) }
        previous = frame
        if let started {
            let d = ContinuousClock.now - started
            frameTimes.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
    }

    func writeFrameStats() {
        guard let path = ProcessInfo.processInfo.environment["TABDECK_FRAME_STATS"], !frameTimes.isEmpty else { return }
        let text = frameTimes.map { String(format: "%.6f", $0) }.joined(separator: "\n") + "\n"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
}

/// Reads terminal input on its own thread; can be paused while readline owns the terminal.
final class InputReader: @unchecked Sendable {
    let fd: Int32
    let deliver: @Sendable (HostEvent) -> Void
    private let lock = NSLock()
    private var paused = false
    private var stopped = false

    init(fd: Int32, deliver: @escaping @Sendable (HostEvent) -> Void) {
        self.fd = fd; self.deliver = deliver
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "tabdeck-input"
        thread.start()
    }

    /// After `pause()` returns, no read is in flight and none starts until `resume()`.
    func pause() { lock.lock(); paused = true; lock.unlock() }
    func resume() { lock.lock(); paused = false; lock.unlock() }
    func stop() { lock.lock(); stopped = true; lock.unlock() }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 50)
            lock.lock()
            if stopped { lock.unlock(); return }
            if ready <= 0 || paused { lock.unlock(); continue }
            let n = read(fd, &buffer, buffer.count)
            lock.unlock()
            if n > 0 { deliver(.input(Array(buffer[0..<n]))) }
            else if n == 0 || (errno != EINTR && errno != EAGAIN) { deliver(.inputClosed); return }
        }
    }
}
