import Testing
import TabdeckCore
@testable import TabdeckStore

/// The rows expanded in place (v5_expanded) are saved with the view.
@Suite struct ExpandedViewTests {
    @Test func expandedPathsRoundTrip() throws {
        let db = try AppDatabase.inMemory()
        var view = TableViewState(cursor: 3, expanded: [["r1"], ["r1", "c 3"], ["ünï \"q\"", "x/y"]])
        try db.saveView(view, tab: "files", table: "")
        #expect(try db.loadView(tab: "files", table: "") == view)
        #expect(try db.loadAllViews()[ViewKey(tab: "files", table: "")] == view)
        view.expanded = []
        try db.saveView(view, tab: "files", table: "")
        #expect(try db.loadView(tab: "files", table: "")?.expanded == [])
    }

    @Test func atMostMaxExpandedPathsAreStoredTheNewestKept() throws {
        let db = try AppDatabase.inMemory()
        let paths = (0..<(TableViewState.maxExpanded + 50)).map { [String($0)] }
        try db.saveView(TableViewState(expanded: paths), tab: "files", table: "")
        let stored = try db.loadView(tab: "files", table: "")?.expanded
        #expect(stored?.count == TableViewState.maxExpanded)
        #expect(stored?.first == ["50"])
        #expect(stored?.last == [String(TableViewState.maxExpanded + 49)])
    }
}
