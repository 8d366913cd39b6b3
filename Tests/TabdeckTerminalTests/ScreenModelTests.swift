import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// The full-screen UI as a pure component: keys in, typed commands and exact screens out.
@Suite struct ScreenModelTests {
    /// `j j l` moves the cursor two rows down and the column cursor onto Age; `s` sorts by it
    /// (a typed `sortBy`, no command text), `s` again flips it; the status line says so, and the
    /// cursor stays on its row (this fake plugin's order does not change, so on row 3).
    @Test(arguments: [40, 80, 120])
    func keysMoveTheCursorAndSortAsTypedCommands(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        s.press(.char("j"), .char("j"), .char("l"))
        #expect(s.lines == Self.moved[width])
        s.press(.char("s"))
        #expect(s.lines == Self.sortedUp[width])
        #expect(s.scene.ws.tabs["people"]?.table?.view.sort == [SortKey("age", .ascending)])
        s.press(.char("s"))
        #expect(s.lines == Self.sortedDown[width])
    }

    static let moved: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name              Age Status    City",
                "  name0              20 todo      Lyon",
                "  name1              21 doing     Oslo",
                "  name2              22 done      Kyoto",
                "  name3              23 todo      Lima",
                "  name4              24 doing     Lyon",
                "row 3 of 1,000,000                ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                   Age Status                     City",
                "  name0                   20 todo                       Lyon",
                "  name1                   21 doing                      Oslo",
                "  name2                   22 done                       Kyoto",
                "  name3                   23 todo                       Lima",
                "  name4                   24 doing                      Lyon",
                "row 3 of 1,000,000                                                        ? help",
        ],
        120: [
                " Data                   │  Name                   Age Status                             City",
                "  ◆ People              │  name0                   20 todo                               Lyon",
                "  $ Orders              │  name1                   21 doing                              Oslo",
                "                        │  name2                   22 done                               Kyoto",
                " System                 │  name3                   23 todo                               Lima",
                "  ⚙ Processes           │  name4                   24 doing                              Lyon",
                "  ≡ Logs                │  name5                   25 done                               Oslo",
                "row 3 of 1,000,000                                                                                                ? help",
        ],
    ]

    static let sortedUp: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name            Age ↑ Status    City",
                "  name0              20 todo      Lyon",
                "  name1              21 doing     Oslo",
                "  name2              22 done      Kyoto",
                "  name3              23 todo      Lima",
                "  name4              24 doing     Lyon",
                "row 3 of 1,000,000 · sort: Age ↑  ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                 Age ↑ Status                     City",
                "  name0                   20 todo                       Lyon",
                "  name1                   21 doing                      Oslo",
                "  name2                   22 done                       Kyoto",
                "  name3                   23 todo                       Lima",
                "  name4                   24 doing                      Lyon",
                "row 3 of 1,000,000 · sort: Age ↑                                          ? help",
        ],
        120: [
                " Data                   │  Name                 Age ↑ Status                             City",
                "  ◆ People              │  name0                   20 todo                               Lyon",
                "  $ Orders              │  name1                   21 doing                              Oslo",
                "                        │  name2                   22 done                               Kyoto",
                " System                 │  name3                   23 todo                               Lima",
                "  ⚙ Processes           │  name4                   24 doing                              Lyon",
                "  ≡ Logs                │  name5                   25 done                               Oslo",
                "row 3 of 1,000,000 · sort: Age ↑                                                                                  ? help",
        ],
    ]

    static let sortedDown: [Int: [String]] = [
        40: [
                " ◆ People  $ Orders  ⚙ Processes       >",
                "  Name            Age ↓ Status    City",
                "  name0              20 todo      Lyon",
                "  name1              21 doing     Oslo",
                "  name2              22 done      Kyoto",
                "  name3              23 todo      Lima",
                "  name4              24 doing     Lyon",
                "row 3 of 1,000,000 · sort: Age ↓  ? help",
        ],
        80: [
                " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
                "  Name                 Age ↓ Status                     City",
                "  name0                   20 todo                       Lyon",
                "  name1                   21 doing                      Oslo",
                "  name2                   22 done                       Kyoto",
                "  name3                   23 todo                       Lima",
                "  name4                   24 doing                      Lyon",
                "row 3 of 1,000,000 · sort: Age ↓                                          ? help",
        ],
        120: [
                " Data                   │  Name                 Age ↓ Status                             City",
                "  ◆ People              │  name0                   20 todo                               Lyon",
                "  $ Orders              │  name1                   21 doing                              Oslo",
                "                        │  name2                   22 done                               Kyoto",
                " System                 │  name3                   23 todo                               Lima",
                "  ⚙ Processes           │  name4                   24 doing                              Lyon",
                "  ≡ Logs                │  name5                   25 done                               Oslo",
                "row 3 of 1,000,000 · sort: Age ↓                                                                                  ? help",
        ],
    ]

    @Test func aRowIDWithQuotesIsSelectedByItsID() {
        let odd = #"it's a "row" \ #1"#
        var table = FakeTable.people(count: 3)
        let base = table.row
        table.row = { i in var r = base(i); if i == 1 { r.id = odd }; return r }
        var s = ScreenScene(Scene(tables: ["people": table]), width: 80, height: 8)
        s.press(.char("j"), .char(" "))
        #expect(s.scene.failures.isEmpty, "\(s.scene.failures)")
        let t = s.scene.ws.tabs["people"]?.table
        #expect(t?.view.selection.contains(odd) == true)
        #expect(t?.view.selection.contains("p1") == false)
        s.press(.char(" "))
        #expect(s.scene.ws.tabs["people"]?.table?.view.selection.contains(odd) == false)
    }
}
