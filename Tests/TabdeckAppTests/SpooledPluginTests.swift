import Foundation
import Testing
import TabdeckCore
@testable import TabdeckApp

/// The streaming fixture (`Plugins/fixtures/stream_plugin.py`: `sort: false`, `paging: false`)
/// through the real runtime: the host spools its rows and sorts, pages and exports them.
@Suite(hangGuard) struct SpooledPluginTests {
    let dir = TempDir()
    static let plugin = Repo.path("Plugins/fixtures/stream_plugin.py")

    func host(_ options: [String]) throws -> Host {
        try Host(dir, tabs: [TabSpec(id: "stream", command: ["python3", Self.plugin] + options)], output: .json)
    }

    /// The fixture's cells of row i (the same function as in the plugin).
    static func amount(_ i: Int) -> Double? { i % 97 == 0 ? nil : Double(i * 7919 % 100000) + Double(i % 100) / 100 }
    static func state(_ i: Int) -> Int { i * 7 % 3 }  // todo, doing, done

    var spoolFiles: [String] { (try? FileManager.default.contentsOfDirectory(atPath: dir.file("state/spool"))) ?? [] }

    @Test func sortsPagesAndExportsAStreamedTable() async throws {
        let n = 100_000
        let h = try host(["--rows", String(n)])
        let sort = await h.run("sort amount desc")
        #expect(sort.ok, "\(sort)")
        let first = await h.run("show 5")
        #expect(first.ok, "\(first)")
        // Amount descending (nulls last), ties by arrival.
        let expected = (0..<n).sorted { a, b in
            switch (Self.amount(a), Self.amount(b)) {
            case let (x?, y?): x != y ? x > y : a < b
            case (_?, nil): true
            case (nil, _?): false
            case (nil, nil): a < b
            }
        }
        #expect(first.rows.map(\.id) == expected.prefix(5).map { "r\($0)" })
        // Deep pages (through a materialized order) and the end of the table.
        #expect((await h.run("goto 50001")).ok)
        let deep = await h.run("show 3")
        #expect(deep.rows.map(\.id) == expected[50000..<50003].map { "r\($0)" }, "\(deep)")
        // Two keys: the enum by its values' order, then amount descending.
        #expect((await h.run("sort state")).ok)
        // The cursor keeps its offset (the spool answers no `locate`): go back to the top.
        #expect((await h.run("goto 1")).ok)
        let two = await h.run("show 3").rows
        let expectedTwo = (0..<n).filter { Self.state($0) == 0 }.sorted { a, b in
            (Self.amount(a) ?? -1, b) > (Self.amount(b) ?? -1, a)
        }
        #expect(two.map(\.id) == expectedTwo.prefix(3).map { "r\($0)" })
        // Export goes through the spool: every row, in the current order.
        let path = dir.file("out.csv")
        let export = await h.run("export \(path)")
        #expect(export.ok, "\(export)")
        let lines = dir.read("out.csv").split(separator: "\n")
        #expect(lines.count == n + 1)
        #expect(lines.dropFirst().prefix(3).map { String($0.split(separator: ",")[0]) } == expectedTwo.prefix(3).map { String($0) })
        #expect(spoolFiles.count == 1)
        await h.shutdown()
        #expect(spoolFiles.isEmpty, "the spool is deleted on quit: \(spoolFiles)")
    }

    @Test func rowsAreUsableBeforeTheStreamEndsWithProgress() async throws {
        // The plugin sends 10,000 of its 40,000 rows, then holds until the test creates `go`.
        let go = dir.file("go")
        let h = try host(["--rows", "40000", "--chunk", "500", "--pause-after", "10000", "--hold", go])
        let early = await h.run("show 3")
        #expect(early.ok, "\(early)")
        #expect(early.rows.map(\.id) == ["r0", "r1", "r2"], "rows before the stream ends")
        // The progress bar shows the rows received so far.
        // The host handles the plugin's events until the progress reaches the rows sent, however
        // loaded the machine (the suite's hang guard bounds it).
        await h.on("waiting for the progress") { $0.wait { ($0.tabs["stream"]?.progress?.done ?? 0) >= 10000 } }
        let progress = await h.tab("stream")?.progress
        #expect(progress?.done == 10000 && progress?.total == 40000, "\(String(describing: progress))")
        FileManager.default.createFile(atPath: go, contents: Data())
        // A sort waits for every row.
        #expect((await h.run("sort n desc")).ok)
        let sorted = await h.run("show 2")
        #expect(sorted.rows.map(\.id) == ["r39999", "r39998"], "\(sorted)")
        #expect(await h.tab("stream")?.progress == nil, "the progress bar ends with the stream")
        await h.shutdown()
    }

