import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Copy to the clipboard (issue 16, point 2): `y`, `Y` and `copy` put text on the clipboard
/// through OSC 52 and the status line says what was copied; rows not loaded are read with
/// progress and Esc cancels; too much is refused.
@Suite struct CopyScreenTests {
    /// `y` copies the cursor row, tab-separated, the visible columns in view order.
    @Test(arguments: [40, 80, 120])
    func yCopiesTheCursorRow(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        s.press(.char("j"), .char("y"))
        #expect(s.scene.clipboard == ["name1\t21\tdoing\tOslo"])
        check(s.lines, Self.row[width], "row \(width)")
        // A moved and a hidden column: the copy follows the view.
        s.press(.char("l"), .char(">"), .char("-"), .char("y"))
        #expect(s.scene.clipboard.last == "name1\tdoing\tOslo")
    }

    /// `Y` copies the selected rows with a header line, from the cache when they are all in it.
    @Test(arguments: [40, 80, 120])
    func bigYCopiesTheSelectionWithAHeader(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        s.press(.char(" "), .char("j"), .char("j"), .char(" "))
        let asked = s.scene.requested.count
        s.press(.char("Y"))
        #expect(s.scene.clipboard == ["name\tage\tstatus\tcity\nname0\t20\ttodo\tLyon\nname2\t22\tdone\tKyoto"])
        #expect(s.scene.requested.count == asked, "no row is read again")
        check(s.lines, Self.selection[width], "selection \(width)")
    }

    /// Rows not loaded yet (an "all" selection) are read with progress; Esc cancels.
    @Test(arguments: [40, 80, 120])
    func rowsNotLoadedAreReadWithProgressAndEscCancels(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        s.input(.promptClosed("select all"))
        s.scene.tables["people"]!.hold = { $0 >= 2000 }
        s.press(.char("Y"))
        #expect(s.scene.ws.job?.title == "copy selection")
        s.input(.timer(now: 5))
        check(s.lines, Self.progress[width], "progress \(width)")
        let held = s.scene.held.filter { $0.method == Method.rows }.map(\.id)
        s.press(.escape)
        #expect(s.scene.clipboard == [])
        let cancels = s.scene.sent.filter { $0.method == Method.cancel }.compactMap { $0.params["id"] }
        #expect(Set(cancels) == Set(held.map(\.json)))
        check(s.lines, Self.cancelled[width], "cancelled \(width)")
    }

    /// Above the limit, copy refuses and points to export.
    @Test func tooMuchIsRefused() {
        var s = ScreenScene(width: 80, height: 6)
        s.scene.ws.settings.maxCopyBytes = 100
        s.input(.promptClosed("copy column"))
        #expect(s.scene.clipboard == [])
        #expect(s.scene.failures.last == "copy: more than 100 bytes after 16 rows, too much for a clipboard; use `export FILE` instead")
        #expect(s.lines.last == "copy: more than 100 bytes after 16 rows, too much for a clipboard; use `export …")
    }

    /// `copy cell` and `copy column` at the prompt take the column under the cursor.
    @Test func cellAndColumnTakeTheColumnUnderTheCursor() {
        var s = ScreenScene(Scene(tables: ["people": .people(count: 3)]), width: 80, height: 6)
        s.press(.char("j"), .char("l"))
        s.input(.promptClosed("copy cell"))
        s.input(.promptClosed("copy column --format json"))
        s.input(.promptClosed("copy cell city --format csv"))
        #expect(s.scene.clipboard == ["21", "[\n20,\n21,\n22\n]", "Oslo"])
        #expect(s.lines.last == "copied 1 cell (city), 4 bytes · row 2 of 3")
    }

