import Foundation
import Testing
@testable import TabdeckApp
@testable import TabdeckSupervisor

/// A plugin that stalls (never answers, ignores `shutdown` and SIGTERM) meets the host's
/// deadlines only when the manual clock reaches them. These waits move the clock there at once,
/// instead of after seconds on the wall clock: what happens is what the deadlines decide,
/// whatever the plugin's real speed.
extension ScreenDriver {
    /// Runs the screen until `condition` holds, moving the clock before each turn to the next
    /// deadline of `tab`'s plugin: its earliest pending request's timeout, or the host's own
    /// next wake (a restart's back-off). Only for a plugin that does not answer: one that
    /// answers, but slower than the clock moves, would be timed out too.
    @discardableResult
    func waitUntil(_ what: String = "the condition", stalling tab: String, sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: ([String]) -> Bool) -> Bool {
        waitUntil("\(what) while \(tab) stalls", sourceLocation: sourceLocation, beforeEachTurn: {
            let wake = runtime.wakeAt.map { $0 + runtime.started }
            let next = [wake, runtime.supervisor.earliestRequestDeadline(tab)].compactMap { $0 }.min()
            if let next, next > clock.now() { clock.advance(by: next - clock.now()) }
        }, condition)
    }

    /// Runs `body` while the clock is moved past `tab`'s grace deadlines as soon as its plugin
    /// waits them out (it ignores `shutdown`, or SIGTERM): the stop goes on to SIGTERM and
    /// SIGKILL at once. Other plugins stop as they do.
    func movingPastGrace(of tab: String, _ body: () -> Void) {
        let done = Locked(false)
        let supervisor = runtime.supervisor
        let clock = self.clock
        let mover = Thread {
            while !done.get() {
                let (stop, group) = supervisor.graceDeadlines(tab)
                if let next = [stop, group].compactMap({ $0 }).min(), next > clock.now() { clock.advance(by: next - clock.now()) }
                usleep(2_000)  // polls what the stop waits for; the outcome does not depend on it
            }
        }
        mover.start()
        defer { done.set(true) }
        body()
    }

    /// Ends the screen as `q` does, `tab`'s plugin stopped as ``movingPastGrace(of:_:)`` says.
    func close(stalling tab: String) {
        movingPastGrace(of: tab) { close() }
    }
}
