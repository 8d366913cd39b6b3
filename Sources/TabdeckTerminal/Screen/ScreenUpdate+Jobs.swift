import TabdeckCore

/// Long work and the status line's messages: the job's progress follows the ticks, Esc cancels
/// it, and messages live by these rules:
/// - an info message fades on the next action; an error stays until Esc dismisses it;
/// - a newer message replaces an older one (one slot), and a new job drops the info messages
///   said before it, so a stale word never sits next to the job's own line;
/// - a cancel says `cancelled …` once (the core's own "cancelled" error for it is the same fact).
extension ScreenModel {
    /// Whether the shell should send ``ScreenInput/tick(now:)`` (about every 100 ms): only while
    /// something runs.
    public var wantsTicks: Bool { ui.job != nil }

    /// Follows the workspace's job; `now` is the tick's time (nil: no tick, the state changed).
    mutating func trackJob(_ ws: Workspace, now: Double?) {
        guard let job = ws.job else { ui.job = nil; return }
        if ui.job?.job.identity != job.identity {
            ui.job = JobProgress(job: job, now: now ?? ui.job?.now ?? 0)
            // Said before this job started (rows a moment late are not news that replaces it).
            if ui.message?.isError == false && job.kind != .waiting { ui.message = nil }
            cancelledJob = nil
        }
        ui.job!.advance(job, reported: ws.tabs[job.tab]?.progress, now: now)
    }

    /// The workspace's job as the person sees it: rows that are not late yet are no job to
    /// cancel (Esc dismisses, Ctrl-C quits, as with nothing running).
    func shownJob(_ ws: Workspace) -> Job? {
        guard let job = ws.job, job.kind != .waiting || (ui.job?.job.identity == job.identity && ui.job?.isShown == true) else { return nil }
        return job
    }

    /// A key ran an action: info messages fade, errors stay (and a cancel is old news).
    mutating func fadeMessage() {
        if ui.message?.isError != true { ui.message = nil }
        cancelledJob = nil
    }

    /// Esc in the table: closes the find, cancels the running job (the plugin gets `$/cancel`),
    /// or else dismisses the error shown.
    mutating func dismiss(_ ws: Workspace) -> [ScreenEffect] {
        ui.mode = .table; ui.find = nil
        if let job = shownJob(ws) {
            ui.message = .init("cancelled " + job.title, job: job.identity)
            cancelledJob = job.identity
            ui.job = nil
            return [.core(.cancel)]
        }
        ui.message = nil
        return []
    }

    /// Whether `text` only repeats the cancel already announced.
    func repeatsCancel(_ text: String, isError: Bool) -> Bool {
        cancelledJob != nil && isError && (text.hasPrefix("cancelled ") || text == "find stopped: cancelled")
    }
}
