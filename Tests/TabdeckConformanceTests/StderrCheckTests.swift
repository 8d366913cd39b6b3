import Foundation
import Testing
import TabdeckTime
@testable import TabdeckConformance

/// A flood on stderr is a warning with its figures (issue 27): the quickstart plugin as it is,
/// then behind 2 MiB of stderr.
@Suite struct StderrCheckTests {
    @Test func aStderrFloodIsAWarningWithItsSize() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = write(try DocsTests.quickstartPlugin(), to: folder + "/squares.sh")
        let quiet = try check(["sh", plugin])
        #expect(quiet.result("stderr: volume")?.status == .passed, "\(quiet.text)")
        #expect(quiet.result("stderr: volume")?.summary == "0 lines, 0 B", "\(quiet.text)")
        let flood = write("head -c 2097152 /dev/zero | tr '\\000' x | fold -w 1023 >&2\nexec sh '\(plugin)'\n", to: folder + "/flood.sh")
        let loud = try check(["sh", flood])
        let result = try #require(loud.result("stderr: volume"))
        #expect(result.status == .warning, "\(loud.text)")
        #expect(result.summary == "2051 lines, 2.0 MiB", "\(loud.text)")
        #expect(result.notes.contains { $0.contains("wrote 2.0 MiB to stderr in 2051 lines") && $0.contains("PROTOCOL.md 3.3") }, "\(loud.text)")
        #expect(loud.failed == 0, "a warning, not a failure: \(loud.text)")
    }

    /// `--only` runs the checks it names (by prefix), the handshake and `open` always, and
    /// reports the others as not run; the real binary takes it as `--only sort,stderr`.
    @Test func onlyRunsTheNamedChecks() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = write(try DocsTests.quickstartPlugin(), to: folder + "/squares.sh")
        var options = CheckOptions(command: ["sh", plugin], clock: SystemClock())
        options.only = ["paging", "stderr"]
        let report = try PluginChecker(options: options).run()
        let ran = report.results.filter { $0.status != .skipped }.map(\.name)
        #expect(ran.contains("handshake") && ran.contains("open") && ran.contains("stderr: volume"), "\(report.text)")
        #expect(ran.allSatisfy { ["handshake", "open"].contains($0) || $0.hasPrefix("paging") || $0.hasPrefix("stderr") }, "\(ran)")
        #expect(report.result("exit at end of input")?.summary.contains("--only") == true, "\(report.text)")
        #expect(report.conforms, "\(report.text)")
    }

    /// `--skip` leaves out the checks it names (by prefix), also under `--only`, and says so.
    @Test func skipLeavesOutTheNamedChecks() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = write(try DocsTests.quickstartPlugin(), to: folder + "/squares.sh")
        var options = CheckOptions(command: ["sh", plugin], clock: SystemClock())
        options.only = ["paging", "stderr"]
        options.skip = ["paging: last", "stderr"]
        let report = try PluginChecker(options: options).run()
        #expect(report.result("paging: first page")?.status == .passed, "\(report.text)")
        for name in ["paging: last page", "stderr: volume"] {
            #expect(report.result(name)?.summary == "not run: among --skip paging: last,stderr", "\(report.text)")
        }
        #expect(report.result("exit at end of input")?.summary.contains("--only") == true, "\(report.text)")
    }
}
