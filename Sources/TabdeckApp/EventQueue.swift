import Foundation
import TabdeckCore

/// What the main loop waits for: core events (from plugins), key input and resizes.
public enum HostEvent: Sendable {
    case core(Event)
    /// Bytes read from the terminal.
    case input([UInt8])
    /// The terminal was resized (SIGWINCH).
    case resize
    /// The terminal's input ended.
    case inputClosed
}

/// A thread-safe FIFO of events: plugin reader threads and the input thread put, the main loop takes.
final class EventQueue: @unchecked Sendable {
    private let condition = NSCondition()
    /// Taken slots are set to nil at once, so a consumed page of rows is freed immediately.
    private var items: [HostEvent?] = []
    private var head = 0

    func put(_ event: Event) { put(.core(event)) }

    func put(_ event: HostEvent) {
        condition.lock()
        items.append(event)
        condition.signal()
        condition.unlock()
    }

    /// The next event, waiting until `deadline` (nil: forever); nil on timeout.
    func take(until deadline: Date?) -> HostEvent? {
        condition.lock()
        defer { condition.unlock() }
        while head >= items.count {
            if let deadline {
                if !condition.wait(until: deadline) && head >= items.count { return nil }
            } else {
                condition.wait()
            }
        }
        let event = items[head]!
        items[head] = nil
        head += 1
        if head > 1024 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        return event
    }
}
