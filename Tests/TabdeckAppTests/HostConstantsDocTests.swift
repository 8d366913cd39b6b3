import Foundation
import Testing
@testable import TabdeckApp
@testable import TabdeckCore
import TabdeckProtocol
@testable import TabdeckSpool
@testable import TabdeckSupervisor

/// PROTOCOL.md section 19 is generated from the code: each row's value is read from the
/// constant the host uses, so the table cannot drift. When a value changes this test fails and
/// prints the table to paste; `TABDECK_WRITE_DOCS=1 swift test --filter HostConstantsDocTests`
/// writes it.
@Suite struct HostConstantsDocTests {
    static func seconds(_ s: Double) -> String { (s == s.rounded() ? String(Int(s)) : String(s)) + " s" }
    static func seconds(_ d: Duration) -> String { seconds(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18) }

    /// The rows: name, value (from the code), meaning (with the section that holds the rule).
    static func rows() -> [(String, String, String)] {
        let core = CoreSettings()
        return [
            ("request timeout", seconds(core.requestTimeout), "Longest wait for an answer or progress (5)"),
            ("handshake timeout", seconds(core.handshakeTimeout), "The same for `initialize` (5)"),
            ("request limit", seconds(TabConfig.defaultRequestLimit), "Default `requestLimit`: a request's longest run (5)"),
            ("cancel grace", seconds(core.cancelGrace), "Time to settle a cancelled request (6)"),
            ("shutdown grace", seconds(PluginSupervisor.stopGrace), "Stdin closed to SIGTERM, and SIGTERM to SIGKILL (7.4)"),
            ("kill grace", seconds(PluginSupervisor.defaultKillGrace), "SIGTERM to SIGKILL for an ended plugin's group (7.4)"),
            ("crash budget", "\(core.crashBudget) crashes", "Crashes in the crash window that leave a tab down (8)"),
            ("crash window", seconds(core.crashWindow), "The time crashes are counted over (8)"),
            ("restart backoff", seconds(core.baseBackoff), "First restart delay (8)"),
            ("restart backoff limit", seconds(core.maxBackoff), "Longest restart delay (8)"),
            ("retry backoff", seconds(core.baseRequestBackoff), "First delay before a failed request is retried (14.1)"),
            ("retry backoff limit", seconds(core.maxRequestBackoff), "Longest retry delay (14.1)"),
            ("line limit", "\(LineSplitter.defaultMaxLineLength) bytes", "Longest line, without its `\\n` (3.2)"),
            ("nesting limit", "\(JSONParser.maxDepth) levels", "Deepest nesting of arrays and objects (3.2)"),
            ("stderr line limit", "\(ProcessSettings.stderrLineLimit) bytes", "Longest stderr line logged as is (3.3)"),
            ("page size", "\(core.pageSize) rows", "Rows per page shown (11.3)"),
            ("largest page", "\(core.scanPageSize) rows", "Largest `limit` but a stream's (11.3)"),
            ("stream limit", "\(StreamWire.unlimited) rows", "`limit` of a stream request (11.3.1)"),
            ("cut size", "\(CutCell.limit) bytes", "Longer text cells may be sent cut (10.5)"),
            ("cell part", "\(CutCell.partBytes) bytes", "`length` of a `cell` request (11.10)"),
            ("largest whole cell", "\(CutCell.maxWholeBytes) bytes", "Largest value fetched with `cell` (11.10)"),
            ("action rows", "\(core.maxActionRows) rows", "Most row ids in one `action` (11.6)"),
            ("width limit", "\(ColumnSpec.maxWidth) cells", "Largest width hint (10.4)"),
            ("decimals limit", "\(ColumnSpec.maxDecimals)", "Largest `decimals` (10.2)"),
            ("badge text", "\(BadgeValue.maxText) characters", "Longest string badge (12.1)"),
            ("queued log lines", "\(EventLanes.logsPerTab)", "`log`s waiting before more are dropped (12)"),
            ("queued messages", "\(EventLanes.orderedPerTab)", "Ordered messages waiting before reading pauses (12)"),
            ("merged notifications", "\(EventLanes.mergesPerTake)", "Merged notifications before reading pauses (12)"),
        ]
    }

    static func table() -> String {
        (["| Constant | Value | Meaning |", "|---|---|---|"] + rows().map { "| \($0.0) | \($0.1) | \($0.2) |" })
            .joined(separator: "\n")
    }

    @Test func protocolSection19IsTheCodesConstants() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- constants:begin -->\n"))
        let end = try #require(text.range(of: "\n<!-- constants:end -->", range: begin.upperBound..<text.endIndex))
        let shown = String(text[begin.upperBound..<end.lowerBound])
        let wanted = Self.table()
        if shown != wanted, ProcessInfo.processInfo.environment["TABDECK_WRITE_DOCS"] == "1" {
            try text.replacingCharacters(in: begin.upperBound..<end.lowerBound, with: wanted)
                .write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        #expect(shown == wanted, "PROTOCOL.md section 19 differs from the code; the table is:\n\(wanted)")
        // The spool's pages of a stream are as large as the core's largest page.
        #expect(SpoolRouter.pullPage == CoreSettings().scanPageSize)
    }
}
