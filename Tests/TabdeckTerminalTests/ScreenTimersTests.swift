import Testing
import TabdeckCore
@testable import TabdeckTerminal

/// The model owns every timer of the full screen (``ScreenTimers``): the shell only waits until
/// ``ScreenModel/nextWake`` and reports the time, so each timer is tested here on virtual time,
/// without a terminal or a thread.
@Suite struct ScreenTimersTests {
    static func saves(_ effects: [ScreenEffect]) -> Bool { effects.contains(.core(.saveViews)) }

    /// Views moved by keys are saved once the shell waited `saveAfter` without anything happening.
    @Test func viewsMovedByKeysAreSavedWhenKeysPause() {
        var s = ScreenScene(width: 80, height: 10)
        #expect(s.model.nextWake == nil)
        s.press(.char("G"))
        #expect(s.scene.ws.hasUnsavedViews)
        #expect(!Self.saves(s.model.update(.timer(now: 10), workspace: s.scene.ws)))
        #expect(s.model.nextWake == 10 + ScreenTimers.saveAfter)
        #expect(!Self.saves(s.model.update(.timer(now: 10.2), workspace: s.scene.ws)), "an event at 10.2 started a new quiet wait")
        #expect(s.model.nextWake == 10.2 + ScreenTimers.saveAfter)
        #expect(Self.saves(s.model.update(.timer(now: 10.5), workspace: s.scene.ws)))
        s.scene.feed(.saveViews)
        #expect(!s.scene.ws.hasUnsavedViews)
        #expect(s.model.update(.timer(now: 10.6), workspace: s.scene.ws).isEmpty)
        #expect(s.model.nextWake == nil, "nothing left to wait for")
    }

    /// While events keep coming (every wait cut short), views are saved `saveAtMost` after the move.
    @Test func viewsAreSavedAtMostTwoSecondsAfterTheMoveWhileEventsKeepComing() {
        var s = ScreenScene(width: 80, height: 10)
        s.press(.char("G"))
        var savedAt: Double?
        for step in 0...30 where savedAt == nil {
            let now = 20 + Double(step) * 0.1
            if Self.saves(s.model.update(.timer(now: now), workspace: s.scene.ws)) { savedAt = now }
        }
        #expect(savedAt.map { abs($0 - (20 + ScreenTimers.saveAtMost)) < 1e-9 } == true, "saved at \(String(describing: savedAt))")
    }

    /// While a job runs its progress follows the clock every `tickInterval`, the first at once;
    /// each tick asks for a frame. No job: no tick, no wake.
    @Test func aRunningJobTicksEveryTenthOfASecond() {
        var s = ScreenScene(width: 80, height: 6)
        #expect(s.model.update(.timer(now: 1), workspace: s.scene.ws).isEmpty)
        s.scene.tables["people"]!.hold = { _ in true }
        s.press(.char("s"))
        #expect(s.model.wantsTicks)
        #expect(s.model.update(.timer(now: 100), workspace: s.scene.ws).contains(.frameDue))
        #expect(s.model.nextWake == 100 + ScreenTimers.tickInterval)
        #expect(!s.model.update(.timer(now: 100.05), workspace: s.scene.ws).contains(.frameDue))
        #expect(s.model.update(.timer(now: 100.1), workspace: s.scene.ws).contains(.frameDue))
        #expect(s.model.ui.job?.now == 100.1)
        s.press(.escape)
        #expect(!s.model.wantsTicks)
        #expect(s.model.update(.timer(now: 100.2), workspace: s.scene.ws).isEmpty)
        #expect(s.model.nextWake == nil)
    }

    /// A lone Esc resolves `escapeWait` after it was read, however many events come meanwhile
    /// (a chatty plugin once kept it waiting until the next key).
    @Test func aLoneEscResolvesAtItsDeadlineWhateverComesMeanwhile() {
        var s = ScreenScene(width: 80, height: 6)
        s.input(.bytesRead(leftPending: true, now: 5))
        #expect(s.model.nextWake == 5 + ScreenTimers.escapeWait)
        for i in 1...20 {
            s.input(.coreChanged)
            s.input(.bytesRead(leftPending: true, now: 5 + Double(i) * 0.001))  // more bytes, still held
        }
        #expect(s.model.nextWake == 5 + ScreenTimers.escapeWait, "events and bytes do not move the deadline")
        #expect(!s.model.update(.timer(now: 5.029), workspace: s.scene.ws).contains(.resolveHeldKeys))
        #expect(s.model.update(.timer(now: 5.031), workspace: s.scene.ws).contains(.resolveHeldKeys))
        #expect(s.model.timers.lastEscape == ScreenTimers.EscapeResolution(read: 5, resolved: 5.031))
        #expect(s.model.timers.escapeDeadline == nil && s.model.nextWake == nil)
        // Bytes that complete the sequence end the wait: nothing is resolved.
        s.input(.bytesRead(leftPending: true, now: 6))
        s.input(.bytesRead(leftPending: false, now: 6.01))
        #expect(s.model.update(.timer(now: 7), workspace: s.scene.ws).isEmpty)
    }

    /// Frames for plugin events: at most `frameBurst` in any `frameBurst` × `frameBudget`.
    @Test func framesForEventsArePaced() {
        var s = ScreenScene(width: 80, height: 6)
        for at in [0.0, 0.001, 0.002] {
            #expect(s.model.nextEventFrame(now: at) == nil)
            s.input(.eventFrameDrawn(at: at))
        }
        let next = Double(ScreenTimers.frameBurst) * ScreenTimers.frameBudget
        #expect(s.model.nextEventFrame(now: 0.003) == next)
        #expect(s.model.nextEventFrame(now: next) == nil)
        s.input(.eventFrameDrawn(at: next))
        #expect(s.model.nextEventFrame(now: next) == 0.001 + next, "the oldest of the last three sets the next")
    }
}
