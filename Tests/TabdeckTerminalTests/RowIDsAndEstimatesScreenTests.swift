import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// A total marked as an estimate (`≈` until an exact count comes) and a table without stable
/// row ids (no selection, no row actions, said on the status line), on screen.
@Suite struct RowIDsAndEstimatesScreenTests {
    @Test func anEstimatedTotalShowsWithItsMarkUntilAnExactCountReplacesIt() {
        var table = FakeTable.people(count: 3_000_000)
        table.totalIsEstimate = true
        var s = ScreenScene(Scene(tables: ["people": table]), width: 60, height: 5)
        #expect(s.lines == [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                   Age Status           City",
            "  name0                   20 todo             Lyon",
            "  name1                   21 doing            Oslo",
            "row 1 of ≈ 3,000,000                                  ? help",
        ])
        s.scene.tables["people"]!.totalIsEstimate = false
        s.scene.notify("people", Method.invalidate, ["table": "root", "rows": [], "total": 2_999_817])
        #expect(s.lines.last == "row 1 of 2,999,817                                    ? help")
    }

    @Test func anEstimateIsATildeInASCII() {
        var table = FakeTable.people(count: 3_000_000)
        table.totalIsEstimate = true
        var s = ScreenScene(Scene(tables: ["people": table]), width: 60, height: 5)
        s.model.ui.ascii = true
        #expect(s.lines.last == "row 1 of ~ 3,000,000                                  ? help")
    }

    /// People (5 rows, ids that are positions) with a row action `x` and an insert `+`.
    static func unstable() -> ScreenScene {
        var people = FakeTable.people(count: 5)
        people.rowIDs = .unstable
        people.actions = [ActionSpec(id: "delete", title: "Delete", destructive: true, hotkey: "x"),
                          ActionSpec(id: "add", title: "Add person", rows: ActionRows.none, hotkey: "+")]
        return ScreenScene(Scene(tables: ["people": people]), width: 100, height: 6)
    }

    static let refused = [
        " Data                   │  Name                   Age Status                   City",
        "  ◆ People              │  name0                   20 todo                     Lyon",
        "  $ Orders              │  name1                   21 doing                    Oslo",
        "                        │  name2                   22 done                     Kyoto",
        " System                 │  name3                   23 todo                     Lima",
        // The whole message and the row count fit 100 columns (the old one was cut).
        "\"People\" has no stable row ids (a view without a key): no selection or row actions · row 1 of 5",
    ]

    @Test func spaceAndARowActionsHotkeySayWhySelectionAndActionsAreOff() {
        var s = Self.unstable()
        s.press(.char(" "))
        #expect(s.lines == Self.refused)
        s.model.ui.message = nil
        s.press(.down)
        #expect(s.lines.last == "row 2 of 5                                                                                    ? help")
        s.press(.char("x"))
        #expect(s.lines == Self.refused.dropLast() + [Self.refused.last!.replacingOccurrences(of: "row 1 of 5", with: "row 2 of 5")])
        #expect(s.scene.edits.isEmpty)
        #expect(s.scene.ws.tabs["people"]!.table!.view.selection.isEmpty)
    }

    @Test func aClickOnTheMarkColumnSaysSoToo() {
        var s = Self.unstable()
        s.click(x: 25, y: 2)
        #expect(s.lines == Self.refused)
        #expect(s.scene.ws.tabs["people"]!.table!.view.selection.isEmpty)
    }

    @Test func theActionMenuOffersOnlyTheActionsOnNoRows() {
        var s = Self.unstable()
        s.press(.char("a"))
        #expect(s.lines == [
            " Data                   │  Name                   Age Status                   City",
            "  ◆ People              │ ┌ Actions · row p0 ────────────────────────────────────────┐",
            "  $ Orders              │ │ ▸ Add person                              +      no rows │",
            "                        │ └ ↑↓ Enter runs · Esc closes ──────────────────────────────┘",
            " System                 │  name3                   23 todo                     Lima",
            "row 1 of 5                                                                                    ? help",
        ])
    }
}
