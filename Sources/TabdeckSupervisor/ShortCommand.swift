import Glibc

/// Runs a short helper command to its end (the host's own housekeeping, such as `ssh -O exit`
/// for a shared connection on quit), not a plugin: no pipes (stdin, stdout and stderr are
/// /dev/null), its own process group, and at most `limit` seconds before its group is killed.
///
/// Returns the exit status, or nil when it could not be started, was killed or timed out.
@discardableResult
public func runShortCommand(_ argv: [String], workingDirectory: String = "", limit: Double = 3) -> Int32? {
    guard let program = argv.first, !program.isEmpty else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in 0...2 {
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    _ = GNUExtensions.addCloseFrom?(&actions, 3)
    if !workingDirectory.isEmpty, let addChdir = GNUExtensions.addChdir { _ = addChdir(&actions, workingDirectory) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
    posix_spawnattr_setpgroup(&attributes, 0)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    let args = CStringArray(argv)
    let env = CStringArray(childEnvironment(adding: [:]))
    var pid: pid_t = 0
    guard posix_spawnp(&pid, program, &actions, &attributes, args.pointers, env.pointers) == 0 else { return nil }
    var status: Int32 = 0
    var waited = 0.0
    while true {
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { break }
        if result < 0 && errno != EINTR { return nil }
        if waited >= limit {
            Glibc.kill(-pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            return nil
        }
        usleep(10_000)
        waited += 0.01
    }
    // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported).
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
}
