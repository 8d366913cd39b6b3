import Foundation
import Testing
import TabdeckTime
@testable import TabdeckApp

/// One runtime per state folder: a second one is refused, naming the first.
@Suite struct StateFolderTests {
    @Test func aSecondRuntimeOnTheSameFolderIsRefused() throws {
        let dir = TempDir()
        let config = try writeConfig(dir, [TabSpec(id: "a", command: ["true"])], sections: [])
        let state = dir.file("state")
        // Runtimes made here, with no queue or closure holding them: each goes at the end of its scope.
        do {
            let first = try Runtime(configPath: config, stateDirectory: state, mode: "full screen", clock: ManualClock())
            do {
                _ = try Runtime(configPath: config, stateDirectory: state, clock: ManualClock())
                Issue.record("a second runtime opened the same state folder")
            } catch {
                let text = error.description
                #expect(text.hasPrefix("the state folder \(state) is in use by tabdeck pid \(getpid()) (started "), "\(text)")
                #expect(text.contains(", full screen); quit that one first"), "\(text)")
            }
            // The first one is unaffected.
            first.write = { _ in }
            #expect(first.run("tab select a"))
            first.shutdown()
        }
        // Once the first runtime is gone, the folder is free again, with what it saved.
        let again = try Runtime(configPath: config, stateDirectory: state, clock: ManualClock())
        #expect(again.workspace.layout.selected == "a")
        again.shutdown()
    }
}
