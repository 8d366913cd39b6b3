import Foundation
import Testing
@testable import TabdeckCore

/// docs/COMMANDS.md's list of commands is `help`'s own output, from the one command catalog,
/// so the documentation cannot drift from the commands there are.
/// `TABDECK_WRITE_DOCS=1 swift test --filter HelpDocTests` writes it.
@Suite struct HelpDocTests {
    @Test func commandsMarkdownListsTheCatalogAsHelpDoes() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/COMMANDS.md").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- help:begin (generated from CommandParser.catalog; HelpDocTests checks it) -->\n```\n"))
        let end = try #require(text.range(of: "\n```\n<!-- help:end -->", range: begin.upperBound..<text.endIndex))
        let shown = String(text[begin.upperBound..<end.lowerBound])
        if shown != CommandParser.helpText, ProcessInfo.processInfo.environment["TABDECK_WRITE_DOCS"] == "1" {
            try text.replacingCharacters(in: begin.upperBound..<end.lowerBound, with: CommandParser.helpText)
                .write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        #expect(shown == CommandParser.helpText, "docs/COMMANDS.md's command list differs from help:\n\(CommandParser.helpText)")
        // Every command of the catalog has its section in the reference below the list.
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("#### ") }.joined(separator: "\n")
        let missing = CommandParser.catalog.map(\.name).filter { !headings.contains("#### " + $0) && !headings.contains(", " + $0) }
        #expect(missing.isEmpty, "commands without a section in docs/COMMANDS.md: \(missing)")
    }
}
