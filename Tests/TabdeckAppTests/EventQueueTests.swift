import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
import TabdeckTime
@testable import TabdeckApp

/// The main loop's queue: events put by other threads wake a waiting taker, deadlines hold on
/// the injected clock, with the terminal attached the taker reads the keys itself, before queued
/// events, and a plugin's reader thread waits while its tab has too many events queued.
@Suite(.timeLimit(.minutes(1))) struct EventQueueTests {
    @Test func aPutFromAnotherThreadWakesATakerWaitingWithoutDeadline() {
        let queue = EventQueue(clock: ManualClock())
        Thread { queue.put(.resize) }.start()
        guard case .resize = queue.take(until: nil) else { Issue.record("expected the resize"); return }
    }

    @Test func takeReturnsNilAtTheDeadlineOnTheClockAndNotBefore() {
        let clock = ManualClock()
        let queue = EventQueue(clock: clock)
        #expect(queue.take(until: 0) == nil)  // due already: no waiting
        let done = DispatchSemaphore(value: 0)
        let result = Locked<(HostEvent?, Double)?>(nil)
        Thread {
            let event = queue.take(until: 1.0)
            result.set((event, clock.now()))
            done.signal()
        }.start()
        // Virtual time moves in steps; the taker can only return once the clock reads 1.0.
        for _ in 0..<4 { clock.advance(by: 0.25) }
        done.wait()
        let (event, at) = result.get()!
        #expect(event == nil)
        #expect(at >= 1.0)
        queue.put(.resize)
        #expect(queue.take(until: clock.now()) != nil)  // a queued event comes even when the deadline passed
    }

    @Test func attachedInputIsReadByTheTakerBeforeQueuedEvents() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let clock = ManualClock()
        let queue = EventQueue(clock: clock)
        queue.attachInput(fds[0])
        queue.put(.resize)
        _ = write(fds[1], "jk", 2)
        guard case .input(let bytes, _) = queue.take(until: nil) else { Issue.record("expected the keys first"); return }
        #expect(bytes == Array("jk".utf8))
        guard case .resize = queue.take(until: nil) else { Issue.record("expected the resize after the keys"); return }
        // Keys typed while the taker waits wake it.
        let writeEnd = fds[1]
        Thread { _ = write(writeEnd, "q", 1) }.start()
        guard case .input(let more, _) = queue.take(until: nil) else { Issue.record("expected q"); return }
        #expect(more == [UInt8(ascii: "q")])
        // The end of input is reported once; the terminal is not read after it.
        close(fds[1])
        guard case .inputClosed = queue.take(until: nil) else { Issue.record("expected the end"); return }
        #expect(queue.take(until: clock.now()) == nil)
    }

    /// A reader that puts faster than the taker takes is held at the bound: at no moment has it
    /// put more than the taker took plus ``EventLanes/orderedPerTab``, and everything arrives, in
    /// order.
    @Test func aReaderWaitsForRoomAndLosesNothing() {
        let queue = EventQueue(clock: ManualClock())
        let total = 500
        let put = Locked(0)
        Thread {
            for i in 0..<total {
                queue.put(response(tab: "a", id: i), mayWait: true)
                put.set(i + 1)
            }
        }.start()
        var ids: [Int] = []
        while ids.count < total {
            guard case .core(.plugin("a", .message(.response(.int(let id), _))))? = queue.take(until: nil) else {
                Issue.record("expected a response"); return
            }
            ids.append(Int(id))
            #expect(put.get() <= ids.count + EventLanes.orderedPerTab)
        }
        #expect(ids == Array(0..<total))
    }

    /// A tab at its bound holds up neither another tab's reader nor threads that do not wait.
    @Test func aFullTabDoesNotHoldUpOtherTabs() {
        let queue = EventQueue(clock: ManualClock())
        for i in 0..<EventLanes.orderedPerTab { queue.put(response(tab: "a", id: i), mayWait: true) }
        queue.put(response(tab: "b", id: 0), mayWait: true)  // another tab: room
        queue.put(.plugin(tab: "a", .exited("exited with status 0")))  // the reaper never waits
        #expect(queue.count == EventLanes.orderedPerTab + 2)
    }

    /// On quit nothing takes events any more: a reader waiting for room is let go, and later
    /// puts do not wait either.
    @Test func stopWaitingReleasesAWaitingReader() {
        let queue = EventQueue(clock: ManualClock())
        for i in 0..<EventLanes.orderedPerTab { queue.put(response(tab: "a", id: i), mayWait: true) }
        let released = DispatchSemaphore(value: 0)
        Thread {
            queue.put(response(tab: "a", id: 1000), mayWait: true)
            queue.put(response(tab: "a", id: 1001), mayWait: true)
            released.signal()
        }.start()
        queue.stopWaiting()
        released.wait()
        #expect(queue.count == EventLanes.orderedPerTab + 2)
    }

    /// Keys are neither lost nor reordered while a plugin floods the queue: every byte written to
    /// the terminal comes out, in order, between the flood's events.
    @Test func keysUnderAFloodArriveAllInOrder() {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let clock = ManualClock()
        let queue = EventQueue(clock: clock)
        queue.attachInput(fds[0])
        let keys = Array((0..<3000).map { i -> UInt8 in Array("jkJKgG/nq0123456789".utf8)[i % 19] })
        let stop = Locked(false)
        let flooding = DispatchSemaphore(value: 0)
        Thread {
            var i = 0
            while !stop.get() {
                if i == 1000 { flooding.signal() }
                queue.put(badge(tab: "flood", i), mayWait: true)
                queue.put(.plugin(tab: "flood", .message(.notification(method: "rows/chunk", params: ["n": .int(Int64(i))]))),
                          mayWait: true)
                i += 1
            }
        }.start()
        let writeEnd = fds[1]
        Thread {
            flooding.wait()  // the keys are typed into a flood that is going on
            var offset = 0
            while offset < keys.count {  // small writes, as a typist or a paste would
                let n = min(7, keys.count - offset)
                _ = keys[offset..<offset + n].withUnsafeBytes { write(writeEnd, $0.baseAddress, n) }
                offset += n
            }
            close(writeEnd)
        }.start()
        var typed: [UInt8] = []
        var floodEvents = 0
        loop: while true {
            switch queue.take(until: nil) {
            case .input(let bytes, _)?: typed += bytes
            case .inputClosed?: break loop
            case .core?: floodEvents += 1
            default: break
            }
        }
        // The flood had put 1,000 events before the first key: those not taken yet are queued.
        if case .core? = queue.take(until: clock.now()) { floodEvents += 1 }
        stop.set(true)
        queue.stopWaiting()  // the flood thread may wait for room: let it see `stop`
        #expect(typed == keys)
        #expect(floodEvents > 0)
    }
}

func response(tab: String, id: Int) -> Event {
    .plugin(tab: tab, .message(.response(id: .int(Int64(id)), result: ["n": .int(Int64(id))])))
}

func badge(tab: String, _ value: Int) -> Event {
    .plugin(tab: tab, .message(.notification(method: Method.badge, params: ["value": .int(Int64(value))])))
}

/// A value shared between a test and its threads.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func get() -> T { lock.withLock { value } }
    func set(_ new: T) { lock.withLock { value = new } }
}
