import Glibc

/// Runs a short helper command to its end (the host's own housekeeping, such as `ssh -O exit`
/// for a shared connection on quit), not a plugin: no pipes (stdin, stdout and stderr are
/// /dev/null), its own process group, and at most `limit` seconds before its group is killed.
///
/// Returns the exit status, or nil when it could not be started, was killed or timed out.
@discardableResult
public func runShortCommand(_ argv: [String], workingDirectory: String = "", limit: Double = 3) -> Int32? {
    guard let program = argv.first, !program.isEmpty else { return nil }
    let child = ChildSpawn(argv: argv, environment: childEnvironment(adding: [:]),
                           descriptors: [0: .devNull, 1: .devNull, 2: .devNull], workingDirectory: workingDirectory)
    guard case .success(let pid) = child.start() else { return nil }
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
