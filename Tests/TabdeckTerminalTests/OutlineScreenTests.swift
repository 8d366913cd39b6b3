import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Expand in place (`o`), the detail line (`v`), refresh (`r`) and redraw (Ctrl-L), as screens.
@Suite struct OutlineScreenTests {
    static func file(_ id: String, _ name: String, _ size: Int?, detail: String? = nil, folder: Bool = false) -> Row {
        Row(id: id, cells: [.string(name), size.map { .int(Int64($0)) } ?? .null], detail: detail, hasChildren: folder)
    }

    /// A folder tree: src (main.swift, lib (util.swift)), docs (guide.md), README.
    static func tree(top: [Row]? = nil) -> FakeTable {
        let top = top ?? [file("src", "src", nil, folder: true), file("docs", "docs", nil, detail: "2 guides, 4 KB", folder: true),
                          file("readme", "README", 300, detail: "read me first")]
        var t = FakeTable(columns: [ColumnSpec(id: "name", title: "Name"),
                                    ColumnSpec(id: "size", title: "Size", type: .integer, width: .fixed(6))],
                          total: top.count, row: { top[$0] })
        t.children = true
        t.childRows = ["child-src": [file("main", "main.swift", 120), file("lib", "lib", nil, folder: true)],
                       "child-lib": [file("util", "util.swift", 80)],
                       "child-docs": [file("guide", "guide.md", 4000, detail: "how to")]]
        return t
    }

    static func scene(width: Int) -> ScreenScene {
        ScreenScene(Scene(tables: ["people": tree()]), width: width, height: 9)
    }

    func table(_ s: ScreenScene) -> TableState { s.scene.ws.tabs["people"]!.table! }

    /// The screen lines drawn in reverse (the cursor's line), right of the sidebar if any.
    func reversedLines(_ s: ScreenScene) -> [Int] {
        let buf = WorkspaceRenderer.render(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)
        return (0..<(buf.height - 1)).filter { y in buf[buf.width - 1, y].style.reverse }
    }

    /// Only rows with children get a marker; `o` expands the cursor row (▾, its children under
    /// it, two cells in), `j j o` the child "lib" inside it, `k k o` collapses "src" again with
    /// everything under it; the cursor walks through the child rows.
    @Test(arguments: [40, 80, 120])
    func oExpandsAndCollapsesTheTreeInPlace(width: Int) {
        var s = Self.scene(width: width)
        #expect(s.lines == Self.collapsed[width])
        s.press(.char("o"))
        #expect(s.lines == Self.expanded[width])
        s.press(.char("j"), .char("j"))
        #expect(table(s).cursorPosition == OutlinePosition(row: 0, path: [1]))
        s.press(.char("o"))
        #expect(s.lines == Self.nested[width])
        #expect(reversedLines(s) == [s.lines.firstIndex { $0.contains("▾lib") }!], "the cursor is on the child row lib")
        #expect(table(s).view.expanded == [["src"], ["src", "lib"]])
        s.press(.char("j"))
        #expect(table(s).cursorPosition == OutlinePosition(row: 0, path: [1, 0]))
        s.press(.char("k"), .char("k"), .char("k"), .char("o"))
        #expect(s.lines == Self.collapsedAgain[width])
        #expect(table(s).view.expanded.isEmpty && table(s).cursorPosition == OutlinePosition(row: 0, path: []))
    }

    /// A child table with columns of its own (a process's threads: tid, name, CPU s): its rows
    /// show every cell, folded into one line, not only the cells of the columns both share.
    @Test(arguments: [40, 80, 120])
    func childRowsOfAnotherShapeShowEveryCell(width: Int) {
        var tree = Self.tree()
        tree.childColumns = ["child-docs": [ColumnSpec(id: "tid", title: "TID", type: .integer),
                                            ColumnSpec(id: "name", title: "Name"),
                                            ColumnSpec(id: "cpu", title: "CPU s", type: .decimal)]]
        tree.childRows["child-docs"] = [Row(id: "t1", cells: [.int(4012), .string("worker"), .double(1.5)])]
        var s = ScreenScene(Scene(tables: ["people": tree]), width: width, height: 9)
        s.press(.char("j"), .char("o"))
        #expect(s.lines == Self.otherShape[width], "\(s.lines.map { "\"\($0)\"," }.joined(separator: "\n"))")
    }

