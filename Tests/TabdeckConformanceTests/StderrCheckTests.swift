import Foundation
import Testing
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
}
