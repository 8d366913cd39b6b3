import Foundation
import Testing

/// `tabdeck --line` sorting a tab whose plugin streams and cannot sort (the host's spool).
@Suite(.enabled(if: Bin.built, Comment(rawValue: Bin.missing)))
struct SpoolLineModeTests {
    let dir = TempDir()

    @Test func sortsAStreamedTab() async throws {
        let plugin = Bin.root + "/Plugins/fixtures/stream_plugin.py"
        let config = try dir.write("config.json", """
            {"tabs": [{"id": "stream", "title": "Stream", "command": ["python3", "\(plugin)", "--rows", "100000"]}]}
            """)
        let run = try await tabdeck(["--line", "--config", config, "--state-dir", dir.state, "--output", "json"],
                                    input: "sort n desc\nshow 3\nsort name\nshow 2\nquit\n", timeout: 120)
        #expect(run.status == 0, "\(run)")
        let docs = run.lines.filter { !$0.isEmpty }.compactMap(parseJSON)
        #expect(docs.count == 5, "\(run)")
        func ids(_ doc: [String: Any]) -> [String] {
            ((doc["result"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        guard docs.count == 5 else { return }
        #expect(ids(docs[1]) == ["r99999", "r99998", "r99997"])
        // name ascending by UTF-8 bytes, then n descending (the earlier key stays as a tie-breaker).
        let names = ["Åsa", "bob", "Carl", "dana", "Émile", "frank", "Zoë", "ada"]
        let expected = (0..<100_000).map { (name: "\(names[$0 % 8]) \($0 * 31 % 1000)", n: $0) }
            .sorted { a, b in a.name != b.name ? Array(a.name.utf8).lexicographicallyPrecedes(Array(b.name.utf8)) : a.n > b.n }
        #expect(ids(docs[3]) == expected.prefix(2).map { "r\($0.n)" })
        let spool = (try? FileManager.default.contentsOfDirectory(atPath: dir.state + "/spool")) ?? []
        #expect(spool.isEmpty, "no spool left after quit: \(spool)")
    }

    /// The issue's test: a plugin that streams 1,000,000 rows, sorted by two keys and exported
    /// in full through the spool (about 20 s with the debug build).
    @Test func sortsAndExportsAMillionStreamedRows() async throws {
        let rows = 1_000_000
        let plugin = Bin.root + "/Plugins/fixtures/stream_plugin.py"
        let config = try dir.write("config.json", """
            {"tabs": [{"id": "stream", "title": "Stream", "command": ["python3", "\(plugin)", "--rows", "\(rows)"]}]}
            """)
        let export = dir.path + "/all.csv"
        let run = try await tabdeck(["--line", "--config", config, "--state-dir", dir.state, "--output", "json"],
                                    input: "sort n desc\nshow 3\nsort name\nshow 2\nexport \(export)\nquit\n", timeout: 300)
        #expect(run.status == 0, "\(run)")
        let docs = run.lines.filter { !$0.isEmpty }.compactMap(parseJSON)
        guard docs.count == 6 else { Issue.record("expected 6 results: \(run)"); return }
        func ids(_ doc: [String: Any]) -> [String] {
            ((doc["result"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        #expect(ids(docs[1]) == ["r999999", "r999998", "r999997"])
        // The first rows by name ascending (UTF-8 bytes), then n descending: found by one pass.
        let names = ["Åsa", "bob", "Carl", "dana", "Émile", "frank", "Zoë", "ada"]
        var best: [(name: [UInt8], n: Int)] = []
        for n in 0..<rows {
            let key = (name: Array("\(names[n % 8]) \(n * 31 % 1000)".utf8), n: n)
            best.append(key)
            best.sort { $0.name != $1.name ? $0.name.lexicographicallyPrecedes($1.name) : $0.n > $1.n }
            if best.count > 2 { best.removeLast() }
        }
        #expect(ids(docs[3]) == best.map { "r\($0.n)" })
        let exported = (docs[4]["result"] as? [String: Any])?["exported"] as? Int
        #expect(exported == rows)
        let text = try String(contentsOfFile: export, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == rows + 1)
        #expect(lines.dropFirst().first?.hasPrefix("\(best[0].n),") == true, "\(lines.prefix(2))")
        let spool = (try? FileManager.default.contentsOfDirectory(atPath: dir.state + "/spool")) ?? []
        #expect(spool.isEmpty, "no spool left after quit: \(spool)")
    }
}
