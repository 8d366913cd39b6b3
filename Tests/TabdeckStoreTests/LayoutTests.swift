import Testing
import TabdeckCore
@testable import TabdeckStore

@Suite struct LayoutTests {
    static let sample = WorkspaceLayout(
        sections: ["ops", "data"],
        tabs: [.init(tab: "ps", section: "ops"), .init(tab: "csv", section: "data"), .init(tab: "k8s", section: "ops"),
               .init(tab: "loose", section: nil)],
        hidden: ["k8s", "loose"],
        selected: "csv")

    @Test func neverSavedIsNil() throws {
        let db = try AppDatabase.inMemory()
        #expect(try db.loadLayout() == nil)
    }

    @Test func roundTrip() throws {
        let db = try AppDatabase.inMemory()
        try db.saveLayout(Self.sample)
        #expect(try db.loadLayout() == Self.sample)
    }

    @Test func emptyLayoutIsNotNil() throws {
        let db = try AppDatabase.inMemory()
        try db.saveLayout(WorkspaceLayout())
        #expect(try db.loadLayout() == WorkspaceLayout())
    }

    @Test func saveReplacesEverything() throws {
        let db = try AppDatabase.inMemory()
        try db.saveLayout(Self.sample)
        let next = WorkspaceLayout(sections: ["data"], tabs: [.init(tab: "csv", section: "data"), .init(tab: "ps", section: nil)],
                                   hidden: [], selected: nil)
        try db.saveLayout(next)
        #expect(try db.loadLayout() == next)
    }

    @Test func duplicateTabFailsAndKeepsTheOldLayout() throws {
        let db = try AppDatabase.inMemory()
        try db.saveLayout(Self.sample)
        let bad = WorkspaceLayout(tabs: [.init(tab: "ps", section: nil), .init(tab: "ps", section: "ops")])
        let error = #expect(throws: StoreError.self) { try db.saveLayout(bad) }
        guard case .sqlite(operation: .saveLayout, path: ":memory:", let failure)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failure.message.contains("UNIQUE"))
        #expect(try db.loadLayout() == Self.sample)
    }

    @Test func resetForgetsLayoutButKeepsViews() throws {
        let db = try AppDatabase.inMemory()
        try db.saveLayout(Self.sample)
        let view = TableViewState(sort: [.init("pid", .descending)], cursor: 3, selection: ["1"])
        try db.saveView(view, tab: "ps", table: "")
        try db.resetLayout()
        #expect(try db.loadLayout() == nil)
        #expect(try db.loadView(tab: "ps", table: "") == view)
        try db.saveLayout(Self.sample)
        #expect(try db.loadLayout() == Self.sample)
    }

    @Test func orderIsKeptBeyondTenEntries() throws {
        let db = try AppDatabase.inMemory()
        let tabs = (0..<25).reversed().map { WorkspaceLayout.Entry(tab: "t\($0)", section: $0 % 2 == 0 ? "even" : nil) }
        let layout = WorkspaceLayout(sections: (0..<12).map { "s\($0)" }.reversed(), tabs: tabs, hidden: ["t3"], selected: "t24")
        try db.saveLayout(layout)
        #expect(try db.loadLayout() == layout)
    }
}
