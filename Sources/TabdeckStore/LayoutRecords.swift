import GRDB
import TabdeckCore

/// A row of `section_order`.
struct SectionOrderRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "section_order"
    var position: Int
    var sectionId: String
    enum CodingKeys: String, CodingKey { case position, sectionId = "section_id" }
}

/// A row of `tab_layout`.
struct TabLayoutRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tab_layout"
    var position: Int
    var tabId: String
    var sectionId: String?
    enum CodingKeys: String, CodingKey { case position, tabId = "tab_id", sectionId = "section_id" }
}

/// A row of `hidden_tab`.
struct HiddenTabRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "hidden_tab"
    var tabId: String
    enum CodingKeys: String, CodingKey { case tabId = "tab_id" }
}

/// A row of `workspace`, the key/value table for workspace singletons.
struct WorkspaceValueRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "workspace"
    var key: String
    var value: String?

    /// Present once a layout has been saved (and until it is reset).
    static let layoutSaved = "layout_saved"
    /// The selected tab id.
    static let selectedTab = "selected_tab"
    /// Keys that belong to the layout, removed by a reset.
    static let layoutKeys = [layoutSaved, selectedTab]
}

/// Reading and writing a ``WorkspaceLayout`` inside a transaction the caller opened.
enum LayoutStore {
    /// The saved layout, or nil if none was saved since the database was created or reset.
    static func fetch(_ db: Database) throws -> WorkspaceLayout? {
        guard try WorkspaceValueRecord.fetchOne(db, key: WorkspaceValueRecord.layoutSaved) != nil else { return nil }
        let sections = try SectionOrderRecord.order(Column("position")).fetchAll(db).map(\.sectionId)
        let tabs = try TabLayoutRecord.order(Column("position")).fetchAll(db)
            .map { WorkspaceLayout.Entry(tab: $0.tabId, section: $0.sectionId) }
        let hidden = try Set(HiddenTabRecord.fetchAll(db).map(\.tabId))
        let selected = try WorkspaceValueRecord.fetchOne(db, key: WorkspaceValueRecord.selectedTab)?.value
        return WorkspaceLayout(sections: sections, tabs: tabs, hidden: hidden, selected: selected)
    }

    /// Replaces the stored layout with `layout`. A tab or section listed twice violates a
    /// UNIQUE constraint and fails the whole save (nothing is changed).
    static func replace(_ db: Database, with layout: WorkspaceLayout) throws {
        try erase(db)
        for (position, section) in layout.sections.enumerated() {
            try SectionOrderRecord(position: position, sectionId: section).insert(db)
        }
        for (position, entry) in layout.tabs.enumerated() {
            try TabLayoutRecord(position: position, tabId: entry.tab, sectionId: entry.section).insert(db)
        }
        for tab in layout.hidden.sorted() {
            try HiddenTabRecord(tabId: tab).insert(db)
        }
        try WorkspaceValueRecord(key: WorkspaceValueRecord.layoutSaved, value: "1").insert(db)
        if let selected = layout.selected {
            try WorkspaceValueRecord(key: WorkspaceValueRecord.selectedTab, value: selected).insert(db)
        }
    }

    /// Forgets the stored layout. Table views are not touched.
    static func erase(_ db: Database) throws {
        try SectionOrderRecord.deleteAll(db)
        try TabLayoutRecord.deleteAll(db)
        try HiddenTabRecord.deleteAll(db)
        try WorkspaceValueRecord.deleteAll(db, keys: WorkspaceValueRecord.layoutKeys)
    }
}
