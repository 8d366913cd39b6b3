import Foundation
import GRDB
import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckStore

@Suite struct ViewTests {
    static let sample = TableViewState(
        sort: [.init("cpu", .descending), .init("name")],
        columns: [.init(id: "name", width: 30), .init(id: "pid", hidden: true), .init(id: "cpu")],
        scrollOffset: 120, cursor: 131, selection: ["4711", "42", "ünïcödé id", ""])

    @Test func neverSavedIsNil() throws {
        let db = try AppDatabase.inMemory()
        #expect(try db.loadView(tab: "ps", table: "") == nil)
        #expect(try db.loadAllViews().isEmpty)
    }

    @Test func roundTripRootAndDrillDown() throws {
        let db = try AppDatabase.inMemory()
        let child = TableViewState(sort: [.init("size")], cursor: 2)
        try db.saveView(Self.sample, tab: "ps", table: "")
        try db.saveView(child, tab: "ps", table: "4711/threads")
        #expect(try db.loadView(tab: "ps", table: "") == Self.sample)
        #expect(try db.loadView(tab: "ps", table: "4711/threads") == child)
        #expect(try db.loadView(tab: "ps", table: "other") == nil)
        #expect(try db.loadView(tab: "other", table: "") == nil)
    }

    @Test func theFilterIsSavedAndCleared() throws {
        let db = try AppDatabase.inMemory()
        var view = Self.sample
        view.filter = "ünï \"quoted\" %_"
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "")?.filter == view.filter)
        view.filter = nil
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "") == view)
    }

    @Test func theExactFilterIsSavedWithItsTypedValuesAndCleared() throws {
        let db = try AppDatabase.inMemory()
        var view = Self.sample
        view.where = [WhereCondition("amount", .between, ["1234444433332222.44434322", 5]),
                      WhereCondition("state", .in, ["todo", "it's \"done\""]), WhereCondition("note", .null),
                      WhereCondition("ok", .notEqual, [true])]
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "")?.where == view.where)
        view.where = []
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "") == view)
    }

    @Test func saveIsAnUpsertAndTheSelectionFollows() throws {
        let db = try AppDatabase.inMemory()
        try db.saveView(Self.sample, tab: "ps", table: "")
        var view = Self.sample
        view.cursor = 7
        view.sort = [.init("name")]
        view.selection = ["42", "new"]          // one kept, three removed, one added
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "") == view)
        view.selection = []
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "") == view)
        view.selection = ["a", "b"]
        try db.saveView(view, tab: "ps", table: "")
        #expect(try db.loadView(tab: "ps", table: "") == view)
        #expect(try db.loadAllViews().count == 1)
    }

    @Test func aSelectionOfTheSameSizeWithOtherIdsIsSaved() throws {
        let db = try AppDatabase.inMemory()
        var view = TableViewState(selection: ["a", "b", "c"])
        try db.saveView(view, tab: "t", table: "")
        view.selection = ["a", "b", "d"]
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "")?.selection == ["a", "b", "d"])
        view.selection = ["x", "y", "z"]
        try db.saveView(view, tab: "t", table: "")
        #expect(try db.loadView(tab: "t", table: "")?.selection == ["x", "y", "z"])
    }

    @Test func selectionDigestIsStableAndOrderIndependent() {
        let ids = (0..<1000).map { "id\($0)" }
        #expect(SelectionDigest(Set(ids)) == SelectionDigest(Set(ids.reversed())))
        #expect(SelectionDigest([]) == SelectionDigest(count: 0, sum: 0))
        #expect(SelectionDigest(["a", "b"]) != SelectionDigest(["a", "c"]))
        #expect(SelectionDigest(["a", "b"]).count == 2)
        // Pinned (checked against an independent Python implementation): the value is
        // stored in databases, so it must never change.
        #expect(SelectionDigest.hash("") == 0xf52a_15e9_a9b5_e89b)
        #expect(SelectionDigest.hash("row-1") == 0x01ab_2e6e_45ee_62c5)
    }

    @Test func loadAllViewsReturnsEveryTable() throws {
        let db = try AppDatabase.inMemory()
        var expected: [ViewKey: TableViewState] = [:]
        for tab in ["a", "b", "c"] {
            for table in ["", "x", "x/y"] {
                let view = TableViewState(sort: [.init(tab + table)], scrollOffset: table.count, cursor: tab.count,
                                          selection: .ids(table.isEmpty ? [] : Set((0..<5).map { "\(tab)\(table)\($0)" })))
                try db.saveView(view, tab: tab, table: table)
                expected[ViewKey(tab: tab, table: table)] = view
            }
        }
        #expect(try db.loadAllViews() == expected)
    }

    @Test func viewsOfTabsGoneFromConfigAreKept() throws {
        let db = try AppDatabase.inMemory()
        try db.saveView(Self.sample, tab: "gone", table: "")
        // A later session saves a layout without the tab, and other views.
        try db.saveLayout(WorkspaceLayout(tabs: [.init(tab: "ps", section: nil)]))
        try db.saveView(TableViewState(), tab: "ps", table: "")
        #expect(try db.loadView(tab: "gone", table: "") == Self.sample)
    }

    /// Correctness of a large selection across saves; its speed is measured by Scripts/bench-store, not here.
    @Test func largeSelectionSavesAndLoads() throws {
        let db = try AppDatabase.inMemory()
        var view = TableViewState(sort: [.init("id")], cursor: 99_999)
        view.selection = .ids(Set((0..<100_000).map { "row-\($0)" }))
        try db.saveView(view, tab: "big", table: "")
        #expect(try db.loadView(tab: "big", table: "") == view)
        // A cursor move with the same big selection, then a changed selection.
        view.cursor = 5
        try db.saveView(view, tab: "big", table: "")
        view.selection.remove("row-5")
        view.selection.insert("row-new")
        try db.saveView(view, tab: "big", table: "")
        #expect(try db.loadAllViews() == [ViewKey(tab: "big"): view])
    }

    @Test func malformedStoredJSONIsAnErrorNamingTheColumn() throws {
        let db = try AppDatabase.inMemory()
        try db.saveView(Self.sample, tab: "ps", table: "")
        try db.dbQueue.write { try $0.execute(sql: "UPDATE table_view SET sort_json = '{nope'") }
        let error = #expect(throws: StoreError.self) { try db.loadView(tab: "ps", table: "") }
        guard case .invalidStoredValue(operation: .loadView, path: ":memory:", let detail)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(detail.contains("sort_json"))
        #expect(detail.contains("ps"))
    }

    @Test func sortAndColumnsAreStoredAsReadableJSON() throws {
        let db = try AppDatabase.inMemory()
        try db.saveView(TableViewState(sort: [.init("cpu", .descending)], columns: [.init(id: "pid", hidden: true)]),
                        tab: "ps", table: "")
        let row = try #require(try db.dbQueue.read { try Row.fetchOne($0, sql: "SELECT sort_json, columns_json FROM table_view") })
        #expect(row["sort_json"] as String == #"[{"column":"cpu","direction":"desc"}]"#)
        #expect(row["columns_json"] as String == #"[{"hidden":true,"id":"pid"}]"#)
    }
}