    @Test func aPluginThatCannotFilterIsFilteredByTheSpool() async throws {
        let h = try host(["--rows", "2000"])
        let filtered = await h.run("filter CARL")  // the names "Carl …": rows 2, 10, 18, …
        #expect(filtered.ok, "\(filtered)")
        #expect(filtered.out.contains("\"total\":250"), "\(filtered.out)")
        #expect((await h.run("sort n desc")).ok)
        #expect((await h.run("show 2")).rows.map(\.id) == ["r1994", "r1986"])
        #expect((await h.run("filter clear")).ok)
        // The cursor keeps its row: r1994 is row 6 of all rows by n descending, and the view
        // follows it there.
        #expect((await h.run("show 1")).rows.map(\.id) == ["r1994"])
        #expect((await h.run("goto 1")).ok)
        #expect((await h.run("show 1")).rows.map(\.id) == ["r1999"])
        await h.shutdown()
    }

    @Test func theSpoolsAnswersAreTraced() async throws {
        var tab = TabSpec(id: "stream", command: ["python3", Self.plugin, "--rows", "2000"])
        tab.trace = true
        let h = try Host(dir, tabs: [tab], output: .json)
        #expect((await h.run("sort n desc")).ok)
        #expect((await h.run("show 2")).rows.map(\.id) == ["r1999", "r1998"])
        await h.shutdown()
        let lines = dir.read("state/logs/stream.trace").split(separator: "\n").map(String.init)
        // The one streamed request goes to the plugin; the core's pages are answered by the spool.
        #expect(lines.contains { $0.contains(" stream → ") && $0.contains("\"stream\":true") }, "\(lines.prefix(5))")
        #expect(lines.contains { $0.contains(" stream ← ") && $0.contains("rows/chunk") })
        let toSpool = lines.filter { $0.contains(" stream ⇢ ") }
        #expect(!toSpool.isEmpty && toSpool.allSatisfy { $0.contains("\"method\":\"rows\"") && !$0.contains("\"stream\":true") })
        #expect(lines.contains { $0.contains(" stream ⇠ ") && $0.contains("\"r1999\"") })
        #expect(lines.contains { $0.contains(" stream ⇠ ") && $0.contains("\"invalidate\"") })
    }

    @Test func aCrashMidStreamIsAClearErrorAndLeavesNoSpool() async throws {
        let h = try host(["--rows", "50000", "--crash-after", "20000"])
        #expect((await h.run("sort n desc")).ok)
        let shown = await h.run("show 3")
        #expect(!shown.ok)
        #expect(shown.err.contains("stream") && shown.err.contains("status 3"), "\(shown.err)")
        await eventually { spoolFiles.isEmpty }  // the plugin's exit deletes its spool
        #expect(h.log("stream").contains("stopped after 20000 rows"), "\(h.log("stream"))")
        await h.shutdown()
    }

    @Test func aPluginThatPagesButCannotSortIsSortedByTheHost() async throws {
        let h = try host(["--rows", "3000", "--paging"])
        let natural = await h.run("show 2")
        #expect(natural.rows.map(\.id) == ["r0", "r1"], "\(natural)")
        #expect((await h.run("sort n desc")).ok)
        let sorted = await h.run("show 2")
        #expect(sorted.rows.map(\.id) == ["r2999", "r2998"], "\(sorted)")
        let path = dir.file("paged.csv")
        #expect((await h.run("export \(path)")).ok)
        #expect(dir.read("paged.csv").split(separator: "\n").count == 3001)
        await h.shutdown()
    }
}
