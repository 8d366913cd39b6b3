import Testing
import TabdeckCore
@testable import TabdeckApp

@Suite struct ProgressLineTests {
    @Test func theTextSaysHowFarAndHowToStop() {
        #expect(ProgressLine.text(tab: "people", PluginProgress(done: 1204, total: 2866, message: "indexing"))
                == "people: indexing 42% (1,204 of 2,866) · Ctrl-C stops it")
        #expect(ProgressLine.text(tab: "files", PluginProgress(done: 12000, total: nil, message: nil))
                == "files: working 12,000 · Ctrl-C stops it")
        // The plugin's words are made safe.
        #expect(ProgressLine.text(tab: "x", PluginProgress(done: 1, total: 2, message: "\u{1b}[2Jwiped"))
                .contains("\u{1b}") == false)
    }

    @Test func theLineIsDrawnOnceAndErasedBeforeAResult() {
        var written: [String] = []
        var line = ProgressLine { written.append($0) }
        line.clear()
        #expect(written.isEmpty, "nothing shown, nothing to erase")
        var ws = Workspace(config: WorkspaceConfig(file: "/w/c.json", directory: "/w", sections: [],
                                                   tabs: [TabConfig(id: "t", title: "T", command: ["p"])]),
                           storedLayout: nil, storedViews: [:])
        line.update(ws)
        #expect(written.isEmpty, "no command waits")
        _ = ws.update(.command("show"), now: 0)  // waits for the plugin
        _ = ws.update(.plugin(tab: "t", .message(.notification(method: "progress", params: ["done": 5, "total": 10]))), now: 0)
        line.update(ws)
        line.update(ws)
        #expect(written == ["\r\u{1b}[Kt: working 50% (5 of 10) · Ctrl-C stops it"])
        line.clear()
        #expect(written.last == "\r\u{1b}[K")
    }
}
