import Foundation
import Testing
import TabdeckCore
@testable import TabdeckApp

/// Insert, delete and move on the real SDK example plugin, through the runtime: the form's
/// values as `--set`, the question as `--yes`, the view fetched again after each change.
@Suite(hangGuard) struct EditingPluginTests {
    @Test func addDeleteAndMoveRowsOfTheSDKExample() async throws {
        let dir = TempDir()
        let h = try Host(dir, tabs: [TabSpec(id: "sdk-demo", command: ["python3", Repo.sdkExample], args: ["rows": 3],
                                             title: "SDK demo")])
        #expect((await h.run("show")).out.contains("rows 1–3 of 3"))
        let bad = await h.run("action add --set name=Ada --set age=old")
        #expect(bad.err == #"error: action Add a person: Age: expected a whole number, got "old""#, "\(bad)")
        let add = await h.run("action add --set 'name=Ada Lovelace' --set age=36")
        #expect(add.ok && add.out == "added Ada Lovelace", "\(add)")
        let shown = await h.run("show")
        #expect(shown.out.contains("Ada Lovelace") && shown.out.contains("rows 1–4 of 4"), "\(shown.out)")

        #expect((await h.run("goto 2")).ok)
        let moved = await h.run("row move up")
        #expect(moved.ok && moved.out == "moved p1 before p0", "\(moved)")
        let order = await h.run("show 2")
        #expect(order.out.range(of: "Bob 0001")!.lowerBound < order.out.range(of: "ada 0000")!.lowerBound, "\(order.out)")
        #expect((await h.run("sort name")).ok)
        let sorted = await h.run("row move down")
        #expect(sorted.err.contains("rows keep the sort order"), "\(sorted)")
        #expect((await h.run("sort clear")).ok)

        #expect((await h.run("select p0 p2")).ok)
        let unconfirmed = await h.run("action delete")
        #expect(unconfirmed.err.contains("needs confirmation"), "\(unconfirmed)")
        let delete = await h.run("action delete --yes")
        #expect(delete.ok && delete.out == "deleted 2 people", "\(delete)")
        let left = await h.run("show")
        #expect(left.out.contains("rows 1–2 of 2") && !left.out.contains("carol"), "\(left.out)")
        let selection = await h.run("selection")
        #expect(selection.ok && !selection.out.contains("p0") && !selection.out.contains("p2"), "\(selection)")
        await h.shutdown()
    }
}
