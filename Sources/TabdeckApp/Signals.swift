import Dispatch
import Foundation

/// SIGTERM, SIGHUP and SIGINT, handled like `quit`: state committed, terminal restored, plugins
/// stopped. SIGINT (Ctrl-C in line mode) first stops the running command, like `cancel`.
///
/// A signal arrives on a Dispatch thread. While the main thread runs the event loop, it is put
/// on the ``EventQueue`` as ``HostEvent/signal(_:)`` and the loop acts on it. While the main
/// thread is blocked reading a line (a pipe, or the readline prompt), nothing is pending and
/// every change is already committed, so the quit given to ``whileReading(ignoresInterrupt:quit:_:)``
/// runs on the signal's thread and ends the process. At the readline prompt Ctrl-C stays
/// readline's (it empties the line).
final class SignalWatch: @unchecked Sendable {
    /// The signals handled like quit.
    static let quitting: [Int32] = [SIGTERM, SIGHUP, SIGINT]

    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var reading: (quit: @Sendable (Int32) -> Void, ignoresInterrupt: Bool)?
    private let queue: EventQueue

    init(queue: EventQueue) {
        self.queue = queue
        for number in Self.quitting {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops watching; the signals get their default action back.
    func cancel() {
        for source in sources { source.cancel() }
        sources = []
        for number in Self.quitting { signal(number, SIG_DFL) }
    }

    private func deliver(_ number: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if let reading {
            if number == SIGINT && reading.ignoresInterrupt { return }
            reading.quit(number)  // ends the process; the lock keeps the main thread from going on meanwhile
            return
        }
        queue.put(.signal(number))
    }

    /// Runs `read` (a blocking read of one line); a signal meanwhile runs `quit` on its own
    /// thread, which must end the process. `ignoresInterrupt`: SIGINT is left to the reader
    /// (readline empties the line).
    func whileReading<T>(ignoresInterrupt: Bool = false, quit: @escaping @Sendable (Int32) -> Void, _ read: () -> T) -> T {
        lock.withLock { reading = (quit, ignoresInterrupt) }
        defer { lock.withLock { reading = nil } }
        return read()
    }
}
