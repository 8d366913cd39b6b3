import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Point 10 on screen: ASCII mode, help at 40 columns, long titles and badges, sections that
/// follow filters and invalidations.
@Suite struct SmallThingsScreenTests {
    // MARK: ASCII

    @Test func asciiComesFromTheEnvironment() {
        #expect(UIState.wantsASCII(environment: ["TERM": "dumb"]))
        #expect(UIState.wantsASCII(environment: ["TERM": "xterm-mono"]))
        #expect(UIState.wantsASCII(environment: ["TERM": ""]))
        #expect(!UIState.wantsASCII(environment: [:]))
        // NO_COLOR turns colour off, not box characters: the terminal still draws them.
        #expect(!UIState.wantsASCII(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"]))
        #expect(!UIState.wantsASCII(environment: ["TERM": "xterm-256color", "NO_COLOR": ""]))
        #expect(!ANSIWriter(environment: ["TERM": "dumb"]).colors)
    }

    /// Sorted, a row selected and a find running: `|` and `-` borders, `^`, `*`, `>`, `...`, an
    /// ASCII spinner; no character outside ASCII on screen (but the plugin's data).
    @Test(arguments: [40, 80, 120])
    func asciiScreen(width: Int) {
        var table = FakeTable.people()
        table.children = true
        let rows = table.row
        table.row = { i in var r = rows(i); r.hasChildren = i == 1; return r }
        var s = ScreenScene(Scene(tables: ["people": table]), width: width, height: 7)
        s.model.ui.ascii = true
        s.press(.char("l"), .char("s"), .char("j"), .char(" "))
        s.scene.tables["people"]!.hold = { $0 >= 300 }
        s.press(.char("/"))
        s.type("nowhere")
        s.press(.enter)
        s.input(.timer(now: 0))
        s.input(.timer(now: 0.25))
        check(s.lines, Self.ascii[width], "ascii \(width)")
        #expect(s.lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
    }

    static let ascii: [Int: [String]] = [
        40: [
            " People  $ Orders  Processes  Logs",
            "  Name            Age ^ Status    City",
            "  name0              20 todo      Lyon",
            "*>name1              21 doing     Oslo",
            "  name2              22 done      Kyoto",
            "  name3              23 todo      Lima",
            "- find \"nowhere\" ----- 0% 998/1,000,0...",
        ],
        80: [
            " People  $ Orders  Processes  Logs",
            "  Name                 Age ^ Status                     City",
            "  name0                   20 todo                       Lyon",
            "*>name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "  name3                   23 todo                       Lima",
            "- find \"nowhere\" ---------- 0% 998/1,000,000 - 0.2 s - Esc cancels - row 2 of ..",
        ],
        120: [
            " Data                   |  Name                 Age ^ Status                             City",
            "    People              |  name0                   20 todo                               Lyon",
            "  $ Orders              |*>name1                   21 doing                              Oslo",
            "                        |  name2                   22 done                               Kyoto",
            " System                 |  name3                   23 todo                               Lima",
            "    Processes           |  name4                   24 doing                              Lyon",
            "- find \"nowhere\" ---------- 0% 998/1,000,000 - 0.2 s - Esc cancels - row 2 of 1,000,000 - 1 selected - sort: Age ^",
        ],
    ]

    /// Section headers and footers in ASCII.
    @Test(arguments: [40, 80, 120])
    func asciiSections(width: Int) {
        var s = ScreenScene(Scene(tables: ["people": SectionScreenTests.folder()]), width: width, height: 9)
        s.model.ui.ascii = true
        check(s.lines, Self.asciiSections[width], "asciiSections \(width)")
    }

