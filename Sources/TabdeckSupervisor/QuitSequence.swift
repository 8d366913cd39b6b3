import Foundation
import TabdeckProtocol

/// Ending a plugin process: signals, the quit sequence, and waiting for the end. Grace periods
/// are counted on the supervisor's clock.
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

    /// SIGKILL to the group now.
    func kill() {
        state.lock()
        signalLocked(SIGKILL)
        state.unlock()
    }

    /// The quit sequence, on a thread of its own: `shutdown` request, close stdin, wait
    /// `grace`, SIGTERM to the group, wait `grace`, SIGKILL. A second call (or a call while the
    /// group is being terminated) is a no-op. Once the process exits, the reaper ends what is
    /// left of its group.
    func stop(grace: Double) {
        state.lock()
        if stopping || terminating || finished {
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
        onThread("stop") { [self] in
            if waitForLeaderExit(timeout: grace) { return }
            state.lock(); signalLocked(SIGTERM); state.unlock()
            if waitForLeaderExit(timeout: grace) { return }
            state.lock(); signalLocked(SIGKILL); state.unlock()
        }
    }

    /// Ends the process group without asking: SIGTERM now, SIGKILL after the kill grace if the
    /// process is still there. A no-op when already terminating or done.
    func terminate() {
        state.lock()
        if terminating || finished {
            state.unlock()
            return
        }
        terminating = true
        signalLocked(SIGTERM)
        state.unlock()
        writer.abandonAndClose()
        onThread("terminate") { [self] in
            if waitForLeaderExit(timeout: settings.killGrace) { return }
            state.lock(); signalLocked(SIGKILL); state.unlock()
        }
    }

    /// Waits until the process has exited (not necessarily reaped), at most `timeout` seconds
    /// on the clock; false on timeout.
    private func waitForLeaderExit(timeout: Double) -> Bool {
        state.lock()
        defer { state.unlock() }
        let deadline = settings.clock.now() + timeout
        defer { stopDeadline = nil }
        while !leaderExited {
            if settings.clock.now() >= deadline { return false }
            stopDeadline = deadline
            waitLocked(until: deadline)
        }
        return true
    }

    /// Blocks until `.exited` has been delivered.
    func waitUntilDone() {
        state.lock()
        while !done { state.wait() }
        state.unlock()
    }

    private func onThread(_ role: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "tabdeck.\(spec.tab).\(role)"
        thread.stackSize = 128 * 1024
        thread.start()
    }
}
