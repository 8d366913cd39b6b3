import Foundation
import TabdeckProtocol

/// How often (real seconds) the reaper looks again whether the processes left in a group are
/// gone: no event tells it when a process that is not its child ends.
let groupPollInterval = 0.01

/// The reaper thread of a plugin process: waits for it to exit, ends the rest of its process
/// group, lets the readers drain its pipes, reaps it (no zombies), and emits `.exited` exactly
/// once, after everything else.
extension PluginProcess {
    func reap() {
        waitForExitWithoutReaping()
        state.lock()
        leaderExited = true
        state.broadcast()
        endGroupLocked()
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

        releaseClock()
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

    /// The plugin is gone, whatever the reason: so must be every process of its group,
    /// including children that ignore SIGTERM or closed their pipes. SIGTERM to the group,
    /// up to the kill grace (on the clock) for them to go, then SIGKILL, and wait until no
    /// member is alive (zombies count as gone). The leader, unreaped, keeps the group id ours.
    /// Caller holds `state`.
    private func endGroupLocked() {
        if liveGroupMembers(pid, except: pid).isEmpty { return }
        signalLocked(SIGTERM)
        let deadline = settings.clock.now() + settings.killGrace
        groupDeadline = deadline
        while !liveGroupMembers(pid, except: pid).isEmpty && settings.clock.now() < deadline {
            waitLocked(until: deadline, poll: groupPollInterval)
        }
        groupDeadline = nil
        if liveGroupMembers(pid, except: pid).isEmpty { return }
        signalLocked(SIGKILL)
        // SIGKILL cannot be caught: only a process stuck in the kernel (uninterruptible I/O)
        // takes long. Look again until none is left; give up after a while rather than
        // hang the host (the process will die when its I/O ends).
        var looks = 0
        while looks < 1000 && !liveGroupMembers(pid, except: pid).isEmpty {
            waitLocked(until: nil, poll: groupPollInterval)
            looks += 1
        }
    }

    /// Waits for both readers to reach end of file. The group is gone by now, so a pipe still
    /// open and idle is held by a process that left the group (setsid) or was handed the pipe:
    /// after `pipeDrainIdle` seconds of idle pipes (on the clock) the reaper stops waiting; a
    /// detached reader's later lines are not delivered. Caller holds `state`.
    private func drainPipesLocked() {
        while readersRunning > 0 {
            let now = settings.clock.now()
            let allIdle = readersInRead == readersRunning
            if allIdle && now - lastReadTransition >= settings.pipeDrainIdle { return }
            waitLocked(until: allIdle ? lastReadTransition + settings.pipeDrainIdle : nil)
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