    static let asciiSections: [Int: [String]] = [
        40: [
            " People  $ Orders  Processes  Logs",
            "  Name         Size",
            "  Folders ------------------------------",
            "  docs",
            "  src",
            "  tests",
            "   3 folders",
            "  Files --------------------------------",
            "row 1 of 7                        ? help",
        ],
        80: [
            " People  $ Orders  Processes  Logs",
            "  Name         Size",
            "  Folders ----------------------------------------------------------------------",
            "  docs",
            "  src",
            "  tests",
            "   3 folders",
            "  Files ------------------------------------------------------------------------",
            "row 1 of 7                                                                ? help",
        ],
        120: [
            " Data                   |  Name         Size",
            "    People              |  Folders -------------------------------------------------------------------------------------",
            "  $ Orders              |  docs",
            "                        |  src",
            " System                 |  tests",
            "    Processes           |   3 folders",
            "    Logs                |  Files ---------------------------------------------------------------------------------------",
            "                        |  a.txt         300",
            "row 1 of 7                                                                                                        ? help",
        ],
    ]

    // MARK: Help

    /// Every key and command with its whole description, at any width: nothing is cut.
    @Test(arguments: [40, 80, 120])
    func helpWrapsWithoutLosingText(width: Int) {
        let (lines, leftWidth) = HelpView.lines(.standard, width: width)
        for line in lines {
            #expect(TextFit.width(line.left) <= width - 1, "\(line.left)")
            if !line.right.isEmpty { #expect(leftWidth + TextFit.width(line.right) <= width - 1, "\(line.right)") }
        }
        let words: [Substring] = lines.flatMap { ($0.left + " " + $0.right).split(separator: " ") }
        var expected: [Substring] = []
        for e in KeyMap.standard.helpEntries { expected += (e.keys + " " + e.description).split(separator: " ") }
        for c in CommandParser.catalog { expected += (c.usage + " " + c.summary).split(separator: " ") }
        // In order: each expected word is found after the one before.
        var rest = words[...]
        for word in expected {
            guard let i = rest.firstIndex(of: word) else { Issue.record("help lost \"\(word)\" at \(width)"); break }
            rest = rest[(i + 1)...]
        }
        var s = ScreenScene(width: width, height: 12)
        s.press(.char("?"))
        check(s.lines, Self.help[width], "help \(width)")
    }

    static let help: [Int: [String]] = [
        40: [
            " Keys",
            "   ↓ j",
            "     move-down: move down a row",
            "   ↑ k",
            "     move-up: move up a row",
            "   PgDn",
            "     page-down: next page",
            "   PgUp",
            "     page-up: previous page",
            "   g Home",
            "     top: first row",
            "help · ↑↓ scroll · Esc closes",
        ],
        80: [
            " Keys",
            "   ↓ j                           move-down: move down a row",
            "   ↑ k                           move-up: move up a row",
            "   PgDn                          page-down: next page",
            "   PgUp                          page-up: previous page",
            "   g Home                        top: first row",
            "   G End                         bottom: last row (when counted)",
            "   ← h                           column-left: column cursor left",
            "   → l                           column-right: column cursor right",
            "   Tab ]                         next-tab: next tab",
            "   Shift-Tab [                   previous-tab: previous tab",
            "help · ↑↓ PgUp PgDn scroll · Esc or ? closes",
        ],
        120: [
            " Keys",
            "   ↓ j                           move-down: move down a row",
            "   ↑ k                           move-up: move up a row",
            "   PgDn                          page-down: next page",
            "   PgUp                          page-up: previous page",
            "   g Home                        top: first row",
            "   G End                         bottom: last row (when counted)",
            "   ← h                           column-left: column cursor left",
            "   → l                           column-right: column cursor right",
            "   Tab ]                         next-tab: next tab",
            "   Shift-Tab [                   previous-tab: previous tab",
            "help · ↑↓ PgUp PgDn scroll · Esc or ? closes",
        ],
    ]

    // MARK: Titles and badges

    static func badgeScene(width: Int) -> ScreenScene {
        let cfg = config(tabs: [
            TabConfig(id: "people", title: "People with a very long title indeed", glyph: "◆", section: "data", command: ["plug"]),
            TabConfig(id: "orders", title: "Orders", glyph: "$", section: "data", command: ["plug"]),
            TabConfig(id: "procs", title: "Processes", glyph: "⚙", section: "sys", command: ["plug"]),
            TabConfig(id: "logs", title: "Logs", glyph: "≡", section: "sys", command: ["plug"]),
        ])
        var s = ScreenScene(Scene(config: cfg, tables: ["people": .people()]), width: width, height: 7)
        s.scene.notify("people", Method.badge, ["value": 3])
        s.scene.notify("orders", Method.badge, ["value": 120_045])
        s.scene.notify("procs", Method.badge, ["value": "新新"])
        s.input(.coreChanged)
        return s
    }

    /// Long titles end with `…`; badges of any width sit right-aligned in one column, the
    /// separator stays put, and every title gets the same room.
    @Test(arguments: [40, 80, 120])
    func longTitlesAndBadges(width: Int) {
        let s = Self.badgeScene(width: width)
        check(s.lines, Self.badges[width], "badges \(width)")
        if width >= WorkspaceRenderer.sidebarThreshold {
            let separator = WorkspaceRenderer.sidebarWidth - 1
            let frame = WorkspaceRenderer.render(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)
            for y in 0..<6 { #expect(frame[separator, y].symbol == "│") }
        }
    }

    static let badges: [Int: [String]] = [
        40: [
            " ◆ People with a very… 3               >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "  name2              22 done      Kyoto",
            "  name3              23 todo      Lima",
            "row 1 of 1,000,000                ? help",
        ],
        80: [
            " ◆ People with a very… 3  $ Orders 120045  ⚙ Processes 新新  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "  name3                   23 todo                       Lima",
            "row 1 of 1,000,000                                                        ? help",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People with…      3 │  name0                   20 todo                               Lyon",
            "  $ Orders       120045 │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            " System                 │  name3                   23 todo                               Lima",
            "  ⚙ Processes      新新 │  name4                   24 doing                              Lyon",
            "row 1 of 1,000,000                                                                                                ? help",
        ],
    ]

    @Test(arguments: [40, 80, 120])
    func longTitlesAndBadgesInASCII(width: Int) {
        var s = Self.badgeScene(width: width)
        s.model.ui.ascii = true
        check(s.lines, Self.asciiBadges[width], "asciiBadges \(width)")
    }

    static let asciiBadges: [Int: [String]] = [
        40: [
            " People with a ve... 3                 >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "  name2              22 done      Kyoto",
            "  name3              23 todo      Lima",
            "row 1 of 1,000,000                ? help",
        ],
        80: [
            " People with a ve... 3  $ Orders 120045  Processes 新新  Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "  name3                   23 todo                       Lima",
            "row 1 of 1,000,000                                                        ? help",
        ],
        120: [
            " Data                   |  Name                   Age Status                             City",
            "    People wi...      3 |  name0                   20 todo                               Lyon",
            "  $ Orders       120045 |  name1                   21 doing                              Oslo",
            "                        |  name2                   22 done                               Kyoto",
            " System                 |  name3                   23 todo                               Lima",
            "    Processes      新新 |  name4                   24 doing                              Lyon",
            "row 1 of 1,000,000                                                                                                ? help",
        ],
    ]

    // MARK: Sections

    /// After a filter the old counts and footers go; the plugin's new ones (sent with the rows)
    /// show; `invalidate` with sections updates them again; clearing the filter brings back the
    /// whole table's.
    @Test(arguments: [40, 80, 120])
    func sectionsFollowFilterAndInvalidate(width: Int) {
        var folder = SectionScreenTests.folder()
        folder.filter = true
        folder.rowsSections = { filter in
            filter == nil ? nil : [SectionSpec(id: "dirs", title: "Folders", footer: "1 folder", count: 1),
                                   SectionSpec(id: "files", title: "Files", footer: "2 files, 800 B", count: 2)]
        }
        var s = ScreenScene(Scene(tables: ["people": folder]), width: width, height: 9)
        s.input(.promptClosed("filter t"))  // tests, a.txt, c.swift
        check(s.lines, Self.filtered[width], "filtered \(width)")
        // The plugin renames a section's footer (and no longer sends sections with rows).
        s.scene.tables["people"]!.rowsSections = nil
        s.scene.notify("people", Method.invalidate, ["table": "root", "sections": [
            ["id": "dirs", "title": "Folders", "footer": "1 folder (2 without t)", "count": 1],
            ["id": "files", "title": "Files", "footer": "2 files, 800 B", "count": 2]]])
        s.input(.coreChanged)
        check(s.lines, Self.invalidated[width], "invalidated \(width)")
        // Clearing the filter: the cursor keeps its row ("tests", now row 3) and its line on screen.
        s.input(.promptClosed("filter clear"))
        check(s.lines, Self.cleared[width], "cleared \(width)")
    }

    static let filtered: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name         Size",
            "  Folders ──────────────────────────────",
            "  tests",
            "   1 folder",
            "  Files ────────────────────────────────",
            "  a.txt         300",
            "  c.swift       500",
            "filter: \"t\" (3 rows) · row 1 of 3 · fil…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name         Size",
            "  Folders ──────────────────────────────────────────────────────────────────────",
            "  tests",
            "   1 folder",
            "  Files ────────────────────────────────────────────────────────────────────────",
            "  a.txt         300",
            "  c.swift       500",
            "filter: \"t\" (3 rows) · row 1 of 3 · filter: t",
        ],
        120: [
            " Data                   │  Name         Size",
            "  ◆ People              │  Folders ─────────────────────────────────────────────────────────────────────────────────────",
            "  $ Orders              │  tests",
            "                        │   1 folder",
            " System                 │  Files ───────────────────────────────────────────────────────────────────────────────────────",
            "  ⚙ Processes           │  a.txt         300",
            "  ≡ Logs                │  c.swift       500",
            "                        │   2 files, 800 B",
            "filter: \"t\" (3 rows) · row 1 of 3 · filter: t",
        ],
    ]
    static let invalidated: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name         Size",
            "  Folders ──────────────────────────────",
            "  tests",
            "   1 folder (2 without t)",
            "  Files ────────────────────────────────",
            "  a.txt         300",
            "  c.swift       500",
            "filter: \"t\" (3 rows) · row 1 of 3 · fil…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name         Size",
            "  Folders ──────────────────────────────────────────────────────────────────────",
            "  tests",
            "   1 folder (2 without t)",
            "  Files ────────────────────────────────────────────────────────────────────────",
            "  a.txt         300",
            "  c.swift       500",
            "filter: \"t\" (3 rows) · row 1 of 3 · filter: t",
        ],
        120: [
            " Data                   │  Name         Size",
            "  ◆ People              │  Folders ─────────────────────────────────────────────────────────────────────────────────────",
            "  $ Orders              │  tests",
            "                        │   1 folder (2 without t)",
            " System                 │  Files ───────────────────────────────────────────────────────────────────────────────────────",
            "  ⚙ Processes           │  a.txt         300",
            "  ≡ Logs                │  c.swift       500",
            "                        │   2 files, 800 B",
            "filter: \"t\" (3 rows) · row 1 of 3 · filter: t",
        ],
    ]
    static let cleared: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name         Size",
            "  src",
            "  tests",
            "   3 folders",
            "  Files ────────────────────────────────",
            "  a.txt         300",
            "  b.md          400",
            "no filter (7 rows) · row 3 of 7",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name         Size",
            "  src",
            "  tests",
            "   3 folders",
            "  Files ────────────────────────────────────────────────────────────────────────",
            "  a.txt         300",
            "  b.md          400",
            "no filter (7 rows) · row 3 of 7",
        ],
        120: [
            " Data                   │  Name         Size",
            "  ◆ People              │  Folders ─────────────────────────────────────────────────────────────────────────────────────",
            "  $ Orders              │  docs",
            "                        │  src",
            " System                 │  tests",
            "  ⚙ Processes           │   3 folders",
            "  ≡ Logs                │  Files ───────────────────────────────────────────────────────────────────────────────────────",
            "                        │  a.txt         300",
            "no filter (7 rows) · row 3 of 7",
        ],
    ]
}
