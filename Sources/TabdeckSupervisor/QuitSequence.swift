import Foundation
import TabdeckProtocol

/// Ending a plugin process: signals, the quit sequence, and waiting for the end.
extension PluginProcess {
    /// Sends `signal` to the process group (or the process, if it left its group), unless the
    /// process is already reaped: its pid, and so its group id, may then belong to another.
    /// Caller holds `state`.
    func signalLocked(_ signal: Int32) {
        guard !reaped else { return }
        if Glibc.kill(-pid, signal) != 0 {
            _ = Glibc.kill(pid, signal)
        }
    }

    /// SIGKILL now.
    func kill() {
        state.lock()
        signalLocked(SIGKILL)
        state.unlock()
    }

    /// The quit sequence, on a thread of its own: `shutdown` request, close stdin, wait
    /// `grace`, SIGTERM, wait `grace`, SIGKILL. A second call is a no-op.
    func stop(grace: Duration) {
        state.lock()
        if stopping || finished {
            state.unlock()
            return
        }
        stopping = true
        shutdownSent = !deadlines.contains(Self.shutdownID)
        state.unlock()
        if shutdownSent {
            var line = MessageCodec.encode(.request(id: Self.shutdownID, method: "shutdown", params: .object(JSONObject())))
            line.append(UInt8(ascii: "\n"))
            _ = writer.enqueue(line)
        }
        writer.closeWhenDrained()
        let thread = Thread { [self] in
            if waitForLeaderExit(timeout: grace) { return }
            state.lock(); signalLocked(SIGTERM); state.unlock()
            if waitForLeaderExit(timeout: grace) { return }
            state.lock(); signalLocked(SIGKILL); state.unlock()
        }
        thread.name = "tabdeck.\(spec.tab).stop"
        thread.stackSize = 128 * 1024
        thread.start()
    }

    /// Waits until the process has exited (not necessarily reaped); false on timeout.
    private func waitForLeaderExit(timeout: Duration) -> Bool {
        let limit = Date(timeIntervalSinceNow: timeout.seconds)
        state.lock()
        defer { state.unlock() }
        while !leaderExited {
            if !state.wait(until: limit) { return leaderExited }
        }
        return true
    }

    /// Blocks until `.exited` has been delivered.
    func waitUntilDone() {
        state.lock()
        while !done { state.wait() }
        state.unlock()
    }
}
