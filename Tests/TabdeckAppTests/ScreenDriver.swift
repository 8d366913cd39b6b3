import Foundation
import Testing
import TabdeckCore
import TabdeckTerminal
import TabdeckTime
@testable import TabdeckApp
import TabdeckTerminalIO

/// The real ``FullScreen`` in-process, as the terminal runs it but on a ``ManualClock``: real
/// plugin processes from a config, keys written to a pipe the screen reads as its terminal, its
/// output thrown away (or kept in a file), and the frame it last drew read as lines. Each wait
/// turns the shell's own loop (``FullScreen/runOnce()``) until a condition on the frame holds;
/// it wakes on events only (keys, plugin messages), the clock moved just as far as the screen's
/// frame pacing asks (or, for a plugin that stalls, to its deadlines: ScreenDriver+Stalls.swift).
/// A generous hang guard is the only wall-clock bound.
final class ScreenDriver {
    let clock = ManualClock()
    let runtime: Runtime
    let screen: FullScreen
    let terminal: RawTerminal
    private let keysRead: Int32
    private let keysWritten: Int32
    private let output: Int32
    private var stopped = false
    /// The hang guard: seconds a wait may take on the wall clock before the test fails.
    static let hangGuard = 120.0

    /// A screen of `width` × `height` on the config at `config`, its state in `state`; what it
    /// writes to its terminal goes to the file `outputFile` (nowhere when nil).
    init(config: String, state: String, width: Int = 120, height: Int = 40, outputFile: String? = nil) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        (keysRead, keysWritten) = (fds[0], fds[1])
        output = open(outputFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        runtime = try Runtime(configPath: config, stateDirectory: state, mode: "full screen", clock: clock)
        terminal = RawTerminal(input: keysRead, output: output, size: .init(width: width, height: height))
        screen = FullScreen(runtime: runtime, editor: LineEditor(historyFile: state + "/history"), terminal: terminal)
        screen.readLine = { [keysRead] typedAhead in Self.readLine(keysRead, typedAhead) }
        screen.start()
    }

