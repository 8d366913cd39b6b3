import Foundation
import Testing
import TabdeckTime
import TabdeckProtocol
@testable import TabdeckConformance

/// Requests sent together (PROTOCOL.md 4.3), a slow handshake (7.1) and hotkeys that never
/// reach their action (10.7), on the mutant fixture: warnings with figures.
@Suite struct BatchAndHotkeyTests {
    static let python = Mutation.python

    func checkMutant(_ environment: [String: String], hostKeys: [Character: String] = [:]) throws -> Report {
        var options = CheckOptions(command: Self.python, args: [:], timeout: .seconds(10), environment: environment,
                                   workingDirectory: repo, clock: SystemClock())
        options.hostKeys = hostKeys
        return try PluginChecker(options: options).run()
    }

    @Test func aBatchAnsweredOneAtATimeTakesTheSumAndConcurrentlyTheLongest() {
        var batches = RequestBatches()
        let request = { (offset: Int) in RowsRequest(table: "root", offset: offset, limit: 10, generation: offset + 1) }
        batches.record((0..<4).map { .init(id: .int(Int64($0)), request: request($0), epoch: 0) })
        for (id, ms) in [(0, 500), (1, 1000), (2, 1500), (3, 2000)] { batches.answered(.int(Int64(id)), after: .milliseconds(ms)) }
        batches.record((4..<7).map { .init(id: .int(Int64($0)), request: request($0), epoch: 0) })
        for (id, ms) in [(4, 300), (5, 310), (6, 320)] { batches.answered(.int(Int64(id)), after: .milliseconds(ms)) }
        let timing = batches.timing
        #expect(timing.batches == 2)
        #expect(timing.took == .milliseconds(2320))
        #expect(timing.concurrently == .milliseconds(800))  // 500 (one at a time) + 300 (together)
        // A page sent ahead is read once, and only while the table is as it was.
        #expect(batches.take(RowsRequest(table: "root", offset: 0, limit: 10), epoch: 0)?.id == .int(0))
        #expect(batches.take(RowsRequest(table: "root", offset: 0, limit: 10), epoch: 0) == nil)
        #expect(batches.take(RowsRequest(table: "root", offset: 1, limit: 10), epoch: 1) == nil)
    }

    /// The same slow answers (0.6 s for each sorted first page), one at a time and concurrently:
    /// the first is warned with figures; the second passes, its sort checks in about the time of
    /// a batch's slowest answer instead of the sum (compared with each other, not with a clock bound).
    @Test func aPluginAnsweringOneAtATimeIsWarnedAndOneAnsweringConcurrentlyIsCheckedFaster() throws {
        let serial = try checkMutant(["MUTANT_SLOW_SORTED": "0.6"])
        let serialSpeed = try #require(serial.result("speed: pages sent together"))
        #expect(serial.conforms, "\(serial.text)")
        #expect(serialSpeed.status == .warning, "\(serial.text)")
        #expect(serialSpeed.notes.contains { $0.contains("answered requests sent together one at a time") && $0.contains("if answered concurrently") },
                "\(serial.text)")
        let concurrent = try checkMutant(["MUTANT": "concurrent", "MUTANT_SLOW_SORTED": "0.6"])
        #expect(concurrent.conforms, "\(concurrent.text)")
        #expect(concurrent.result("speed: pages sent together")?.status == .passed, "\(concurrent.text)")
        // 12 one-column sorts, their first pages 4 at a time: 3 slow answers waited for, not 12.
        func sortTime(_ report: Report) -> Duration {
            report.results.filter { $0.name.wholeMatch(of: /sort: [a-z]+ (asc|desc)/) != nil }.reduce(.zero) { $0 + $1.duration }
        }
        #expect(sortTime(concurrent) * 2 < sortTime(serial), "concurrently \(sortTime(concurrent)), one at a time \(sortTime(serial))")
    }

    @Test func aSlowHandshakeIsAWarningWithItsFigure() throws {
        let report = try checkMutant(["MUTANT": "slow-handshake"])
        let handshake = try #require(report.result("handshake"))
        #expect(handshake.status == .warning, "\(report.text)")
        #expect(handshake.notes.contains { $0.contains("initialize was answered after 2.") && $0.contains("PROTOCOL.md 7.1") }, "\(report.text)")
        #expect(report.conforms)
    }

    @Test func hotkeysTheHostBindsOrAnEarlierActionTookAreWarnings() throws {
        let hostKeys: [Character: String] = ["s": "sort by the column", "q": "quit"]
        let legal = try checkMutant([:], hostKeys: hostKeys)
        #expect(legal.result("actions")?.status == .passed, "\(legal.text)")
        let report = try checkMutant(["MUTANT": "hotkey-clash"], hostKeys: hostKeys)
        let actions = try #require(report.result("actions"))
        #expect(actions.status == .warning, "\(report.text)")
        #expect(report.conforms)
        #expect(actions.notes.contains { $0.contains("action delete's hotkey \"s\" is the host's key for \"sort by the column\"") }, "\(report.text)")
        #expect(actions.notes.contains { $0.contains("action add's hotkey \"R\" is already action rename's") }, "\(report.text)")
    }

    /// `tabdeck plugin check` knows the host's own keys.
    @Test(.enabled(if: tabdeckIsBuilt)) func theShippedCheckerWarnsOfAHostKey() throws {
        let result = try run(["/usr/bin/env", "MUTANT=hotkey-clash", tabdeckBinary, "plugin", "check", "--only", "actions", "--"] + Self.python)
        #expect(result.out.contains("hotkey \"s\" is the host's key for"), "\(result.out)\(result.err)")
        #expect(result.status == 0, "\(result.out)\(result.err)")
    }
}
