@preconcurrency import CReadline
import Foundation
import TabdeckCore
import TabdeckTerminal

/// A GNU readline prompt with history kept in a file across sessions, Tab completion, and
/// Ctrl-C or a lone Esc that abandon the line instead of ending the program (arrow keys, whose
/// sequences start with Esc, keep working: readline tells them apart by ``escapeTimeout``).
///
/// readline is process-global, so there is one editor per process.
public final class LineEditor {
    /// The history file.
    public let historyFile: String
    /// Entries kept in the history file.
    public let historyLimit: Int32

    /// Loads the history from `historyFile` (creating its folder). `complete` gets the text
    /// before the cursor and says what can follow.
    public init(historyFile: String, historyLimit: Int32 = 1000,
                complete: @escaping (String) -> CompletionCandidates = { _ in .words([]) }) {
        self.historyFile = historyFile
        self.historyLimit = historyLimit
        rl_catch_signals = 0
        rl_catch_sigwinch = 0
        rl_readline_name = UnsafePointer(strdup("tabdeck"))
        using_history()
        stifle_history(historyLimit)
        try? FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: historyFile).deletingLastPathComponent().path, withIntermediateDirectories: true)
        _ = read_history(historyFile)
        completionProvider = complete
        rl_attempted_completion_function = attemptCompletion
        // readline's own word breaks plus `,` and `)`, as ``Workspace/sqlWordBreaks``: a column
        // after `select a,` completes.
        rl_completer_word_break_characters = UnsafePointer(strdup(" \t\n\"\\'`@$><=;|&{(,)"))
        rl_getc_function = readKey
        rl_input_available_hook = inputAvailable
        // Bound at each prompt, after readline has read the user's inputrc.
        rl_startup_hook = bindEscape
    }

    /// Milliseconds readline waits after an Esc for the rest of a key's sequence before taking
    /// it as a lone Esc (which abandons the line).
    public static let escapeTimeout = 50

    /// Reads one line with editing and history; nil at end of input (Ctrl-D). Ctrl-C and a
    /// lone Esc abandon the line: "" (nothing runs, the session goes on). Lines are added to the history (and saved) as typed by the
    /// rules of ``History/shouldAdd(_:after:)``.
    ///
    /// `typedAhead` is input already read from the terminal that belongs to this prompt (keys
    /// typed right after `:`); readline reads it before the terminal. What it did not use (keys
    /// typed after Enter) is in ``leftover`` afterwards.
    ///
    /// `fullScreen`: the prompt is the bottom line of a full screen, so the matches of a Tab
    /// completion show in place on the line above (``CompletionList``) instead of scrolling.
    public func readLine(prompt: String, typedAhead: [UInt8] = [], fullScreen: Bool = false) -> String? {
        rl_completion_display_matches_hook = fullScreen ? showMatches : nil
        if resizePipe.read >= 0 { drainResizes() }
        quitWanted = 0
        installInterruptHandler()
        defer { restoreInterruptHandler() }
        typeahead = typedAhead[...]
        escaped = 0
        defer { leftover = Array(typeahead); typeahead = [] }
        guard let raw = readline(prompt) else { return nil }
        defer { free(raw) }
        if escaped != 0 { return "" }
        let line = String(cString: raw)
        if History.shouldAdd(line, after: lastEntry()) {
            add_history(raw)
            _ = write_history(historyFile)
            _ = history_truncate_file(historyFile, historyLimit)
        }
        return line
    }

    /// Called on the reading thread, between keys, when ``wakeForResize()`` was called while a
    /// line is read: the full screen redraws itself, then ``redisplay(rows:columns:)``.
    public var onResize: (() -> Void)? {
        get { resizeHandler }
        set { resizeHandler = newValue }
    }

    /// Abandons the line being read (from any thread): ``readLine(prompt:typedAhead:fullScreen:)``
    /// returns "" at once and ``quitRequested`` is true, so the caller quits the way `q` does
    /// (a SIGTERM at the prompt), nothing ended from another thread.
    public static func wakeToQuit() {
        quitWanted = 1
        var byte: UInt8 = 2
        _ = write(resizePipe.write, &byte, 1)
    }

    /// Whether ``wakeToQuit()`` ended the last line read.
    public static var quitRequested: Bool { quitWanted != 0 }

    /// Wakes the line being read to run ``onResize`` (from any thread or a signal handler's
    /// queue); nothing happens when no line is read.
    public static func wakeForResize() {
        var byte: UInt8 = 1
        _ = write(resizePipe.write, &byte, 1)
    }

    /// Draws the prompt and its line again for a terminal of `rows` × `columns`, where the
    /// cursor is now (the start of the bottom line).
    public func redisplay(rows: Int, columns: Int) {
        rl_set_screen_size(Int32(rows), Int32(columns))
        rl_forced_update_display()
    }

    /// Typed-ahead input the last ``readLine(prompt:typedAhead:fullScreen:)`` did not use.
    public private(set) var leftover: [UInt8] = []

    func lastEntry() -> String? {
        guard history_length > 0, let entry = history_get(history_base + history_length - 1), let text = entry.pointee.line else {
            return nil
        }
        return String(cString: text)
    }
}

// MARK: readline callbacks (C function pointers: no captures, so global state)