    /// A row with a million children: only the pages of child rows that can be on screen are
    /// fetched; deep inside them the screen shows the child rows around the cursor, with the
    /// detail line kept on screen under it.
    @Test(arguments: [40, 80, 120])
    func aMillionChildrenArePagedLazily(width: Int) {
        var people = FakeTable.people()
        let plain = people.row
        people.row = { i in var r = plain(i); r.hasChildren = i == 0; r.detail = "person \(i)"; return r }
        people.children = true
        var s = ScreenScene(Scene(tables: ["people": people]), width: width, height: 8)
        s.press(.char("o"))
        for _ in 0..<120 { s.press(.char("j")) }
        s.press(.char("v"))
        #expect(table(s).cursorPosition == OutlinePosition(row: 0, path: [119]))
        #expect(table(s).outline[["p0"]]?.cache.cachedPages == [0, 1])
        #expect(table(s).outline[["p0"]]?.total == 1_000_000)
        #expect(s.lines == Self.deepInside[width])
    }

    /// `d` on a child row shows that row's fields (its own table's columns); Enter and space on
    /// it are refused with a message, the tree stays.
    @Test(arguments: [40, 80, 120])
    func aChildRowHasItsDetailViewAndIsNotDrilledIntoOrSelected(width: Int) {
        var s = Self.scene(width: width)
        s.press(.char("o"), .char("j"), .char("d"))
        #expect(s.lines == Self.childDetailView[width])
        s.press(.escape, .enter)
        #expect(s.lines == Self.childRefusesEnter[width])
        s.press(.char(" "))
        #expect(s.model.ui.message == .init("only the table's own rows can be selected", isError: true))
        #expect(table(s).view.selection.isEmpty && s.scene.ws.tabs["people"]!.stack.count == 1)
    }

    /// The detail line of the last row on screen scrolls the view by a line to show it.
    @Test(arguments: [40, 80, 120])
    func theDetailLineOfTheLastRowOnScreenScrollsTheView(width: Int) {
        var people = FakeTable.people()
        let plain = people.row
        people.row = { i in var r = plain(i); r.detail = "person \(i)"; return r }
        var s = ScreenScene(Scene(tables: ["people": people]), width: width, height: 8)
        let rows = WorkspaceRenderer.tableRows(workspace: s.scene.ws, size: s.model.size)
        for _ in 1..<rows { s.press(.char("j")) }  // onto the last row on screen
        s.press(.char("v"))
        #expect(table(s).view.cursor == rows - 1)
        #expect(s.lines == Self.lastRowDetailLine[width])
    }

    /// When `children` failed, the expanded row says why on a line under it (in the table's
    /// area, drawn from a table state).
    @Test(arguments: [40, 80, 120])
    func aFailedExpansionSaysWhyUnderTheRow(width: Int) {
        let top = Self.tree()
        let d = TableDescription(table: "root", columns: top.columns, total: 2)
        var t = TableState(key: "", description: d,
                           view: TableViewState(columns: [.init(id: "name"), .init(id: "size")], expanded: [["src"]]),
                           label: "Files", cache: PageCache())
        t.cache.store(page: 0, rows: [top.row(0), top.row(2)])
        var child = OutlineChild(cache: PageCache())
        child.failure = "children of src: plugin files: permission denied\u{1b}[31m (code -32603)"
        t.outline[["src"]] = child
        var buf = ScreenBuffer(width: width, height: 5)
        TableView.draw(t, ui: UIState(), into: &buf, Rect(x: 0, y: 0, width: width, height: 5))
        #expect(TestBackend.lines(buf) == Self.failedExpansion[width])
    }