    /// Cells that hold tabs, line breaks, quotes and escapes: TSV keeps one row a line (tab a
    /// space, line break `\n`), CSV quotes, JSON escapes; no control character reaches the
    /// clipboard but tab and line feed.
    @Test func awkwardCellsInEachFormat() {
        let nasty = FakeTable(columns: [ColumnSpec(id: "a", title: "A"), ColumnSpec(id: "b", title: "B"), ColumnSpec(id: "n", title: "N", type: .decimal, decimals: 2)],
                              total: 1, row: { _ in Row(id: "r", cells: [.string("x\ty\nz"), .string("say \"hi\", \u{1b}[31mred\r"), .double(2.5)]) })
        var scene = Scene(tables: ["people": nasty])
        scene.feed(.refresh)
        scene.run("copy row")
        scene.run("copy row --format csv")
        scene.run("copy row --format json")
        scene.run("select all")
        scene.run("copy selection --format csv")
        #expect(scene.clipboard == [
            "x y\\nz\tsay \"hi\", \\e[31mred\\r\t2.50",
            "\"x\ty\nz\",\"say \"\"hi\"\", \\e[31mred\\r\",2.50",
            #"{"a":"x\ty\nz","b":"say \"hi\", \u001b[31mred\r","n":2.5}"#,
            "a,b,n\n\"x\ty\nz\",\"say \"\"hi\"\", \\e[31mred\\r\",2.50",
        ])
        for text in scene.clipboard {
            #expect(!text.unicodeScalars.contains { Sanitizer.isUnsafe($0) && $0 != "\t" && $0 != "\n" })
        }
        #expect(scene.outputs.suffix(2) == ["all 1 selected", "copied 1 row, 44 bytes"])
    }

    /// The exact bytes: OSC 52 in its plain form, the text in standard Base64, ended by BEL.
    @Test func osc52Bytes() {
        #expect(Clipboard.osc52("name1\t21\tdoing\tOslo") == Array("\u{1b}]52;c;bmFtZTEJMjEJZG9pbmcJT3Nsbw==\u{07}".utf8))
        #expect(Clipboard.osc52("") == Array("\u{1b}]52;c;\u{07}".utf8))
        #expect(Clipboard.osc52("ab") == Array("\u{1b}]52;c;YWI=\u{07}".utf8))
        #expect(Clipboard.osc52("abc") == Array("\u{1b}]52;c;YWJj\u{07}".utf8))
        #expect(Clipboard.osc52("é✓") == Array("\u{1b}]52;c;w6ninJM=\u{07}".utf8))
    }

    static let row: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "  name2              22 done      Kyoto",
            "copied 1 row, 19 bytes · row 2 of 1,000…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "copied 1 row, 19 bytes · row 2 of 1,000,000",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            " System                 │  name3                   23 todo                               Lima",
            "copied 1 row, 19 bytes · row 2 of 1,000,000",
        ],
    ]
    static let selection: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "* name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "* name2              22 done      Kyoto",
            "copied 2 rows, 59 bytes · row 3 of 1,00…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "* name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "* name2                   22 done                       Kyoto",
            "copied 2 rows, 59 bytes · row 3 of 1,000,000 · 2 selected",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │* name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │* name2                   22 done                               Kyoto",
            " System                 │  name3                   23 todo                               Lima",
            "copied 2 rows, 59 bytes · row 3 of 1,000,000 · 2 selected",
        ],
    ]
    static let progress: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "* name0              20 todo      Lyon",
            "* name1              21 doing     Oslo",
            "* name2              22 done      Kyoto",
            "⠋ copy selection ░░░░░ 0% 2,000/1,000,0…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "* name0                   20 todo                       Lyon",
            "* name1                   21 doing                      Oslo",
            "* name2                   22 done                       Kyoto",
            "⠋ copy selection ░░░░░░░░░░ 0% 2,000/1,000,000 · 0.0 s · Esc cancels · row 1 of…",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │* name0                   20 todo                               Lyon",
            "  $ Orders              │* name1                   21 doing                              Oslo",
            "                        │* name2                   22 done                               Kyoto",
            " System                 │* name3                   23 todo                               Lima",
            "⠋ copy selection ░░░░░░░░░░ 0% 2,000/1,000,000 · 0.0 s · Esc cancels · row 1 of 1,000,000 · all 1,000,000 selected",
        ],
    ]
    static let cancelled: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name              Age Status    City",
            "* name0              20 todo      Lyon",
            "* name1              21 doing     Oslo",
            "* name2              22 done      Kyoto",
            "cancelled copy selection · row 1 of 1,0…",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "* name0                   20 todo                       Lyon",
            "* name1                   21 doing                      Oslo",
            "* name2                   22 done                       Kyoto",
            "cancelled copy selection · row 1 of 1,000,000 · all 1,000,000 selected",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People              │* name0                   20 todo                               Lyon",
            "  $ Orders              │* name1                   21 doing                              Oslo",
            "                        │* name2                   22 done                               Kyoto",
            " System                 │* name3                   23 todo                               Lima",
            "cancelled copy selection · row 1 of 1,000,000 · all 1,000,000 selected",
        ],
    ]
}
