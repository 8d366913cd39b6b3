import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// The sidebar and the tab bar at several widths.
@Suite struct TabsScreenTests {
    func scene() -> Scene {
        var s = Scene(tables: ["people": .people()])
        s.resize(120, 9)
        s.run("show")
        s.notify("people", Method.badge, ["value": 3])
        s.notify("logs", Method.badge, ["value": "new"])
        s.feed(.plugin(tab: "procs", .exited("exited with status 3")))
        return s
    }

    @Test func sidebarAt120Columns() {
        let s = scene()
        #expect(s.screen(120, 9) == [
            " Data                   │  Name                   Age Status                             City",
            "  ◆ People            3 │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            " System                 │  name3                   23 todo                               Lima",
            "  ⚙ Processes         ! │  name4                   24 doing                              Lyon",
            "  ≡ Logs            new │  name5                   25 done                               Oslo",
            "                        │  name6                   26 todo                               Kyoto",
            "row 1 of 1,000,000                                                                                                ? help",
        ])
        let frame = s.frame(120, 9)
        // The selected tab is reversed across the sidebar, the others are not.
        #expect((0..<24).allSatisfy { frame[$0, 1].style.reverse })
        #expect(!frame[2, 2].style.reverse)
        // Badges: `!` in red, others in yellow.
        #expect(frame[22, 5].style.foreground == .red)
        #expect(frame[22, 1].style.foreground == .yellow)
        // The cursor row is reversed across the table.
        #expect((25..<120).allSatisfy { frame[$0, 1].style.reverse })
        #expect(!frame[30, 2].style.reverse)
    }

    @Test func hiddenTabsAndEmptySectionsAreNotShown() {
        var s = scene()
        s.run("tab hide procs")
        s.run("tab hide logs")
        #expect(s.failures.isEmpty)
        #expect(Array(s.screen(120, 9).map { String($0.prefix(25)) }.prefix(4)) == [
            " Data                   │",
            "  ◆ People            3 │",
            "  $ Orders              │",
            "                        │",
        ])
        #expect(s.screen(80, 3)[0] == " ◆ People 3  $ Orders")
    }

    @Test func sidebarScrollsToTheSelectedTab() {
        let many = (1...12).map { TabConfig(id: "t\($0)", title: "Tab \($0)", section: $0 <= 6 ? "data" : "sys", command: ["p"]) }
        var s = Scene(config: config(tabs: many))
        s.run("tab select t12")
        #expect(s.screen(100, 6).map { String($0.prefix(25)) } == [
            "  Tab 8                 │",
            "  Tab 9                 │",
            "  Tab 10                │",
            "  Tab 11                │",
            "  Tab 12                │",
            String(repeating: " ", count: 25),  // the status line: nothing to say yet (the help hint is at its right end)
        ])
    }

    @Test func tabBarAt80Columns() {
        var s = scene()
        s.resize(80, 6)
        #expect(s.screen(80, 6) == [
            " ◆ People 3  $ Orders  ⚙ Processes !  ≡ Logs new",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "row 1 of 1,000,000                                                        ? help",
        ])
        let frame = s.frame(80, 6)
        #expect((0..<10).allSatisfy { frame[$0, 0].style.reverse })  // " ◆ People 3 "
        #expect(!frame[12, 0].style.reverse)
        #expect(frame[35, 0].symbol == "!" && frame[35, 0].style.foreground == .red)
    }

    @Test func tabBarAt40ColumnsScrollsWithMarks() {
        let many = (1...8).map { TabConfig(id: "t\($0)", title: "Tab\($0)", section: $0 <= 4 ? "data" : "sys", command: ["p"]) }
        var s = Scene(config: config(tabs: many))
        #expect(s.screen(40, 3)[0] == " Tab1  Tab2  Tab3  Tab4  Tab5  Tab6    >")
        s.run("tab select t7")
        #expect(s.screen(40, 3)[0] == "< Tab2  Tab3  Tab4  Tab5  Tab6  Tab7   >")
        s.run("tab select t8")
        #expect(s.screen(40, 3)[0] == "< Tab3  Tab4  Tab5  Tab6  Tab7  Tab8")
        s.run("tab select t4")
        #expect(s.screen(40, 3)[0] == " Tab1  Tab2  Tab3  Tab4  Tab5  Tab6    >")
        #expect(s.screen(12, 3)[0] == "< Tab4     >")
    }

    @Test func badgesUpdateForBackgroundTabs() {
        var s = scene()
        s.notify("orders", Method.badge, ["value": 12])
        #expect(s.screen(120, 9)[2].hasPrefix("  $ Orders           12 │"))
        s.notify("orders", Method.badge, ["value": .null])
        #expect(s.screen(120, 9)[2].hasPrefix("  $ Orders              │"))
    }
}
