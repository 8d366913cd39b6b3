import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckApp

/// CSV export quotes scalar by scalar: a quote with a combining mark on it is still doubled, and
/// `\r\n` inside a cell is still quoted (the `csv` fuzz target's finding, in the exporter).
@Suite struct ExportQuotingTests {
    @Test func quotesAndLineBreaksInsideGraphemeClustersAreEscaped() throws {
        let path = NSTemporaryDirectory() + "/tabdeck-export-quoting-\(getpid()).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try ExportWriter(path: path, format: .csv, columns: [ColumnSpec(id: "a", title: "A")])
        try writer.write([[.string("say \"\u{31B}hi")], [.string("one\r\ntwo")], [.string("plain")]])
        try writer.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == "a\n\"say \"\"\u{31B}hi\"\n\"one\r\ntwo\"\nplain\n", "\(text.debugDescription)")
    }
}
