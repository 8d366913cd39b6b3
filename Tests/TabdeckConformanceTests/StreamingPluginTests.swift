import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// `paging: false` plugins: the checker streams the table instead of paging it.
@Suite struct StreamingPluginTests {
    static let fixture = ["python3", "Plugins/fixtures/stream_plugin.py"]

    @Test func theStreamingFixtureConforms() throws {
        let report = try check(Self.fixture + ["--rows", "3000", "--chunk", "700"])
        #expect(report.conforms, "\(report.text)")
        #expect(report.failed == 0)
        #expect(report.result("stream: whole table")?.status == .passed, "\(report.text)")
        #expect(report.result("stream: again")?.status == .passed)
        #expect(report.result("cancel")?.status == .passed, "\(report.text)")
        #expect(report.result("messages")?.status == .passed, "rows/chunk is a known notification: \(report.text)")
        #expect(report.result("paging: first page") == nil)
        #expect(report.plugin?.capabilities.contains("paging:false") == true)
    }

    @Test func aStreamThatBreaksOffFails() throws {
        let report = try check(Self.fixture + ["--rows", "3000", "--crash-after", "1500"])
        #expect(!report.conforms)
        #expect(report.result("stream: whole table")?.status == .failed, "\(report.text)")
    }

    @Test func thePagingFixtureWithoutSortConforms() throws {
        let report = try check(Self.fixture + ["--rows", "2500", "--paging"])
        #expect(report.conforms, "\(report.text)")
        #expect(report.result("paging: whole table")?.status == .passed)
    }
}
