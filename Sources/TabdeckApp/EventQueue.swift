import Foundation
import TabdeckCore
#if canImport(Glibc)
import Glibc
#endif

/// What the main loop waits for: core events (from plugins), key input and resizes.
public enum HostEvent: Sendable {
    case core(Event)
    /// Bytes read from the terminal, and when they were read (key press to frame starts there).
    case input([UInt8], readAt: ContinuousClock.Instant)
    /// The terminal was resized (SIGWINCH).
    case resize
    /// The terminal's input ended.
    case inputClosed
    /// SIGTERM, SIGHUP or SIGINT came (``SignalWatch``).
    case signal(Int32)
}

/// A thread-safe FIFO of events: plugin reader threads and signal handlers put, the main loop
/// takes.
///
/// The taker waits in `poll(2)` on a wake-up pipe (written by `put` while the taker sleeps) and,
/// once ``attachInput(_:)`` was called (the full-screen mode), on the terminal's input as well:
/// the main thread reads the keys itself, so a key wakes the thread that draws its frame
/// directly instead of waking an input thread that then wakes the main thread. Keys come
/// before events already queued, so a busy plugin never holds a key back.
final class EventQueue: @unchecked Sendable {
    private let lock = NSLock()
    /// Taken slots are set to nil at once, so a consumed page of rows is freed immediately.
    private var items: [HostEvent?] = []
    private var head = 0
    /// The taker is about to wait (or waits) in poll: a put must write to the wake-up pipe.
    private var sleeping = false
    /// The wake-up pipe: read end, write end (both non-blocking).
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The terminal input read by the taker, nil when not attached or after it ended.
    private var input: Int32?
    private var buffer = [UInt8](repeating: 0, count: 4096)

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("tabdeck: no pipe for the event queue: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]; wakeWrite = fds[1]
    }

    deinit { close(wakeRead); close(wakeWrite) }

    /// From now on the taker also reads `fd` (the terminal) and returns what it reads as
    /// ``HostEvent/input(_:readAt:)``, or ``HostEvent/inputClosed`` when it ends. Only the
    /// taker's thread may call this.
    func attachInput(_ fd: Int32) { input = fd }

    /// Stops reading the terminal (the taker's thread only).
    func detachInput() { input = nil }

    func put(_ event: Event) { put(.core(event)) }

    func put(_ event: HostEvent) {
        lock.lock()
        items.append(event)
        let wake = sleeping
        sleeping = false
        lock.unlock()
        if wake {
            var one: UInt8 = 1
            _ = write(wakeWrite, &one, 1)
        }
    }

    /// The next event, waiting until `deadline` (nil: forever); nil on timeout. Terminal input
    /// (when attached) comes first.
    func take(until deadline: Date?) -> HostEvent? {
        while true {
            lock.lock()
            let queued = head < items.count
            if !queued { sleeping = true }
            lock.unlock()
            if queued {
                // A key typed meanwhile goes before the queued events (one poll, no wait).
                if input != nil, let event = readInput(polled: false) { return event }
                lock.lock()
                defer { lock.unlock() }
                return pop()
            }
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 {
                    lock.lock(); sleeping = false
                    let event = head < items.count ? pop() : nil
                    lock.unlock()
                    if event == nil, input != nil, let key = readInput(polled: false) { return key }
                    return event
                }
                timeout = Int32(min(Double(Int32.max), (left * 1000).rounded(.up)))
            }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if let input { fds.append(pollfd(fd: input, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            lock.lock(); sleeping = false; lock.unlock()
            if ready > 0 && fds[0].revents != 0 { drainWakeUps() }
            if ready > 0, fds.count > 1, fds[1].revents != 0, let event = readInput(polled: true) { return event }
            // Loop: a queued event, or the deadline (checked above), or a spurious wake-up.
        }
    }

    /// Removes and returns the oldest queued event (the lock is held).
    private func pop() -> HostEvent {
        let event = items[head]!
        items[head] = nil
        head += 1
        if head > 1024 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        return event
    }

    private func drainWakeUps() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &scratch, scratch.count) > 0 {}
    }

    /// Reads the terminal if it has input now (`polled`: poll said so already): the bytes, the
    /// end of input, or nil (nothing to read).
    private func readInput(polled: Bool) -> HostEvent? {
        guard let fd = input else { return nil }
        if !polled {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0 else { return nil }
        }
        let n = read(fd, &buffer, buffer.count)
        if n > 0 { return .input(Array(buffer[0..<n]), readAt: .now) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return nil }
        input = nil  // end of input (or an error that will not go away): stop polling it
        return .inputClosed
    }
}
