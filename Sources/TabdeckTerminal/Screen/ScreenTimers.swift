/// Every timer of the full screen, as a value the model owns: when views moved by keys are
/// saved, when the running job's progress ticks, when a lone Esc becomes a key, and how often
/// frames are drawn for plugin events. The shell owns no timer: it waits until
/// ``ScreenModel/nextWake`` (or an event), tells the model the time with
/// ``ScreenInput/timer(now:)`` and carries out what comes back. Times are the shell's clock in
/// seconds (the runtime's `now()`, virtual in tests).
public struct ScreenTimers: Hashable, Sendable {
    /// Seconds without input after which views moved by keys are saved…
    public static let saveAfter = 0.3
    /// …and the longest they stay unsaved while events keep coming.
    public static let saveAtMost = 2.0
    /// How often the job's progress (spinner, time, rate) follows the clock while a job runs.
    public static let tickInterval = 0.1
    /// How long a lone Esc waits for the rest of a key sequence.
    public static let escapeWait = 0.03
    /// The longest a batch of queued events is handled before a frame is drawn; also the
    /// interval of frames for plugin events when they come faster.
    public static let frameBudget = 0.016
    /// At most this many frames for plugin events fall in any `frameBurst` × ``frameBudget``.
    public static let frameBurst = 3

    /// When views moved by keys were first seen unsaved.
    var movedAt: Double?
    /// When the shell last started to wait (the last ``ScreenInput/timer(now:)``): quiet since then.
    var quietSince: Double?
    /// While a job runs: when its progress last followed the clock.
    var lastTick: Double?
    /// When the bytes the key decoder holds (a lone Esc, perhaps) resolve; nil when none are held.
    /// Fixed when the first held byte was read: events that come meanwhile do not move it.
    public internal(set) var escapeDeadline: Double?
    /// The last lone Esc resolved: when it was read and when it was resolved.
    public internal(set) var lastEscape: EscapeResolution?
    /// When the last few frames for plugin events were drawn (at most ``frameBurst``).
    var eventFrames: [Double] = []

    public init() {}

    /// When a held Esc was read and resolved.
    public struct EscapeResolution: Hashable, Sendable {
        public var read: Double
        public var resolved: Double
    }

    /// When the next frame for plugin events may be drawn; nil: now.
    public func nextEventFrame(now: Double) -> Double? {
        guard eventFrames.count == Self.frameBurst, let oldest = eventFrames.first else { return nil }
        let next = oldest + Double(Self.frameBurst) * Self.frameBudget
        return now < next ? next : nil
    }

    /// What is due at `now`, the state moved on: the caller carries it out. A deadline is due at
    /// exactly the time ``nextWake(wantsTicks:)`` gave (the same sums, no rounding between them).
    mutating func fire(now: Double, unsavedViews: Bool, wantsTicks: Bool) -> Due {
        var due = Due()
        if let deadline = escapeDeadline, now >= deadline {
            lastEscape = EscapeResolution(read: deadline - Self.escapeWait, resolved: now)
            escapeDeadline = nil
            due.resolveKeys = true
        }
        if unsavedViews { movedAt = movedAt ?? now } else { movedAt = nil }
        if let movedAt, now >= movedAt + Self.saveAtMost || quietSince.map({ now >= $0 + Self.saveAfter }) == true {
            due.saveViews = true
            self.movedAt = nil
        }
        if !wantsTicks {
            lastTick = nil
        } else if lastTick.map({ now >= $0 + Self.tickInterval }) ?? true {
            lastTick = now
            due.tick = true
        }
        quietSince = now
        return due
    }

    /// The earliest time something falls due (nil: nothing waits on the clock).
    func nextWake(wantsTicks: Bool) -> Double? {
        let save = movedAt.map { moved in min(moved + Self.saveAtMost, (quietSince ?? moved) + Self.saveAfter) }
        let tick = wantsTicks ? lastTick.map { $0 + Self.tickInterval } : nil
        return [escapeDeadline, save, tick].compactMap { $0 }.min()
    }

    /// Typed bytes were decoded at `now`; `leftPending`: the decoder holds some (a lone Esc, perhaps).
    mutating func bytesRead(leftPending: Bool, now: Double) {
        if !leftPending { escapeDeadline = nil } else if escapeDeadline == nil { escapeDeadline = now + Self.escapeWait }
    }

    /// A frame for plugin events was drawn at `now`.
    mutating func eventFrameDrawn(at now: Double) {
        eventFrames.append(now)
        if eventFrames.count > Self.frameBurst { eventFrames.removeFirst() }
    }

    /// What fell due at one reading of the clock.
    struct Due {
        var resolveKeys = false
        var saveViews = false
        var tick = false
    }
}
