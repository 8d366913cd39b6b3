import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGHUP and SIGINT, handled like `quit`: state committed, terminal restored, plugins
/// stopped. SIGINT (Ctrl-C in line mode) first stops the running command, like `cancel`.
///
/// A plain `sigaction` handler writes the signal's number to a pipe (all a handler may safely
/// do); a thread of its own reads it. (Not a Dispatch signal source: on Linux that keeps the
/// readline prompt's own SIGINT handler, which empties the line, from ever running.) While the
/// main thread runs the event loop, the signal is put on the ``EventQueue`` as
/// ``HostEvent/signal(_:)`` and the loop acts on it. While the main thread is blocked reading a
/// line (a pipe, or the readline prompt), nothing is pending and every change is already
/// committed, so the quit given to ``whileReading(ignoresInterrupt:quit:settle:_:)`` runs on the
/// watcher's thread and ends the process (line mode reading a pipe) or the read (the full
/// screen's prompt, which then quits as `q` does). At the readline prompt Ctrl-C stays readline's: its
/// handler replaces this one while it reads.
final class SignalWatch: @unchecked Sendable {
    /// The signals handled like quit.
    static let quitting: [Int32] = [SIGTERM, SIGHUP, SIGINT]

    private let lock = NSLock()
    private var reading: (quit: @Sendable (Int32) -> Void, ignoresInterrupt: Bool)?
    private let queue: EventQueue
    private let pipeRead: Int32
    /// The signals watched: ``quitting`` and those given to `init` (the full screen's SIGTSTP
    /// and SIGCONT), each delivered as ``HostEvent/signal(_:)``.
    private let watched: [Int32]

    init(queue: EventQueue, also: [Int32] = []) {
        watched = Self.quitting + also
        self.queue = queue
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("tabdeck: no pipe for signals: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        pipeRead = fds[0]
        signalPipe = fds[1]
        // A mask inherited from the parent (a test runner, a service manager) may block them.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in watched { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for number in watched {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while true {
                let n = read(pipeRead, &byte, 1)
                if n == 1 { deliver(Int32(byte)); continue }
                if n < 0 && errno == EINTR { continue }
                return
            }
        }
        thread.name = "tabdeck.signals"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Stops watching; the signals get their default action back.
    func cancel() {
        for number in watched { signal(number, SIG_DFL) }
        let write = signalPipe
        signalPipe = -1
        close(write)  // the watcher's read ends
    }

    private func deliver(_ number: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if let reading {
            if number == SIGINT && reading.ignoresInterrupt { return }
            if !Self.quitting.contains(number) { return }  // job control at a prompt is the reader's
            reading.quit(number)  // ends the process or the read; the lock keeps the main thread from going on meanwhile
            return
        }
        queue.put(.signal(number))
    }

    /// Runs `read` (a blocking read of one line); a signal meanwhile runs `quit` on the watcher's
    /// thread, which must end the process or the read. `ignoresInterrupt`: SIGINT is left to the reader
    /// (readline empties the line).
    ///
    /// `settle` runs first, once this watch counts as reading: it handles what is queued (a
    /// signal that came after the last command's events were taken, but before this call, is
    /// there and nowhere else) and says whether to read at all; false gives nil without reading.
    func whileReading<T>(ignoresInterrupt: Bool = false, quit: @escaping @Sendable (Int32) -> Void,
                         settle: () -> Bool = { true }, _ read: () -> T?) -> T? {
        // Under the lock: a signal from now on runs `quit`, one before it is in the queue.
        let go = lock.withLock { () -> Bool in
            reading = (quit, ignoresInterrupt)
            return settle()
        }
        defer { lock.withLock { reading = nil } }
        return go ? read() : nil
    }
}

/// The write end of the signal pipe, for the handler (which can capture nothing).
nonisolated(unsafe) private var signalPipe: Int32 = -1
