import Foundation
import TabdeckCore
import TabdeckTime
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

/// A thread-safe, bounded queue of events: plugin reader threads, the spool and signal handlers
/// put, the main loop takes.
///
/// Plugin notifications coalesce per tab and everything else keeps its order (``EventLanes``);
/// a plugin's reader thread that puts with `mayWait` waits while its tab has
/// ``EventLanes/orderedPerTab`` ordered events queued, so a plugin that writes faster than the
/// host takes is slowed through its own pipe, and other tabs are not held up. Threads that must
/// not wait (the main thread, the timer, the reaper, the spool's writer queue) put without it:
/// what they put is bounded by the requests the core sent. ``stopWaiting()`` (on quit) releases
/// every waiting reader for good.
///
/// The taker waits in `poll(2)` on a wake-up pipe (written by `put` while the taker sleeps, and
/// by the clock when a manual clock is advanced) and, once ``attachInput(_:)`` was called (the
/// full-screen mode), on the terminal's input as well: the main thread reads the keys itself,
/// so a key wakes the thread that draws its frame directly instead of waking an input thread
/// that then wakes the main thread. Keys come before events already queued, so a busy plugin
/// never holds a key back. Deadlines are read on the injected clock.
final class EventQueue: @unchecked Sendable {
    /// Guards `lanes`, `sleeping` and `waitingStopped`; readers wait on it for room.
    private let condition = NSCondition()
    private var lanes = EventLanes()
    /// The taker is about to wait (or waits) in poll: a put must write to the wake-up pipe.
    private var sleeping = false
    /// Readers no longer wait for room (the host is quitting).
    private var waitingStopped = false
    private let wake: WakePipe
    let clock: MonotonicClock
    private let clockWaiter: Int
    /// The terminal input read by the taker, nil when not attached or after it ended.
    private var input: Int32?
    private var buffer = [UInt8](repeating: 0, count: 4096)

    init(clock: MonotonicClock) {
        let wake = WakePipe()
        self.wake = wake
        self.clock = clock
        clockWaiter = clock.addWaiter { wake.ring() }
    }

    deinit { clock.removeWaiter(clockWaiter) }

    /// From now on the taker also reads `fd` (the terminal) and returns what it reads as
    /// ``HostEvent/input(_:readAt:)``, or ``HostEvent/inputClosed`` when it ends. Only the
    /// taker's thread may call this.
    func attachInput(_ fd: Int32) { input = fd }

    /// Stops reading the terminal (the taker's thread only).
    func detachInput() { input = nil }

    /// Events queued (after coalescing).
    var count: Int { condition.withLock { lanes.count } }

    func put(_ event: Event, mayWait: Bool = false) { put(.core(event), mayWait: mayWait) }

    /// Queues an event. With `mayWait` (a plugin's reader thread) it first waits while the
    /// event's tab has ``EventLanes/orderedPerTab`` ordered events queued; never call it so from
    /// the taker's thread.
    func put(_ event: HostEvent, mayWait: Bool = false) {
        condition.lock()
        if mayWait, case .core(.plugin(let tab, _)) = event {
            while !waitingStopped && lanes.isFull(tab: tab) { condition.wait() }
        }
        lanes.append(event)
        let ring = sleeping
        sleeping = false
        condition.unlock()
        if ring { wake.ring() }
    }

    /// Readers no longer wait for room, now and later (on quit, before waiting for the plugins
    /// to end: a reader waiting for a taker that no longer takes would keep its plugin alive).
    func stopWaiting() {
        condition.withLock { waitingStopped = true; condition.broadcast() }
    }

    /// The next event, waiting until `deadline` on the clock (nil: forever); nil on timeout.
    /// Terminal input (when attached) comes first. Until `holdEventsUntil` (clock time) only
    /// input is returned: queued events wait (coalescing meanwhile), so that a stream of plugin
    /// events is taken in batches instead of keeping the taker busy one event at a time.
    func take(until deadline: Double?, holdEventsUntil hold: Double? = nil) -> HostEvent? {
        while true {
            let held = hold.map { clock.realWait(until: $0) != 0 } ?? false
            condition.lock()
            let queued = !held && !lanes.isEmpty
            // While events are held a put need not wake the taker (a clock advance still does).
            if !queued { sleeping = !held }
            condition.unlock()
            if queued {
                // A key typed meanwhile goes before the queued events (one poll, no wait).
                if input != nil, let event = readInput(polled: false) { return event }
                return popLocked()
            }
            var timeout: Int32 = -1
            if let deadline {
                let left = clock.realWait(until: deadline)
                if left == 0 {
                    condition.withLock { sleeping = false }
                    if !held, let event = popLocked() { return event }
                    if input != nil, let key = readInput(polled: false) { return key }
                    return nil
                }
                if let left { timeout = Self.milliseconds(left) }
            }
            if held, let hold, let left = clock.realWait(until: hold) {
                let ms = Self.milliseconds(left)
                timeout = timeout < 0 ? ms : min(timeout, ms)
            }
            var fds = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            if let input { fds.append(pollfd(fd: input, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            condition.withLock { sleeping = false }
            if ready > 0 && fds[0].revents != 0 { wake.drain() }
            if ready > 0, fds.count > 1, fds[1].revents != 0, let event = readInput(polled: true) { return event }
            // Loop: a queued event, the deadline or the end of the hold (checked above), or a
            // spurious wake-up.
        }
    }

    private static func milliseconds(_ seconds: Double) -> Int32 {
        Int32(min(Double(Int32.max), (seconds * 1000).rounded(.up)))
    }

    /// Removes and returns the oldest queued event, letting a reader waiting for room go on.
    private func popLocked() -> HostEvent? {
        condition.lock()
        defer { condition.unlock() }
        let event = lanes.pop()
        if event != nil { condition.broadcast() }
        return event
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

/// The taker's wake-up pipe (both ends non-blocking). A class of its own so that a clock's
/// waiter can keep it alive: a waiter called after the queue went away writes to this pipe,
/// never to a closed (or reused) descriptor.
private final class WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("tabdeck: no pipe for the event queue: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]; writeEnd = fds[1]
    }

    deinit { close(readEnd); close(writeEnd) }

    /// Wakes the taker (a full pipe is awake already).
    func ring() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &scratch, scratch.count) > 0 {}
    }
}
