import Foundation
import TabdeckCore

/// A thread-safe FIFO of events: plugin reader threads put, the main loop takes.
final class EventQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Event] = []
    private var head = 0

    func put(_ event: Event) {
        condition.lock()
        items.append(event)
        condition.signal()
        condition.unlock()
    }

    /// The next event, waiting until `deadline` (nil: forever); nil on timeout.
    func take(until deadline: Date?) -> Event? {
        condition.lock()
        defer { condition.unlock() }
        while head >= items.count {
            if let deadline {
                if !condition.wait(until: deadline) && head >= items.count { return nil }
            } else {
                condition.wait()
            }
        }
        let event = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        return event
    }
}
