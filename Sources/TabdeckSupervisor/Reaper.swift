import Foundation
import TabdeckProtocol

/// The reaper thread of a plugin process: waits for it to exit, lets the readers drain its
/// pipes, reaps it (no zombies), and emits `.exited` exactly once, after everything else.
extension PluginProcess {
    func reap() {
        waitForExitWithoutReaping()
        state.lock()
        leaderExited = true
        state.broadcast()
        drainPipesLocked()
        let exit = reapLocked()
        state.unlock()
        writer.abandonAndClose()

        emitLock.lock()
        state.lock()
        finished = true
        let pending = deadlines.removeAll()
        state.unlock()
        onFinished(self)
        emit(.exited(tab: spec.tab, exit, pending: pending))
        emitLock.unlock()

        state.lock()
        done = true
        state.broadcast()
        state.unlock()
    }

    /// Blocks until the process has exited, leaving it a zombie so that its pid (and process
    /// group id) cannot be reused while we may still signal the group.
    private func waitForExitWithoutReaping() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            if errno != EINTR { return }  // ECHILD: reaped by someone else (SIGCHLD ignored?)
        }
    }

    /// Waits for both readers to reach end of file. A pipe still open and idle after the
    /// process exited is held by a child it left behind: SIGKILL the process group (safe:
    /// the leader is not reaped yet), then give up after another idle period; a detached
    /// reader's later lines are not delivered. Caller holds `state`.
    private func drainPipesLocked() {
        var killedGroup = false
        while readersRunning > 0 {
            let now = ContinuousClock.now
            let idle = readersInRead == readersRunning ? lastReadTransition.duration(to: now) : .zero
            if idle >= settings.pipeDrainIdle {
                if killedGroup { return }
                signalLocked(SIGKILL)
                killedGroup = true
                lastReadTransition = now
                continue
            }
            _ = state.wait(until: Date(timeIntervalSinceNow: (settings.pipeDrainIdle - idle).seconds))
        }
    }

    /// Reaps the process and says how it ended. Caller holds `state`.
    private func reapLocked() -> PluginExit {
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &status, 0)
        } while result < 0 && errno == EINTR
        reaped = true
        guard result == pid else { return .exited(-1) }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
