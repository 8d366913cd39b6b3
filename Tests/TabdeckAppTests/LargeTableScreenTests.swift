import Foundation
import Testing
@testable import TabdeckApp

/// A million-row CSV in the full screen, in-process (``ScreenDriver``) with the real csv plugin:
/// `G` reaches the end, `/` finds beyond the rows loaded, `n` and `N` step between matches.
@Suite(.timeLimit(.minutes(5))) struct LargeTableScreenTests {
    @Test(.enabled(if: WorkspaceScreenTests.csvBuilt)) func scrollsAMillionRowTableToTheEnd() throws {
        let dir = TempDir()
        let csv = dir.file("big.csv")
        let gen = Process()
        gen.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gen.arguments = ["python3", Repo.path("Plugins/csv/gen_csv.py"), "1000000", csv]
        try gen.run()
        gen.waitUntilExit()
        try #require(gen.terminationStatus == 0, "gen_csv.py failed")
        let config = try writeConfig(dir, [TabSpec(id: "big", command: [Repo.csvPlugin], args: ["path": csv], title: "Big")])
        let s = try ScreenDriver(config: config, state: dir.file("state"))
        defer { s.close() }
        s.waitFor("row 1 of 1,000,000")
        s.keys("G")
        s.waitFor("row 1,000,000 of 1,000,000")
        // The last rows are on screen, the widest id uncut (the plugin's width hints fit it).
        s.waitUntil { $0.contains { $0.contains(" 1000000 ") } }
        s.keys("g")
        s.waitFor("row 1 of 1,000,000")
        // `/` finds beyond the rows loaded (the plugin is asked page by page); `n` finds the next.
        s.keys("/")
        s.type("12345")
        s.keys("Enter")
        s.waitFor(#"found "12345" at row 12,345"#)
        s.waitFor("row 12,345 of 1,000,000")
        s.keys("n")
        s.waitFor(#"found "12345" at row 112,345"#)
        s.keys("N")
        s.waitFor(#"found "12345" at row 12,345"#)
    }
}