nonisolated(unsafe) private var resizeHandler: (() -> Void)?
/// Set by ``LineEditor/wakeToQuit()``: the line is abandoned and the reader quits.
nonisolated(unsafe) private var quitWanted: sig_atomic_t = 0
/// Written by ``LineEditor/wakeForResize()``, watched with the terminal by `readKey`.
nonisolated(unsafe) private let resizePipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return (-1, -1) }
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
}()
nonisolated(unsafe) private var completionProvider: ((String) -> CompletionCandidates)?
nonisolated(unsafe) private var completionWords: [String] = []
nonisolated(unsafe) private var completionIndex = 0
nonisolated(unsafe) private var interrupted: sig_atomic_t = 0
/// Input read before the prompt opened, served before the terminal.
nonisolated(unsafe) private var typeahead: ArraySlice<UInt8> = []
nonisolated(unsafe) private var previousInterrupt = sigaction()
/// A lone Esc abandoned the line being read.
nonisolated(unsafe) private var escaped: sig_atomic_t = 0

/// Binds a lone Esc (the ANYOTHERKEY slot of the Esc keymap, so Esc sequences still work) to
/// abandoning the line, with a short wait for the rest of a sequence.
private func bindEscape() -> Int32 {
    _ = rl_variable_bind("keyseq-timeout", String(LineEditor.escapeTimeout))
    // Completion ignores case as ``Workspace/completions(for:)`` does (`Na` completes `name`).
    _ = rl_variable_bind("completion-ignore-case", "on")
    _ = rl_bind_keyseq("\\e", abandonLine)
    return 0
}

/// Esc at the prompt: empties the line and ends the read; ``LineEditor/readLine(prompt:typedAhead:fullScreen:)`` returns "".
private func abandonLine(_ count: Int32, _ key: Int32) -> Int32 {
    escaped = 1
    rl_replace_line("", 0)
    rl_point = 0
    rl_done = 1
    return 0
}

private func attemptCompletion(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    guard let provider = completionProvider, let buffer = rl_line_buffer else { return nil }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: Int(end))
    let before = String(decoding: bytes, as: UTF8.self)
    switch provider(before) {
    case .path:
        return nil  // readline falls back to file name completion
    case .words(let words):
        rl_attempted_completion_over = 1
        completionWords = words
        completionIndex = 0
        guard let text else { return nil }
        return rl_completion_matches(text, nextCompletion)
    }
}

/// Shows the matches of an ambiguous completion on the line above the prompt, in place
/// (``CompletionList``): readline's own list would scroll the full screen up.
private func showMatches(_ matches: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int32, _ longest: Int32) {
    guard let matches, count > 0 else { return }
    let words = (1...Int(count)).compactMap { matches[$0].map { String(cString: $0) } }
    var rows: Int32 = 0, columns: Int32 = 0
    rl_get_screen_size(&rows, &columns)
    let bytes = CompletionList.bytes(words, row: Int(rows) - 1, width: Int(columns))
    let out = rl_outstream ?? stdout
    _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, out) }
    fflush(out)
}

private func nextCompletion(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    if state == 0 { completionIndex = 0 }
    guard completionIndex < completionWords.count else { return nil }
    defer { completionIndex += 1 }
    return strdup(completionWords[completionIndex])
}

/// readline's key reader: like rl_getc, but a Ctrl-C (SIGINT interrupting the read) empties the
/// line and accepts it, so the prompt is cancelled and readline returns "".
private func readKey(_ stream: UnsafeMutablePointer<FILE>?) -> Int32 {
    let fd = stream.map { fileno($0) } ?? STDIN_FILENO
    while true {
        if interrupted != 0 {
            interrupted = 0
            rl_replace_line("", 0)
            rl_point = 0
            fputs("^C", rl_outstream ?? stdout)
            return 0x0A
        }
        if quitWanted != 0 {
            // Abandoned, not accepted: readline takes an end of input after text as Enter.
            escaped = 1
            rl_replace_line("", 0)
            rl_point = 0
            return 0x0A
        }
        if let first = typeahead.popFirst() { return Int32(first) }
        if waitForKeyOrResize(fd) { continue }
        var byte: UInt8 = 0
        let n = read(fd, &byte, 1)
        if n == 1 { return Int32(byte) }
        if n < 0 && errno == EINTR { continue }
        return EOF
    }
}

/// Waits until a key can be read from `fd` (false), or until the caller must look again (true):
/// the terminal was resized (the resize handler has run) or a signal (Ctrl-C) came.
private func waitForKeyOrResize(_ fd: Int32) -> Bool {
    guard resizePipe.read >= 0 else { return false }
    var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: resizePipe.read, events: Int16(POLLIN), revents: 0)]
    let n = poll(&fds, 2, -1)
    if n < 0 { return errno == EINTR }
    guard fds[1].revents != 0 else { return false }
    drainResizes()
    if quitWanted == 0 { resizeHandler?() }
    return true
}

/// Forgets resizes signalled while no line was read.
private func drainResizes() {
    var drain = [UInt8](repeating: 0, count: 64)
    while read(resizePipe.read, &drain, drain.count) > 0 {}
}

/// Whether a key is waiting (readline asks while it decides if ESC starts a sequence).
private func inputAvailable() -> Int32 {
    if !typeahead.isEmpty { return 1 }
    // readline sets the wait (in microseconds) before it asks; reading it means setting it back.
    let micros = rl_set_keyboard_input_timeout(0)
    _ = rl_set_keyboard_input_timeout(micros)
    var p = pollfd(fd: fileno(rl_instream ?? stdin), events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, Int32(max(0, micros) / 1000)) > 0 ? 1 : 0
}

/// SIGINT without SA_RESTART, so the read returns EINTR and readline calls the hook.
private func installInterruptHandler() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in interrupted = 1 }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(SIGINT, &action, &previousInterrupt)
}

private func restoreInterruptHandler() {
    sigaction(SIGINT, &previousInterrupt, nil)
}
