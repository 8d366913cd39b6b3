import Foundation
import Testing
import TabdeckTime
import TabdeckCore
import TabdeckTerminal
@testable import TabdeckApp

/// What the clipboard got, from the runtime's thread.
final class ClipboardBox: @unchecked Sendable {
    private let lock = NSLock()
    private var writes: [[UInt8]] = []
    func add(_ bytes: [UInt8]) { lock.withLock { writes.append(bytes) } }
    var all: [[UInt8]] { lock.withLock { writes } }
}

/// Issue 16 through the runtime: `copy` in line mode writes OSC 52 when there is a terminal and
/// says so when there is none; a bad `"keys"` binding stops the start before the state is touched.
@Suite(hangGuard) struct CopyAndKeysRuntimeTests {
    @Test func copyInLineModeWritesOSC52OrSaysNothingReachedAClipboard() async throws {
        let dir = TempDir()
        let h = try Host(dir, tabs: [TabSpec(id: "sdk-demo", command: ["python3", Repo.sdkExample], args: ["rows": 3])])
        let box = ClipboardBox()
        _ = await h.on { r in r.clipboard = { box.add($0); return true } }
        let copied = await h.run("copy row")
        #expect(copied.ok && copied.out == "copied 1 row, 40 bytes", "\(copied)")
        #expect(box.all == [Clipboard.osc52("ada 0000\t20\ttodo\t\ttrue\t2024-01-01\tnote 0")])
        _ = await h.on { r in r.clipboard = { _ in false } }
        let missed = await h.run("copy cell name")
        #expect(missed.ok && missed.out == "copied 1 cell (name), 8 bytes (stdout is not a terminal: nothing reached a clipboard)", "\(missed)")
        #expect(box.all.count == 1)
        let keys = await h.run("keys")
        #expect(keys.out.split(separator: "\n").first == "down j       move-down          move down a row", "\(keys)")
        await h.shutdown()
    }

    @Test func aBadKeyBindingStopsTheStartBeforeTheStateIsTouched() throws {
        let dir = TempDir()
        let config = dir.file("config.json")
        try Data(#"{"tabs": [{"id": "t", "command": ["plug"]}], "keys": {"f13": "quit"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let state = dir.file("state")
        #expect {
            _ = try Runtime(configPath: config, stateDirectory: state, clock: ManualClock())
        } throws: { error in
            "\(error)".contains("\(config): keys.f13: unknown key name \"f13\"; valid key names: a character as itself")
        }
        #expect(!FileManager.default.fileExists(atPath: state), "the state folder was not created")
    }

    /// The runtime applies config.json's `"keys"`: `keys --output json` lists the bindings in force.
    @Test func theKeysCommandListsConfigBindingsAsJSON() throws {
        let dir = TempDir()
        let config = dir.file("config.json")
        try Data(#"{"tabs": [{"id": "t", "command": ["plug"]}], "keys": {"S": ":sort amount desc", "q": null}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let runtime = try Runtime(configPath: config, stateDirectory: dir.file("state"), output: .json, clock: ManualClock())
        var lines: [String] = []
        runtime.write = { lines.append($0) }
        runtime.run("keys")
        let reply = try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any]
        let result = reply?["result"] as? [[String: Any]] ?? []
        #expect(result.last?["action"] as? String == ":sort amount desc")
        #expect(result.last?["keys"] as? [String] == ["S"])
        #expect(result.first { $0["action"] as? String == "quit" }?["keys"] as? [String] == ["ctrl-c"])
        #expect(!result.contains { $0["action"] as? String == "clear-sort" })
        #expect(runtime.keyMap.action(for: .char("S")) == .typed(.sortBy("amount", .descending), line: "sort amount desc"))
        runtime.shutdown()
    }
}