    /// `v` puts the cursor row's detail on a line under it (and follows the cursor into the
    /// children); `v` again takes it away.
    @Test(arguments: [40, 80, 120])
    func vShowsTheDetailLineUnderTheCursorRow(width: Int) {
        var s = Self.scene(width: width)
        s.press(.char("j"), .char("v"))
        #expect(s.lines == Self.detailLine[width])
        s.press(.char("o"), .char("j"))
        #expect(s.lines == Self.childDetailLine[width])
        s.press(.char("v"))
        #expect(s.lines == Self.detailLineOff[width])
    }

    /// `r` drops the cached rows and fetches them again: a row inserted at the top shows, and
    /// the cursor stays on README (now row 4). Ctrl-L asks the shell to redraw.
    @Test(arguments: [40, 80, 120])
    func rFetchesTheRowsAgainAndTheCursorKeepsItsRow(width: Int) {
        var s = Self.scene(width: width)
        s.press(.char("j"), .char("j"))
        s.scene.tables["people"] = Self.tree(top: [Self.file("new", "NEW.txt", 1), Self.file("src", "src", nil, folder: true),
                                                   Self.file("docs", "docs", nil, folder: true), Self.file("readme", "README", 310)])
        #expect(s.lines == Self.beforeRefresh[width])  // the cache still holds the old rows
        s.press(.char("r"))
        #expect(s.lines == Self.refreshed[width])
        #expect(table(s).cache.row(at: table(s).view.cursor)?.id == "readme")
        s.press(.ctrl("l"))
        #expect(s.redraws == 2)
    }

