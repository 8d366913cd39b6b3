import TabdeckCore

/// What the status line shows about the running ``Job``: how long it has run and how fast it
/// goes, from the times of ``ScreenInput/tick(now:)`` (the shell's clock, so tests run on
/// virtual time).
public struct JobProgress: Hashable, Sendable {
    /// The work.
    public var job: Job
    /// The tick time it was first seen at (nil until the first tick after it started).
    public var startedAt: Double?
    /// The last tick's time.
    public var now: Double
    /// The plugin's own progress report for the job's tab, if any.
    public var reported: PluginProgress?
    /// The first count seen, and when: the rate is measured from there.
    var firstCount: Double?
    var firstCountAt: Double?

    public init(job: Job, now: Double, startedAt: Double? = nil) {
        self.job = job; self.now = now; self.startedAt = startedAt
    }

    /// Whether the status line shows it: rows awaited (``Job/Kind/waiting``) once they are
    /// later than ``Job/waitingGrace``; any other job at once.
    public var isShown: Bool { job.kind != .waiting || elapsed >= Job.waitingGrace }

    /// Seconds the job has run.
    public var elapsed: Double { startedAt.map { max(0, now - $0) } ?? 0 }

    /// How far it is: the plugin's report first, else the host's own count.
    public var count: (done: Double, total: Double?)? {
        if let p = reported { return (p.done, p.total) }
        if let done = job.done { return (Double(done), job.total.map(Double.init)) }
        return nil
    }

    /// Units per second since the first count, once half a second has passed.
    public var rate: Double? {
        guard let done = count?.done, let first = firstCount, let at = firstCountAt, now - at >= 0.5 else { return nil }
        return max(0, done - first) / (now - at)
    }

    /// Takes the job's latest state at time `now` (nil: no new tick).
    mutating func advance(_ latest: Job, reported: PluginProgress?, now tick: Double?) {
        job = latest
        self.reported = reported
        if let tick {
            now = tick
            if startedAt == nil { startedAt = tick }
        }
        if firstCount == nil, let done = count?.done, tick != nil || startedAt != nil {
            firstCount = done; firstCountAt = now
        }
    }
}
