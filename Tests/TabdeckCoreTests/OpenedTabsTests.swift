import Testing
import TabdeckCore
import TabdeckProtocol

/// Tabs opened from the command line (`tabdeck FILE...`): first, in an "Opened" section when the
/// config has tabs, the first selected, never in the saved layout.
@Suite struct OpenedTabsTests {
    let sources = [
        TabConfig(id: "/d/a.csv", title: "a.csv", command: ["csv"], args: ["path": "/d/a.csv"]),
        TabConfig(id: "/d/b.sqlite", title: "b.sqlite", command: ["sqlite"]),
        TabConfig(id: "/d/x.bin", title: "x.bin", command: [], unavailable: "x.bin: not a table (binary, 3 bytes, starts 00 01 02)"),
    ]

    @Test func openedTabsComeFirstInTheirSectionAndTheFirstIsSelected() {
        let config = sampleConfig().opening(sources)
        #expect(config.opened == ["/d/a.csv", "/d/b.sqlite", "/d/x.bin"])
        #expect(config.sections.first == SectionConfig(id: "opened", title: "Opened"))
        // With a stored layout that selected another tab, the sources still lead and the first is selected.
        let stored = WorkspaceLayout(sections: ["sys", "data"], tabs: [.init(tab: "logs", section: "sys"), .init(tab: "people", section: "data")],
                                     hidden: [], selected: "logs")
        let layout = LayoutMerge.merge(stored: stored, config: config)
        #expect(layout.sections == ["opened", "sys", "data"])
        #expect(layout.visibleTabs == ["/d/a.csv", "/d/b.sqlite", "/d/x.bin", "logs", "procs", "people", "orders"])
        #expect(layout.selected == "/d/a.csv")
    }

    @Test func withoutAConfigTheyHaveNoSection() {
        let config = WorkspaceConfig.empty(directory: "/tmp").opening(sources)
        #expect(config.sections.isEmpty && config.openedSection == nil)
        let layout = LayoutMerge.merge(stored: nil, config: config)
        #expect(layout.visibleTabs == ["/d/a.csv", "/d/b.sqlite", "/d/x.bin"])
        #expect(layout.selected == "/d/a.csv")
    }

    @Test func theSameSourceTwiceOpensOnceAndASectionCalledOpenedIsKept() {
        var base = sampleConfig()
        base.sections.append(SectionConfig(id: "opened", title: "Mine"))
        let config = base.opening([sources[0], sources[0], TabConfig(id: "people", title: "p", command: ["x"])])
        #expect(config.opened == ["/d/a.csv"])
        #expect(config.openedSection == "opened-2")
        #expect(config.section("opened")?.title == "Mine")
    }

    @Test func theSavedLayoutNeverHoldsOpenedTabs() throws {
        var h = Harness(config: sampleConfig().opening(sources))
        try #require(h.run("tab move logs before people") != nil)
        try #require(h.run("tab move /d/b.sqlite to section sys") != nil)
        try #require(h.run("tab select /d/a.csv") != nil)
        let saves = h.effects.compactMap { effect -> WorkspaceLayout? in
            if case .saveLayout(let l) = effect { return l } else { return nil }
        }
        #expect(saves.count == 3)
        for saved in saves {
            #expect(!saved.tabs.contains { $0.tab.hasPrefix("/d/") }, "\(saved)")
            #expect(!saved.sections.contains("opened"))
        }
        #expect(saves.last?.selected == nil)
        // The next start with no sources: the configured tabs as moved, nothing of the opened ones.
        let next = LayoutMerge.merge(stored: saves.last, config: sampleConfig())
        #expect(next.visibleTabs.first == "logs")
        #expect(next.visibleTabs.count == 4)
    }

    @Test func aSourceThatCannotOpenSaysWhyAndTheOthersGoOn() {
        var h = Harness(config: sampleConfig().opening(sources))
        #expect(h.ws.tabs["/d/x.bin"]?.problem == "x.bin: not a table (binary, 3 bytes, starts 00 01 02)")
        #expect(h.run("tab select /d/x.bin") != nil)
        #expect(h.run("show") == nil)
        #expect(h.lastFailure?.contains("x.bin: not a table (binary, 3 bytes, starts 00 01 02)") == true)
        #expect(!h.effects.contains { if case .startPlugin(tab: "/d/x.bin") = $0 { true } else { false } })
        // Restarting it does not start a plugin either.
        #expect(h.run("restart") == nil)
        #expect(!h.effects.contains { if case .startPlugin(tab: "/d/x.bin") = $0 { true } else { false } })
        #expect(h.run("tab select people") != nil)
        #expect(h.run("show 3") != nil)
    }

    @Test func anOpenedTabFindsItsStoredView() throws {
        let view = TableViewState(sort: [SortKey("name", .descending)], cursor: 7)
        var h = Harness(config: sampleConfig().opening(sources), views: [TableViewKey(tab: "/d/a.csv", table: ""): view])
        try #require(h.run("show 1") != nil)
        #expect(h.ws.tabs["/d/a.csv"]?.table?.view.sort == view.sort)
        #expect(h.ws.tabs["/d/a.csv"]?.table?.view.cursor == 7)
    }
}
