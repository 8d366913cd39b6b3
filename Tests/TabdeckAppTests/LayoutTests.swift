import Foundation
import Testing
import TabdeckCore
@testable import TabdeckApp

/// Tab and section customization through the runtime and its database (no plugin is started).
@Suite(hangGuard) struct LayoutTests {
    let dir = TempDir()

    static func tab(_ id: String, _ section: String?, customizable: Bool = true) -> TabSpec {
        TabSpec(id: id, command: ["python3", Repo.brokenPlugin], section: section, customizable: customizable)
    }

    /// Visible tab ids in order, from `tabs --output json`.
    func order(_ h: Host) async -> [String] {
        guard let items = (await h.run("tabs")).result as? [[String: Any]] else { return [] }
        return items.filter { $0["position"] is Int }.map { $0["id"] as? String ?? "?" }
    }

    @Test func customizationRulesAndMergeWithAChangedConfig() async throws {
        let tabs = [Self.tab("a", "s1"), Self.tab("b", "s1"), Self.tab("fixed", "s1", customizable: false),
                    Self.tab("c", "s2"), Self.tab("d", "s2")]
        do {
            let h = try Host(dir, tabs: tabs, sections: ["s1", "s2"], output: .json)
            #expect(await order(h) == ["a", "b", "fixed", "c", "d"])
            let move = await h.run("tab move fixed to 1")
            #expect(!move.ok && move.err.contains("tab fixed is not customizable") && move.err.contains("cannot move"), "\(move)")
            let hide = await h.run("tab hide fixed")
            #expect(!hide.ok && hide.err.contains("cannot hide"), "\(hide)")
            #expect((await h.run("tab select fixed")).ok, "a fixed tab can still be selected")

            #expect((await h.run("tab move d to section s1")).ok)
            #expect((await h.run("tab move a after c")).ok)
            #expect((await h.run("section move s2 to 1")).ok)
            #expect((await h.run("tab hide b")).ok)
            // d went to the end of s1; sections now show s2 first.
            #expect(await order(h) == ["c", "a", "fixed", "d"])
            let selectHidden = await h.run("tab select b")
            #expect(!selectHidden.ok && selectHidden.err.contains("tab b is hidden"), "\(selectHidden)")
            #expect((await h.run("tab select 2")).ok)
            let self_ = await h.run("tab move a before a")
            #expect(!self_.ok)
            let past = await h.run("tab move a to 9")
            #expect(!past.ok && past.err.contains("past the end"), "\(past)")
            for id in ["c", "a", "d"] { #expect((await h.run("tab hide \(id)")).ok || id == "d") }
            let last = await h.run("tab hide fixed")
            #expect(!last.ok)
            #expect((await h.run("tab show a")).ok)
            #expect((await h.run("tab show c")).ok)
            #expect((await h.run("tab show d")).ok)
            #expect(await order(h) == ["c", "a", "fixed", "d"])
            #expect((await h.run("tab select a")).ok)
            await h.shutdown()
        }
        // The config changes: b is gone, e is new after a (so it goes right after a, in its own
        // config section s1); the saved order of the rest is kept.
        let changed = [Self.tab("a", "s1"), Self.tab("e", "s1"), Self.tab("fixed", "s1", customizable: false),
                       Self.tab("c", "s2"), Self.tab("d", "s2")]
        let h = try Host(dir, tabs: changed, sections: ["s1", "s2"], output: .json)
        #expect(await order(h) == ["c", "a", "fixed", "d", "e"])
        let selected = (await h.run("tabs")).result as? [[String: Any]]
        #expect(selected?.first { $0["selected"] as? Bool == true }?["id"] as? String == "a", "the selected tab is restored")
        #expect((await h.run("tab reset")).ok)
        #expect(await order(h) == ["a", "e", "fixed", "c", "d"])
        await h.shutdown()
    }
}
