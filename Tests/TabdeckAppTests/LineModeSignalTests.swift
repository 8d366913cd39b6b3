import Foundation
import Testing
@testable import TabdeckApp

/// A signal that comes between two commands (after the last command took its events, before
/// line mode reads the next line) is queued, not seen by the read: line mode must act on it
/// before reading, or it would wait for a line that may never come (`kill -HUP` of a script
/// that keeps stdin open). The signal is put in the queue as the watcher puts it then.
@Suite(.serialized, hangGuard) struct LineModeSignalTests {
    let dir = TempDir()

    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func aSignalQueuedBetweenCommandsEndsTheSessionBeforeTheNextRead(signal: Int32) async throws {
        let h = try Host(dir, tabs: [TabSpec(id: "hello", command: ["python3", Repo.root + "/docs/examples/hello.py"])])
        let outcome = await h.on { runtime -> (Int32, Int, Bool) in
            runtime.queue.put(.signal(signal))
            var reads = 0
            let status = LineMode.run(runtime) { reads += 1; return reads > 3 ? nil : "tabs" }
            return (status, reads, runtime.quitRequested)
        }
        #expect(outcome?.1 == 0, "no line is read once the signal is queued")
        #expect(outcome?.2 == true)
        #expect(outcome?.0 == 0)
    }

    @Test func aPromptKeepsCtrlCForItsLine() async throws {
        // At the readline prompt SIGINT empties the line: one queued between commands does not quit.
        let h = try Host(dir, tabs: [TabSpec(id: "hello", command: ["python3", Repo.root + "/docs/examples/hello.py"])])
        let reads = await h.on { runtime -> Int in
            runtime.queue.put(.signal(SIGINT))
            var reads = 0
            _ = LineMode.run(runtime, prompt: true) { reads += 1; return reads > 2 ? nil : "tabs" }
            return reads
        }
        #expect(reads == 3)
    }
}
