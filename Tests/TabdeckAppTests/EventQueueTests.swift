import Foundation
import Testing
import TabdeckCore
@testable import TabdeckApp

/// The main loop's queue: events put by other threads wake a waiting taker, deadlines hold, and
/// with the terminal attached the taker reads the keys itself, before queued events.
@Suite struct EventQueueTests {
    @Test func aPutFromAnotherThreadWakesATakerWaitingWithoutDeadline() {
        let queue = EventQueue()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { queue.put(.resize) }
        guard case .resize = queue.take(until: nil) else { Issue.record("expected the resize"); return }
    }

    @Test func takeReturnsNilAtTheDeadlineAndNotBefore() {
        let queue = EventQueue()
        let start = Date()
        #expect(queue.take(until: start.addingTimeInterval(0.05)) == nil)
        #expect(Date().timeIntervalSince(start) >= 0.05)
        queue.put(.resize)
        #expect(queue.take(until: Date()) != nil)  // a queued event comes even when the deadline passed
    }

    @Test func attachedInputIsReadByTheTakerBeforeQueuedEvents() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let queue = EventQueue()
        queue.attachInput(fds[0])
        queue.put(.resize)
        _ = write(fds[1], "jk", 2)
        guard case .input(let bytes, _) = queue.take(until: nil) else { Issue.record("expected the keys first"); return }
        #expect(bytes == Array("jk".utf8))
        guard case .resize = queue.take(until: nil) else { Issue.record("expected the resize after the keys"); return }
        // Keys typed while the taker waits wake it.
        let writeEnd = fds[1]
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { _ = write(writeEnd, "q", 1) }
        guard case .input(let more, _) = queue.take(until: Date().addingTimeInterval(5)) else { Issue.record("expected q"); return }
        #expect(more == [UInt8(ascii: "q")])
        // The end of input is reported once; the terminal is not read after it.
        close(fds[1])
        guard case .inputClosed = queue.take(until: Date().addingTimeInterval(5)) else { Issue.record("expected the end"); return }
        #expect(queue.take(until: Date().addingTimeInterval(0.02)) == nil)
    }
}
