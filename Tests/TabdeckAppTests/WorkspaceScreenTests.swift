import Foundation
import Testing
@testable import TabdeckApp

/// The full screen in-process on the default workspace and on configs of their own, with the
/// real plugins (csv, sqlite, processes, files, the SDK demo): what tmux once drove through the
/// binary, now through the shell's own loop (``ScreenDriver``). The real terminal's own path
/// (readline's `:` line, SIGWINCH, job control, crash handlers) stays in EndToEndTests.
@Suite(.serialized, .timeLimit(.minutes(5))) struct WorkspaceScreenTests {
    static var csvBuilt: Bool { Repo.csvBuilt || ProcessInfo.processInfo.environment["TABDECK_BIN_DIR"] != nil }

    @Test(.enabled(if: csvBuilt)) func switchTabsSortSelectAndDrillDown() throws {
        let dir = TempDir()
        let s = try ScreenDriver(config: Repo.path("config.json"), state: dir.file("state"))
        defer { s.close() }
        s.waitFor("row 1 of 200")
        #expect(s.lines[0].contains("id name"))
        s.keys("l", "l", "s")  // sort by the third column (age)
        s.waitFor("age ↑")
        s.keys("s")
        s.waitForRows("age ↓")  // Space selects a loaded row only
        s.keys("j", "j", "Space")
        s.waitFor("1 selected")
        s.keys("Tab")  // the next tab: the sample database
        s.waitUntil { $0.joined().contains("Sample DB") && !$0.joined().contains("row 1 of 200") }
        s.keys("3")  // the processes tab
        s.waitFor("watching")
        s.keys("5")  // SDK demo: rows have children
        s.waitForRows("row 1 of 500")
        s.keys("Enter")
        s.waitFor("SDK demo > ")
        s.keys("BSpace")
        s.waitUntil { !$0.joined().contains("SDK demo > ") && $0.joined().contains("row 1 of 500") }
        s.keys("?")
        s.waitFor("help · ↑↓ PgUp PgDn scroll")  // the key list is long: its commands are further down
        s.keys("x")  // any other key closes it (a lone Esc does too: LoneEscapeTests)
        s.waitUntil { !$0.joined().contains("help · ") && $0.joined().contains("row 1 of 500") }
    }

    @Test(.enabled(if: csvBuilt)) func narrowTerminalShowsATabBarAndResizeRelaysOut() throws {
        let dir = TempDir()
        let s = try ScreenDriver(config: Repo.path("config.json"), state: dir.file("state"))
        defer { s.close() }
        s.waitFor("row 1 of 200")
        #expect(s.lines[1].contains("│"))  // sidebar at 120 columns
        s.resize(width: 60, height: 20)
        s.waitUntil { lines in lines[0].contains("People") && !lines[1].contains("│") }
        #expect(s.lines.count == 20)
        s.resize(width: 120, height: 40)
        s.waitUntil { $0[1].contains("│") }
    }

    @Test func sectionHeadersFootersAndTheSectionIndex() throws {
        // The files plugin on a folder of its own: 2 folders, 3 files.
        let dir = TempDir()
        for sub in ["docs", "src"] { try FileManager.default.createDirectory(atPath: dir.file("tree/" + sub), withIntermediateDirectories: true) }
        for (name, size) in [("a.txt", 1000), ("b.md", 400), ("c.swift", 200)] {
            try String(repeating: "x", count: size).write(toFile: dir.file("tree/" + name), atomically: true, encoding: .utf8)
        }
        let config = try writeConfig(dir, [TabSpec(id: "files", command: ["python3", Repo.path("Plugins/files/files.py")],
                                                   args: ["path": dir.file("tree")], title: "Files")])
        let s = try ScreenDriver(config: config, state: dir.file("state"))
        defer { s.close() }
        s.waitFor("row 1 of 5")
        s.waitFor("a.txt")  // the rows, not only the count from `open`
        let lines = s.lines
        let header = try #require(lines.firstIndex { $0.contains("Folders ───") })
        #expect(lines[header + 1].contains("docs") && lines[header + 2].contains("src"))
        #expect(lines[header + 3].contains("2 folders"))
        #expect(lines[header + 4].contains("Files ───"))
        #expect(lines[header + 5].contains("a.txt") && lines[header + 8].contains("3 files, 1.6 kB"))
        s.keys("i")
        s.waitFor("section: ▏ Folders · Files")
        s.type("fi")
        s.waitFor("section: fi▏ Files")
        s.keys("Enter")
        s.waitFor("row 3 of 5")  // the first row of Files; header rows are not counted
        s.keys("j", "j", "j")
        s.waitFor("row 5 of 5")  // never on a header or footer
    }

    @Test(.enabled(if: csvBuilt)) func theWorkspaceComesBackAfterARestart() throws {
        let dir = TempDir()
        do {
            let s = try ScreenDriver(config: Repo.path("config.json"), state: dir.file("state"))
            s.waitFor("row 1 of 200")
            s.keys("l", "s")  // sort by name
            s.waitFor("name ↑")
            s.keys("g")  // the cursor kept its row (now far down): back to the top
            s.waitFor("row 1 of 200")
            s.keys("j", "j", "j")
            s.waitFor("row 4 of 200")
            s.keys("7")  // select the bash example tab
            s.waitFor("row 1 of 1,000")
            s.keys("q")
            s.waitForQuit()
        }
        let again = try ScreenDriver(config: Repo.path("config.json"), state: dir.file("state"))
        defer { again.close() }
        again.waitFor("row 1 of 1,000")
        again.keys("1")
        again.waitFor("row 4 of 200")
        #expect(again.lines[0].contains("name ↑"))
    }

    /// The mouse: reporting is asked of the terminal in full screen; SGR reports typed as bytes
    /// sort by a header, scroll with the wheel, move the cursor with a click, select a tab in the
    /// sidebar. (The modes reaching a real terminal, and given back: EndToEndTests under tmux.)
    @Test(.enabled(if: csvBuilt)) func sgrMouseReportsDriveTheScreen() throws {
        let dir = TempDir()
        let s = try ScreenDriver(config: Repo.path("config.json"), state: dir.file("state"))
        defer { s.close() }
        s.waitFor("row 1 of 200")
        #expect(s.terminal.mouseReporting)
        /// The 1-based cell of the first `text` on line `y` (0-based); the screen's glyphs are one cell each.
        func cell(_ text: String, line y: Int) throws -> (x: Int, y: Int) {
            let line = s.lines[y]
            let at = try #require(line.range(of: text), "no \(text) on line \(y): \(line)")
            return (line.distance(from: line.startIndex, to: at.lowerBound) + 1, y + 1)
        }
        let age = try cell(" age", line: 0)
        s.sgr(0, age.x + 1, age.y)  // press and release on the header
        s.waitFor("age ↑")
        s.sgr(0, age.x + 1, age.y)
        s.waitFor("age ↓")
        s.keys("g")  // the cursor kept its row through the sort: back to the top
        s.waitFor("row 1 of 200")
        let row = try cell("│", line: 5)
        s.sgr(65, row.x + 10, row.y, release: false)  // a notch of the wheel scrolls three rows:
        s.waitFor("row 4 of 200")  // the cursor's row left the view, it takes the first in view
        s.sgr(0, row.x + 10, row.y)  // a click on the fifth line: the fifth row on screen, now row 8
        s.waitFor("row 8 of 200")
        let tab = try cell("Sample DB", line: 2)
        s.sgr(0, tab.x, tab.y)
        s.waitUntil { !$0.joined().contains("row 8 of 200") && $0.joined().contains("Sample DB") }
    }

    /// `f` opens the command line with `filter ` typed; the csv plugin filters; `filter clear`
    /// shows every row again with the cursor on the row it was on. (The `:` line is read by
    /// the driver here, readline's own behaviour under tmux: EndToEndTests.)
    @Test(.enabled(if: csvBuilt)) func fFiltersThroughThePluginAndFilterClearShowsAll() throws {
        let dir = TempDir()
        let s = try ScreenDriver(config: Repo.path("config.json"), state: dir.file("state"))
        defer { s.close() }
        s.waitFor("row 1 of 200")
        s.type("f")
        s.type("zürich\r")
        s.waitFor("row 1 of 19")  // the csv plugin's count of rows with "zürich"
        s.waitFor("filter: zürich")
        s.waitUntil { $0.dropFirst().dropLast().filter { $0.contains("Zürich") }.count == 19 }
        s.type(":filter clear\r")
        // The cursor keeps its row (the csv plugin answers `locate`): id 7, the first Zürich row.
        s.waitFor("row 7 of 200")
        #expect(!s.lines.last!.contains("filter:"))
    }
}
