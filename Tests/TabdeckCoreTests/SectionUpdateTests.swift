import Testing
import TabdeckProtocol
@testable import TabdeckCore

/// Sections sent again with `rows` results and `invalidate` (PROTOCOL.md §10.6).
@Suite struct SectionUpdateTests {
    static func table() -> TableState {
        let description = TableDescription(table: "root", columns: [ColumnSpec(id: "name", title: "Name")], total: 7, sections: [
            SectionSpec(id: "dirs", title: "Folders", footer: "3 folders", count: 3),
            SectionSpec(id: "files", title: "Files", footer: "4 files", count: 4),
        ])
        return TableState(key: "", description: description, view: TableViewState(), label: "root", cache: PageCache())
    }

    @Test func listedSectionsReplaceTheirCountsAndFootersOthersLoseThem() {
        var t = Self.table()
        t.updateSections([SectionSpec(id: "files", title: "Files", footer: "2 files", count: 2),
                          SectionSpec(id: "links", title: "Links", count: 1)])
        #expect(t.sections == [SectionSpec(id: "dirs", title: "Folders"),
                               SectionSpec(id: "files", title: "Files", footer: "2 files", count: 2),
                               SectionSpec(id: "links", title: "Links", count: 1)])
        #expect(t.sectionStarts == nil)  // "dirs" has no count now: headers come from the rows
    }

    @Test func aFilterDropsCountsAndClearingItBringsThemBack() {
        var t = Self.table()
        t.view.filter = "t"
        t.forgetSectionCounts()
        #expect(t.sections.allSatisfy { $0.count == nil && $0.footer == nil })
        t.updateSections([SectionSpec(id: "dirs", title: "Folders", footer: "1 folder", count: 1)])
        #expect(t.sections.first?.footer == "1 folder")
        t.view.filter = nil
        t.forgetSectionCounts()
        #expect(t.sections == Self.table().sections)
    }

    @Test func rowsResultsAndInvalidateCarrySections() throws {
        let json: JSONValue = ["generation": 2, "offset": 0, "rows": [], "total": 0,
                               "sections": [["id": "dirs", "title": "Folders", "count": 0]]]
        let result = try RowsResult(json)
        #expect(result.sections == [SectionSpec(id: "dirs", title: "Folders", count: 0)])
        #expect(try RowsResult(result.json).sections == result.sections)  // written back as read
        #expect(try RowsResult(["generation": 2, "offset": 0, "rows": []]).sections == nil)
        let n = try PluginNotification.decode(method: Method.invalidate, params: [
            "table": "root", "sections": [["id": "files", "title": "Files", "footer": "9 files"]]])
        guard case .invalidate(let table, nil, nil, let sections)? = n else { Issue.record("\(String(describing: n))"); return }
        #expect(table == "root" && sections == [SectionSpec(id: "files", title: "Files", footer: "9 files")])
        #expect(throws: JSONFieldError.self) {
            try PluginNotification.decode(method: Method.invalidate, params: ["sections": [["id": "x", "count": -1]]])
        }
    }
}
