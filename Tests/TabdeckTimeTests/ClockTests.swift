import Testing
import TabdeckTime
import Synchronization

@Suite struct ClockTests {
    @Test func manualClockStandsStillUntilAdvanced() {
        let clock = ManualClock(now: 10)
        #expect(clock.now() == 10)
        #expect(clock.realWait(until: 12) == nil)  // wait until woken
        #expect(clock.realWait(until: 10) == 0)
        clock.advance(by: 2.5)
        #expect(clock.now() == 12.5)
        #expect(clock.realWait(until: 12) == 0)
    }

    @Test func advancingWakesEveryWaiterUntilRemoved() {
        let clock = ManualClock()
        let woken = Mutex(0)
        let a = clock.addWaiter { woken.withLock { $0 += 1 } }
        clock.addWaiter { woken.withLock { $0 += 10 } }
        clock.advance(by: 1)
        #expect(woken.withLock { $0 } == 11)
        clock.removeWaiter(a)
        clock.advance(by: 1)
        #expect(woken.withLock { $0 } == 21)
    }

    @Test func systemClockIsMonotonicAndWaitsForWhatIsLeft() {
        let clock = SystemClock()
        let a = clock.now()
        let b = clock.now()
        #expect(b >= a)
        #expect(clock.realWait(until: a - 1) == 0)
        let left = clock.realWait(until: b + 100)!
        #expect(left > 99 && left <= 100)
    }
}
