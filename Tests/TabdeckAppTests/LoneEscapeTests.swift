import Foundation
import Testing
import TabdeckCore
import TabdeckTerminal
import TabdeckTime
@testable import TabdeckApp
import TabdeckTerminalIO

/// A lone Esc becomes a key 30 ms (virtual) after it was read, however many plugin events come
/// meanwhile: a chatty plugin once reset the wait on every event, so Esc never resolved and
/// ate the next key.
@Suite(.timeLimit(.minutes(1))) struct LoneEscapeTests {
    @Test func aLoneEscResolvesOnTimeDuringAFlood() throws {
        let dir = TempDir()
        let config = try writeConfig(dir, [TabSpec(id: "a", command: ["true"])])
        let clock = ManualClock()
        let runtime = try Runtime(configPath: config, stateDirectory: dir.file("state"), clock: clock)
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(fds[0]); close(fds[1]); close(devNull) }
        let screen = FullScreen(runtime: runtime, editor: LineEditor(historyFile: dir.file("history")),
                                terminal: RawTerminal(input: fds[0], output: devNull))
        screen.resizeSource.resume()  // run() does; a suspended source may not be released
        runtime.queue.attachInput(fds[0])
        // `/` opens the find prompt; the Esc typed after it closes it, once it is known to be alone.
        _ = write(fds[1], "/\u{1b}", 2)

        // The flood: badges (they coalesce) and replies nobody waits for (they do not, so the
        // flood is held at most `orderedPerTab` events ahead of the screen); virtual time moves
        // 1 ms per 10 of them. After it, time goes on without events until the Esc is resolved:
        // a wait that restarts on every event would end only there, far too late.
        let queue = runtime.queue
        let stop = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            for i in 0..<20_000 where !stop.get() {
                queue.put(badge(tab: "a", i), mayWait: true)
                queue.put(response(tab: "a", id: 1_000_000 + i), mayWait: true)
                if i % 10 == 0 { clock.advance(by: 0.001) }
            }
            while !stop.get() { clock.advance(by: 0.01) }
            finished.signal()
        }.start()

        while screen.model.timers.lastEscape == nil { _ = screen.collect() }
        stop.set(true)
        queue.stopWaiting()  // the flood may wait for room: let it see `stop`
        finished.wait()
        let resolution = try #require(screen.model.timers.lastEscape)
        let (read, resolved) = (resolution.read, resolution.resolved)
        #expect(resolved - read >= ScreenTimers.escapeWait)
        #expect(resolved - read <= 0.05, "a lone Esc read at \(read) s was resolved at \(resolved) s")
        guard case .table = screen.model.ui.mode else { Issue.record("Esc did not close the find prompt: \(screen.model.ui.mode)"); return }
        runtime.shutdown()
    }
}