    /// The `:` line as readline would return it, without editing: the bytes up to Enter (typed
    /// ahead, then read from the keys' pipe), and those after it; nil if the keys end first.
    static func readLine(_ fd: Int32, _ typedAhead: [UInt8]) -> (line: String?, leftover: [UInt8]) {
        var bytes = typedAhead
        while true {
            if let end = bytes.firstIndex(where: { $0 == 13 || $0 == 10 }) {
                return (String(decoding: bytes[..<end], as: UTF8.self), Array(bytes[(end + 1)...]))
            }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, -1)
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n == 0 { return (nil, []) }
            if n > 0 { bytes += chunk[..<n] }
        }
    }

    deinit {
        close()
        Glibc.close(keysRead); Glibc.close(keysWritten); Glibc.close(output)
    }

    /// The last frame drawn, one string per line (trailing spaces trimmed).
    var lines: [String] { screen.previous.map(TestBackend.lines) ?? [] }

    /// Types text as it is (one write).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(keysWritten, $0.baseAddress, $0.count) }
    }

    /// Presses keys by tmux's names ("Tab", "Enter", "BSpace", "Space", "Up") or as themselves.
    func keys(_ names: String...) {
        let named = ["Tab": "\t", "Enter": "\r", "BSpace": "\u{7f}", "Space": " ", "Up": "\u{1b}[A", "Down": "\u{1b}[B",
                     "Right": "\u{1b}[C", "Left": "\u{1b}[D"]
        for name in names { type(named[name] ?? name) }
    }

    /// An SGR mouse report (`CSI < b ; x ; y M`, 1-based cell), then its release unless `release` is false.
    func sgr(_ button: Int, _ x: Int, _ y: Int, release: Bool = true) {
        type("\u{1b}[<\(button);\(x);\(y)M" + (release ? "\u{1b}[<\(button);\(x);\(y)m" : ""))
    }

    /// The terminal takes a new size, and says so as SIGWINCH would.
    func resize(width: Int, height: Int) {
        terminal.fixedSize = .init(width: width, height: height)
        runtime.queue.put(.resize)
    }

    /// Runs the screen until a line contains `text`; false (recorded) at the hang guard.
    @discardableResult
    func waitFor(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        waitUntil("a line with \(text)", sourceLocation: sourceLocation) { $0.contains { $0.contains(text) } }
    }

    /// Runs the screen until a line contains `text` and no row on screen is still a placeholder
    /// (`…`): keys that act on a row wait for it, where tmux's pauses between keys only made it likely.
    @discardableResult
    func waitForRows(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        waitUntil("a line with \(text) and every row loaded", sourceLocation: sourceLocation) { lines in
            lines.contains { $0.contains(text) } && !lines.contains(where: Self.isPlaceholder)
        }
    }

    /// A table line of a row not fetched yet: `…` after the sidebar and the row's marks, alone.
    static func isPlaceholder(_ line: String) -> Bool {
        let cells = (line.split(separator: "│", omittingEmptySubsequences: false).last ?? "").trimmingCharacters(in: .whitespaces)
        return cells.hasSuffix("…") && cells.count <= 3
    }

    /// Runs the screen's loop until `condition` holds on the frame drawn; false (recorded with
    /// the screen) if it does not within the hang guard, or the screen quit first.
    /// `beforeEachTurn` may move the clock (ScreenDriver+Stalls.swift).
    @discardableResult
    func waitUntil(_ what: String = "the condition", sourceLocation: SourceLocation = #_sourceLocation,
                   beforeEachTurn: () -> Void = {}, _ condition: ([String]) -> Bool) -> Bool {
        let queue = runtime.queue
        let expired = Self.hangGuarded { queue.put(.resize) }  // a harmless event: the loop turns and sees the guard
        defer { expired.cancel() }
        while !condition(lines) {
            guard screen.running, !expired.fired else {
                let why = screen.running ? "the hang guard ended it" : "the screen quit"
                let shown = lines.joined(separator: "\n")
                Issue.record(Comment(rawValue: "waited for \(what); \(why); the screen was:\n\(shown)"), sourceLocation: sourceLocation)
                return false
            }
            beforeEachTurn()
            turn()
        }
        return true
    }

    /// Runs the loop until the screen quits (`q`); false (recorded) at the hang guard. Then
    /// closes it (``close(stalling:)`` if `stalling` names a tab whose plugin may not quit).
    @discardableResult
    func waitForQuit(stalling tab: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let queue = runtime.queue
        let expired = Self.hangGuarded { queue.put(.resize) }
        defer { expired.cancel() }
        while screen.running {
            if expired.fired { Issue.record("the screen did not quit", sourceLocation: sourceLocation); return false }
            turn()
        }
        if let tab { close(stalling: tab) } else { close() }
        return true
    }

    /// The hang guard armed: after ``hangGuard`` seconds on the wall clock it is marked fired
    /// and `wake` runs (to get the waiting loop going again); `cancel()` disarms it.
    static func hangGuarded(_ wake: @escaping @Sendable () -> Void) -> HangGuard {
        let fired = Locked(false)
        let timer = DispatchWorkItem { fired.set(true); wake() }
        DispatchQueue.global().asyncAfter(deadline: .now() + hangGuard, execute: timer)
        return HangGuard(timer: timer, flag: fired)
    }

    struct HangGuard {
        let timer: DispatchWorkItem
        let flag: Locked<Bool>
        var fired: Bool { flag.get() }
        func cancel() { timer.cancel() }
    }

    /// One turn of the shell's loop. Frames for plugin events held by the model's pacing wait
    /// for the clock: it is moved to when the next one is allowed (virtual time passes only so).
    func turn() {
        let now = runtime.now()
        if let next = screen.model.nextEventFrame(now: now), next > now { clock.advance(by: next - now) }
        screen.runOnce()
    }

    /// Ends the screen as `q` does (views saved, plugins stopped); once. A plugin that does not
    /// quit when asked is stopped on its grace deadlines, which are on the manual clock: at the
    /// hang guard the clock is moved past them (recorded), so a stuck plugin fails the test
    /// instead of blocking it.
    func close(sourceLocation: SourceLocation = #_sourceLocation) {
        guard !stopped else { return }
        stopped = true
        let clock = self.clock
        let expired = Self.hangGuarded { clock.advance(by: 60) }
        screen.finish()
        expired.cancel()
        if expired.fired {
            Issue.record("a plugin did not quit when the screen closed; the clock was moved past its grace deadlines", sourceLocation: sourceLocation)
        }
    }
}
