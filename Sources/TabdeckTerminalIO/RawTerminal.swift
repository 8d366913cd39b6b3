import Foundation
#if canImport(Glibc)
import Glibc
import TabdeckTerminal
#endif

/// The real terminal: raw mode, the alternate screen, its size, and exact restoration.
///
/// The saved termios lives in a global so signal handlers and `atexit` can restore the
/// terminal however the process ends (quit, Ctrl-C, SIGTERM, SIGHUP, a crash).
public final class RawTerminal {
    /// Terminal rows and columns.
    public struct Size: Equatable, Sendable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) { self.width = width; self.height = height }
    }

    public let input: Int32
    public let output: Int32

    /// A size given instead of the terminal's (tests on pipes); nil: asked of the terminal.
    public var fixedSize: Size?

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, size: Size? = nil) {
        self.input = input; self.output = output; self.fixedSize = size
    }

    /// The current size: ``fixedSize`` if given, else the terminal's (80x24 when unknown).
    public var size: Size {
        if let fixedSize { return fixedSize }
        var ws = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
            return Size(width: Int(ws.ws_col), height: Int(ws.ws_row))
        }
        return Size(width: 80, height: 24)
    }

    /// Enters raw mode and the alternate screen, hides the cursor, and arranges for the
    /// terminal to be restored at exit and on fatal signals.
    public func enter() {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return }
        enter(saved)
    }

    private func enter(_ saved: termios) {
        savedTermios = saved
        savedFD = input
        outputFD = output
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)  // keep "\n" -> "\r\n" for simple writes
        // TCSADRAIN, not TCSAFLUSH: keys typed before raw mode are kept, not thrown away.
        tcsetattr(input, TCSADRAIN, &raw)
        writeAll(output, "\u{1b}[?1049h\u{1b}[?25l\u{1b}[?2004l\u{1b}[H\u{1b}[2J" + (mouseReporting ? MouseModes.on : ""))
        installRestoreHandlers()
    }

    /// Whether the terminal reports the mouse (modes 1000, 1002, 1006) while Tabdeck is in it;
    /// every restoration of the terminal turns them off.
    public private(set) var mouseReporting = false

    /// Turns mouse reporting on or off (now, and again whenever the screen is entered).
    public func setMouse(_ on: Bool) {
        mouseReporting = on
        guard savedTermios != nil else { return }
        writeAll(output, on ? MouseModes.on : MouseModes.off)
    }

    /// Ctrl-Z: restores the terminal (cooked mode, main screen, no mouse), stops the process
    /// as the shell's job control expects (SIGTSTP, its default action), and once continued
    /// (`fg`) enters raw mode, the alternate screen and the mouse again. The caller redraws.
    public func stopProcess() {
        guard savedTermios != nil else { raise(SIGTSTP); return }
        stopProcess {
            var previous = sigaction()
            var stop = sigaction()
            stop.__sigaction_handler.sa_handler = SIG_DFL
            sigemptyset(&stop.sa_mask)
            sigaction(SIGTSTP, &stop, &previous)
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGTSTP)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            raise(SIGTSTP)  // stopped here until SIGCONT
            sigaction(SIGTSTP, &previous, nil)
        }
    }

    /// ``stopProcess()`` with the stop itself given: the terminal restored, `stop` called (it
    /// returns once the process is continued), the terminal taken again. Tests stop nothing.
    func stopProcess(stoppingWith stop: () -> Void) {
        guard let saved = savedTermios else { stop(); return }
        restoreTerminal()
        stop()
        enter(saved)
    }

    /// Leaves the alternate screen and restores the terminal exactly as it was.
    public func leave() { restoreTerminal() }

    /// Cooked mode for a prompt (readline), then raw again with `resume()`. Keys typed in
    /// between are kept (TCSADRAIN): the text typed right after `:` belongs to the prompt.
    public func suspend() {
        guard var t = savedTermios else { return }
        tcsetattr(input, TCSADRAIN, &t)
        writeAll(output, "\u{1b}[?25h" + (mouseReporting ? MouseModes.off : ""))  // no reports typed into the prompt
    }

    /// Back to raw mode after `suspend()`.
    public func resume() {
        guard let saved = savedTermios else { return }
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)
        tcsetattr(input, TCSADRAIN, &raw)
        writeAll(output, "\u{1b}[?25l" + (mouseReporting ? MouseModes.on : ""))
    }

    /// Writes bytes in as few write(2) calls as the kernel allows.
    public func write(_ bytes: [UInt8]) { writeAll(output, bytes) }
}

