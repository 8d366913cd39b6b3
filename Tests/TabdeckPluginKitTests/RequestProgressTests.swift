import Foundation
import Testing
@testable import TabdeckPluginKit

struct RequestProgressTests {
    final class Recorder: @unchecked Sendable {
        let lock = NSLock()
        let clock = ManualClock(now: 100)
        var sent: [(Double, Double?, String)] = []
        func advance(_ s: Double) { clock.advance(by: s) }
        func record(_ d: Double, _ t: Double?, _ m: String) { lock.lock(); sent.append((d, t, m)); lock.unlock() }
    }

    @Test func aSilentPhaseIsHeardAtEveryInterval() {
        let r = Recorder()
        let p = RequestProgress(message: "counting", interval: 0.5, clock: r.clock, send: { r.record($0, $1, $2) })
        p.report(10, 100)
        #expect(r.sent.isEmpty, "reports come at most every 0.1 s")
        r.advance(0.2)
        p.report(20, 100)
        #expect(r.sent.count == 1 && r.sent[0].0 == 20 && r.sent[0].1 == 100 && r.sent[0].2 == "counting")
        r.advance(0.3)
        p.beat()
        #expect(r.sent.count == 1, "a beat only after `interval` of silence")
        // A phase without reports (a merge, building the table): every beat past the interval
        // repeats the last state, so the host never goes `interval` without a word.
        for _ in 0..<40 {
            r.advance(0.25)
            p.beat()
        }
        #expect(r.sent.count == 1 + 20)
        #expect(r.sent.last!.0 == 20 && r.sent.last!.2 == "counting")
        p.phase("building the table")
        #expect(r.sent.last!.2 == "building the table" && r.sent.last!.1 == nil)
        r.advance(0.5)
        p.beat()
        #expect(r.sent.last!.2 == "building the table" && r.sent.count == 23)
    }
}