    static let collapsed: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▸docs",
                "  README                             300",
                "",
                "",
                "",
                "row 1 of 3                        ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▸docs",
                "  README                                                                     300",
                "",
                "",
                "",
                "row 1 of 3                                                                ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▸docs",
                "                        │  README                                                                                    300",
                " System                 │",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 1 of 3                                                                                                        ? help",
        ],
    ]

    static let expanded: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▾src",
                "    main.swift                       120",
                "   ▸lib",
                " ▸docs",
                "  README                             300",
                "",
                "row 1 of 3                        ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▾src",
                "    main.swift                                                               120",
                "   ▸lib",
                " ▸docs",
                "  README                                                                     300",
                "",
                "row 1 of 3                                                                ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▾src",
                "  $ Orders              │    main.swift                                                                              120",
                "                        │   ▸lib",
                " System                 │ ▸docs",
                "  ⚙ Processes           │  README                                                                                    300",
                "  ≡ Logs                │",
                "                        │",
                "row 1 of 3                                                                                                        ? help",
        ],
    ]

    static let nested: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▾src",
                "    main.swift                       120",
                "   ▾lib",
                "      util.swift                      80",
                " ▸docs",
                "  README                             300",
                "row 1 of 3 › 2 of 2               ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▾src",
                "    main.swift                                                               120",
                "   ▾lib",
                "      util.swift                                                              80",
                " ▸docs",
                "  README                                                                     300",
                "row 1 of 3 › 2 of 2                                                       ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▾src",
                "  $ Orders              │    main.swift                                                                              120",
                "                        │   ▾lib",
                " System                 │      util.swift                                                                             80",
                "  ⚙ Processes           │ ▸docs",
                "  ≡ Logs                │  README                                                                                    300",
                "                        │",
                "row 1 of 3 › 2 of 2                                                                                               ? help",
        ],
    ]

    static let otherShape: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▾docs",
                "    4012 · worker · 1.5",
                "  README                             300",
                "",
                "",
                "row 2 of 3                        ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▾docs",
                "    4012 · worker · 1.5",
                "  README                                                                     300",
                "",
                "",
                "row 2 of 3                                                                ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▾docs",
                "                        │    4012 · worker · 1.5",
                " System                 │  README                                                                                    300",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 2 of 3                                                                                                        ? help",
        ],
    ]

    static let collapsedAgain: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▸docs",
                "  README                             300",
                "",
                "",
                "",
                "row 1 of 3                        ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▸docs",
                "  README                                                                     300",
                "",
                "",
                "",
                "row 1 of 3                                                                ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▸docs",
                "                        │  README                                                                                    300",
                " System                 │",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 1 of 3                                                                                                        ? help",
        ],
    ]

    static let detailLine: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▸docs",
                "   2 guides, 4 KB",
                "  README                             300",
                "",
                "",
                "row 2 of 3                        ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▸docs",
                "   2 guides, 4 KB",
                "  README                                                                     300",
                "",
                "",
                "row 2 of 3                                                                ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▸docs",
                "                        │   2 guides, 4 KB",
                " System                 │  README                                                                                    300",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 2 of 3                                                                                                        ? help",
        ],
    ]

    static let childDetailLine: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▾docs",
                "    guide.md                        4000",
                "     how to",
                "  README                             300",
                "",
                "row 2 of 3 › 1 of 1               ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▾docs",
                "    guide.md                                                                4000",
                "     how to",
                "  README                                                                     300",
                "",
                "row 2 of 3 › 1 of 1                                                       ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▾docs",
                "                        │    guide.md                                                                               4000",
                " System                 │     how to",
                "  ⚙ Processes           │  README                                                                                    300",
                "  ≡ Logs                │",
                "                        │",
                "row 2 of 3 › 1 of 1                                                                                               ? help",
        ],
    ]

    static let detailLineOff: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▾docs",
                "    guide.md                        4000",
                "  README                             300",
                "",
                "",
                "row 2 of 3 › 1 of 1               ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▾docs",
                "    guide.md                                                                4000",
                "  README                                                                     300",
                "",
                "",
                "row 2 of 3 › 1 of 1                                                       ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▾docs",
                "                        │    guide.md                                                                               4000",
                " System                 │  README                                                                                    300",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 2 of 3 › 1 of 1                                                                                               ? help",
        ],
    ]

    static let beforeRefresh: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▸src",
                " ▸docs",
                "  README                             300",
                "",
                "",
                "",
                "row 3 of 3                        ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▸src",
                " ▸docs",
                "  README                                                                     300",
                "",
                "",
                "",
                "row 3 of 3                                                                ? help",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▸src",
                "  $ Orders              │ ▸docs",
                "                        │  README                                                                                    300",
                " System                 │",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 3 of 3                                                                                                        ? help",
        ],
    ]

    static let refreshed: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                "  NEW.txt                              1",
                " ▸src",
                " ▸docs",
                "  README                             310",
                "",
                "",
                "refreshed People: 4 rows · row 4 of 4",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                "  NEW.txt                                                                      1",
                " ▸src",
                " ▸docs",
                "  README                                                                     310",
                "",
                "",
                "refreshed People: 4 rows · row 4 of 4",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │  NEW.txt                                                                                     1",
                "  $ Orders              │ ▸src",
                "                        │ ▸docs",
                " System                 │  README                                                                                    310",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "refreshed People: 4 rows · row 4 of 4",
        ],
    ]

    static let deepInside: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "    name116          36 done      Lyon",
            "    name117          37 todo      Oslo",
            "    name118          38 doing     Kyoto",
            "    name119          39 done      Lima",
            "     person 119",
            "row 1 of 1,000,000 › 120 of 1,000,000",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "    name116               36 done                       Lyon",
            "    name117               37 todo                       Oslo",
            "    name118               38 doing                      Kyoto",
            "    name119               39 done                       Lima",
            "     person 119",
            "row 1 of 1,000,000 › 120 of 1,000,000                                     ? help",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │    name115               35 doing                              Lima",
            "  $ Orders              │    name116               36 done                               Lyon",
            "                        │    name117               37 todo                               Oslo",
            " System                 │    name118               38 doing                              Kyoto",
            "  ⚙ Processes           │    name119               39 done                               Lima",
            "  ≡ Logs                │     person 119",
            "row 1 of 1,000,000 › 120 of 1,000,000                                                                             ? help",
        ],
    ]

    static let childDetailView: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                " row 1 of 3 › 1 of 2",
                " Name    main.swift",
                " Size    120",
                " row id  main",
                "",
                "",
                "",
                "row 1 of 3 › 1 of 2               ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                " row 1 of 3 › 1 of 2",
                " Name    main.swift",
                " Size    120",
                " row id  main",
                "",
                "",
                "",
                "row 1 of 3 › 1 of 2                                                       ? help",
        ],
        120: [
                " Data                   │ row 1 of 3 › 1 of 2",
                "  ◆ People              │ Name    main.swift",
                "  $ Orders              │ Size    120",
                "                        │ row id  main",
                " System                 │",
                "  ⚙ Processes           │",
                "  ≡ Logs                │",
                "                        │",
                "row 1 of 3 › 1 of 2                                                                                               ? help",
        ],
    ]

    static let childRefusesEnter: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name                              Size",
                " ▾src",
                "    main.swift                       120",
                "   ▸lib",
                " ▸docs",
                "  README                             300",
                "",
                "child rows expand in place: press o · r…",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                                                                      Size",
                " ▾src",
                "    main.swift                                                               120",
                "   ▸lib",
                " ▸docs",
                "  README                                                                     300",
                "",
                "child rows expand in place: press o · row 1 of 3 › 1 of 2",
        ],
        120: [
                " Data                   │  Name                                                                                     Size",
                "  ◆ People              │ ▾src",
                "  $ Orders              │    main.swift                                                                              120",
                "                        │   ▸lib",
                " System                 │ ▸docs",
                "  ⚙ Processes           │  README                                                                                    300",
                "  ≡ Logs                │",
                "                        │",
                "child rows expand in place: press o · row 1 of 3 › 1 of 2",
        ],
    ]

    static let lastRowDetailLine: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name              Age Status    City",
                "  name1              21 doing     Oslo",
                "  name2              22 done      Kyoto",
                "  name3              23 todo      Lima",
                "  name4              24 doing     Lyon",
                "   person 4",
                "row 5 of 1,000,000                ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                   Age Status                     City",
                "  name1                   21 doing                      Oslo",
                "  name2                   22 done                       Kyoto",
                "  name3                   23 todo                       Lima",
                "  name4                   24 doing                      Lyon",
                "   person 4",
                "row 5 of 1,000,000                                                        ? help",
        ],
        120: [
                " Data                   │  Name                   Age Status                             City",
                "  ◆ People              │  name1                   21 doing                              Oslo",
                "  $ Orders              │  name2                   22 done                               Kyoto",
                "                        │  name3                   23 todo                               Lima",
                " System                 │  name4                   24 doing                              Lyon",
                "  ⚙ Processes           │  name5                   25 done                               Oslo",
                "  ≡ Logs                │   person 5",
                "row 6 of 1,000,000                                                                                                ? help",
        ],
    ]

    static let failedExpansion: [Int: [String]] = [
        40: [
                "  Name                              Size",
                " ▾src",
                "     ! children of src: plugin files: pe",
                "  README                             300",
                "",
        ],
        80: [
                "  Name                                                                      Size",
                " ▾src",
                "     ! children of src: plugin files: permission denied\\e[31m (code -32603) (r r",
                "  README                                                                     300",
                "",
        ],
        120: [
                "  Name                                                                                                              Size",
                " ▾src",
                "     ! children of src: plugin files: permission denied\\e[31m (code -32603) (r retries)",
                "  README                                                                                                             300",
                "",
        ],
    ]
}
