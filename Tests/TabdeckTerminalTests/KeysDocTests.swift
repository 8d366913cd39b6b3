import Foundation
import Testing
@testable import TabdeckTerminal

/// docs/COMMANDS.md's table of the default keys is the key map's own (the `keys` command's
/// lines), so the documentation cannot drift from what the keys do.
@Suite struct KeysDocTests {
    /// The table's lines as the key map makes them.
    static var expected: [String] {
        ["| Keys | Action | Does |", "|---|---|---|"] + KeyMap.standard.table.map { e in
            "| " + e.keys.map { "`\($0)`" }.joined(separator: " ") + " | `\(e.action)` | \(e.description) |"
        }
    }

    @Test func commandsMarkdownListsTheDefaultKeysOfTheKeyMap() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/COMMANDS.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let begin = lines.firstIndex(of: "<!-- keys:begin (generated from KeyMap.standard; KeysDocTests checks it) -->"),
              let end = lines.firstIndex(of: "<!-- keys:end -->"), begin < end else {
            Issue.record("docs/COMMANDS.md has no keys table markers")
            return
        }
        let table = Array(lines[(begin + 1)..<end])
        if table != Self.expected { print(Self.expected.joined(separator: "\n")) }
        #expect(table == Self.expected)
    }
}