nonisolated(unsafe) private var savedTermios: termios?
nonisolated(unsafe) private var savedFD: Int32 = STDIN_FILENO
nonisolated(unsafe) private var outputFD: Int32 = STDOUT_FILENO
nonisolated(unsafe) private var handlersInstalled = false

private func writeAll(_ fd: Int32, _ text: String) { writeAll(fd, Array(text.utf8)) }

private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

/// Restores termios and leaves the alternate screen; safe to call more than once. What `atexit`,
/// the fatal signals' handlers, ``RawTerminal/leave()`` and ``RawTerminal/stopProcess()`` do.
func restoreTerminal() {
    guard var t = savedTermios else { return }
    writeAll(outputFD, MouseModes.off + "\u{1b}[0m\u{1b}[?25h\u{1b}[?1049l")
    tcsetattr(savedFD, TCSAFLUSH, &t)
    savedTermios = nil
}

/// The crash signals, and the handlers they had before Tabdeck's (Swift's backtracer installs
/// its own at start-up), which Tabdeck's handler calls once the terminal is restored.
private let crashSignals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]
/// Indexed by signal number (no allocation, no reference counting in a handler).
nonisolated(unsafe) private let chainedHandlers: UnsafeMutablePointer<sigaction> = {
    let p = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    p.initialize(repeating: sigaction(), count: 65)
    return p
}()

private func installRestoreHandlers() {
    guard !handlersInstalled else { return }
    handlersInstalled = true
    atexit { restoreTerminal() }
    for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
        // A signal the host already handles (SIGTERM, SIGHUP and SIGINT quit like `q`, which
        // restores the terminal itself) keeps its handler: replacing it would end the host at
        // once, its state uncommitted and its plugins left to die with it.
        var current = sigaction()
        sigaction(sig, nil, &current)
        if current.__sigaction_handler.sa_handler != nil { continue }  // nil is SIG_DFL
        signal(sig) { s in
            restoreTerminal()
            signal(s, SIG_DFL)
            raise(s)
        }
    }
    for sig in crashSignals {
        // A crash: the terminal restored first (mouse reporting off, the main screen, cooked
        // mode), then whatever handled the signal before (Swift's backtracer prints the
        // backtrace, now readable on the main screen), or the default action.
        var previous = sigaction()
        sigaction(sig, nil, &previous)
        chainedHandlers[Int(sig)] = previous
        var restore = sigaction()
        restore.__sigaction_handler.sa_sigaction = { s, info, context in
            restoreTerminal()
            var previous = chainedHandlers[Int(s)]
            if previous.sa_flags & SA_SIGINFO != 0, let handler = previous.__sigaction_handler.sa_sigaction {
                sigaction(s, &previous, nil)
                handler(s, info, context)
            } else {
                let handler = previous.__sigaction_handler.sa_handler
                if handler == nil || unsafeBitCast(handler, to: Int.self) == 1 { previous.__sigaction_handler.sa_handler = SIG_DFL }  // SIG_DFL, SIG_IGN
                sigaction(s, &previous, nil)
                raise(s)
            }
        }
        restore.sa_flags = SA_SIGINFO | (previous.sa_flags & Int32(SA_ONSTACK))
        sigemptyset(&restore.sa_mask)
        sigaction(sig, &restore, nil)
    }
}
