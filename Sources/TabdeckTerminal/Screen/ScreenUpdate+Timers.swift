import TabdeckCore

/// The model's clock inputs: the shell tells it the time, the typed bytes' state and the frames
/// it drew; the model answers with what fell due (``ScreenTimers``).
extension ScreenModel {
    /// When the shell must next tell the model the time (``ScreenInput/timer(now:)``) even if no
    /// event comes: a held Esc, views to save, the job's next tick. Nil: only events matter.
    public var nextWake: Double? { timers.nextWake(wantsTicks: wantsTicks) }

    /// When the next frame for plugin events may be drawn (nil: now); frames for keys are not paced.
    public func nextEventFrame(now: Double) -> Double? { timers.nextEventFrame(now: now) }

    mutating func timer(now: Double, _ ws: Workspace) -> [ScreenEffect] {
        let due = timers.fire(now: now, unsavedViews: ws.hasUnsavedViews, wantsTicks: wantsTicks)
        var effects: [ScreenEffect] = []
        if due.resolveKeys { effects.append(.resolveHeldKeys) }
        if due.saveViews { effects.append(.core(.saveViews)) }
        if due.tick {
            trackJob(ws, now: now)
            effects.append(.frameDue)
        }
        return effects
    }
}
