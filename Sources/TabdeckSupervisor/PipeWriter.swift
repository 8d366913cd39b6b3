import Foundation

/// The write side of a plugin's stdin: a queue drained by a dedicated thread, so that
/// `enqueue` returns at once even when the plugin is slow to read or the line is huge.
///
/// The first write error (EPIPE when the plugin exited or closed its stdin) closes the pipe;
/// `state` reports it and later lines are refused.
///
/// The queue is bounded: a line that would take it past `limit` bytes (a plugin that stopped
/// reading its stdin while the host keeps asking) is refused with `ENOBUFS`, and the pipe stays
/// open for the lines that fit once the plugin reads again.
final class PipeWriter: @unchecked Sendable {
    /// The default bound of the bytes queued and not yet written.
    static let defaultLimit = 16 << 20

    /// Whether lines can still be queued.
    enum State: Equatable {
        case open
        /// `closeWhenDrained` was called: queued lines are written, then stdin is closed.
        case closing
        /// Closed after a write error (errno), or normally (nil).
        case closed(errno: Int32?)
    }

    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var queuedBytes = 0
    private let limit: Int
    private var _state: State = .open
    private var abandon = false
    private let fd: Int32

    /// Takes ownership of `fd` and starts the writer thread.
    init(fd: Int32, name: String, limit: Int = PipeWriter.defaultLimit) {
        self.fd = fd
        self.limit = limit
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 256 * 1024
        thread.start()
    }

    var state: State {
        condition.lock(); defer { condition.unlock() }
        return _state
    }

    /// Queues bytes to write; returns the state instead when the pipe no longer takes lines.
    func enqueue(_ bytes: [UInt8]) -> State? {
        condition.lock(); defer { condition.unlock() }
        guard _state == .open else { return _state }
        if queuedBytes + bytes.count > limit && !queue.isEmpty { return .closed(errno: ENOBUFS) }
        queue.append(bytes)
        queuedBytes += bytes.count
        condition.signal()
        return nil
    }

    /// Writes what is queued, then closes stdin (the plugin sees end of file).
    func closeWhenDrained() {
        condition.lock(); defer { condition.unlock() }
        if _state == .open { _state = .closing }
        condition.signal()
    }

    /// Drops what is queued and closes stdin as soon as the thread is not inside write(2)
    /// (the process is gone).
    func abandonAndClose() {
        condition.lock(); defer { condition.unlock() }
        abandon = true
        queue.removeAll()
        queuedBytes = 0
        if _state == .open || _state == .closing { _state = .closing }
        condition.signal()
    }

    private func run() {
        var failure: Int32? = nil
        outer: while true {
            condition.lock()
            while queue.isEmpty && _state == .open && !abandon {
                condition.wait()
            }
            if abandon || queue.isEmpty {
                condition.unlock()
                break
            }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            queuedBytes = 0
            condition.unlock()
            for bytes in batch {
                if let code = writeAll(bytes) {
                    failure = code
                    break outer
                }
            }
        }
        close(fd)
        condition.lock()
        queue.removeAll()
        queuedBytes = 0
        _state = .closed(errno: failure)
        condition.unlock()
    }

    /// Writes every byte; returns errno on failure.
    private func writeAll(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { Descriptors.write(fd, $0) }
    }
}
