import Glibc

/// A child started by `spawnPlugin`: its pid (also its process group id) and the parent's
/// ends of its three pipes. The caller owns the file descriptors.
struct SpawnedChild: Sendable {
    var pid: pid_t
    /// Write end of the child's stdin.
    var stdin: Int32
    /// Read end of the child's stdout.
    var stdout: Int32
    /// Read end of the child's stderr.
    var stderr: Int32
}

/// Starts `spec.command` with posix_spawn: stdin/stdout/stderr wired to new pipes (created
/// close-on-exec, so no other child inherits them), every other descriptor closed in the
/// child, the child in a process group of its own (a terminal Ctrl-C does not reach it and
/// the supervisor can signal the whole group), default signal dispositions and an empty
/// signal mask.
///
/// A program without `/` is looked up through `PATH`: the spec's `PATH` when it sets one,
/// else the host's (posix_spawnp).
func spawnPlugin(_ spec: PluginSpec) throws(SupervisorError) -> SpawnedChild {
    guard let program = spec.command.first, !program.isEmpty else {
        throw .emptyCommand(tab: spec.tab)
    }
    if !spec.workingDirectory.isEmpty {
        var info = stat()
        if stat(spec.workingDirectory, &info) != 0 {
            throw .workingDirectoryUnavailable(tab: spec.tab, path: spec.workingDirectory, errno: errno)
        }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            throw .workingDirectoryUnavailable(tab: spec.tab, path: spec.workingDirectory, errno: ENOTDIR)
        }
    }

    // Where to look for the program.
    var executable = program
    var usePathSearch = false
    let hostPath = getenv("PATH").map { String(cString: $0) }
    var searchPath = hostPath
    if !program.contains("/") {
        if let override = spec.environment["PATH"] {
            searchPath = override
            guard let found = searchExecutable(program, in: override) else {
                throw .commandNotFound(tab: spec.tab, command: spec.command, searchPath: override)
            }
            executable = found
        } else {
            usePathSearch = true
        }
    }

    let pipes: (stdin: [Int32], stdout: [Int32], stderr: [Int32])
    do {
        pipes = (try makePipe(), try makePipe(), try makePipe())
    } catch {
        throw .spawnFailed(tab: spec.tab, command: spec.command, errno: error.code)
    }
    // The child's ends are closed in the parent whatever happens.
    defer {
        close(pipes.stdin[0]); close(pipes.stdout[1]); close(pipes.stderr[1])
    }
    func closeParentEnds() {
        close(pipes.stdin[1]); close(pipes.stdout[0]); close(pipes.stderr[0])
    }

    var descriptors: [Int32: ChildDescriptor] = [0: .from(pipes.stdin[0]), 1: .from(pipes.stdout[1]), 2: .from(pipes.stderr[1])]
    // A pipe's data, when the spec hands one over, is the plugin's descriptor 3.
    if let data = spec.dataDescriptor { descriptors[3] = .from(data) }
    let child = ChildSpawn(argv: spec.command, environment: childEnvironment(adding: spec.environment), descriptors: descriptors,
                           workingDirectory: spec.workingDirectory, executable: usePathSearch ? nil : executable)
    var pid: pid_t = 0
    var result: Int32 = 0
    switch child.start() {
    case .success(let started): pid = started
    case .failure(let error): result = error.code
    }
    if result != 0 {
        closeParentEnds()
        switch result {
        case ENOENT, ENOTDIR:
            throw .commandNotFound(tab: spec.tab, command: spec.command, searchPath: program.contains("/") ? nil : searchPath)
        case EACCES, ENOEXEC, EISDIR, EPERM:
            throw .notExecutable(tab: spec.tab, command: spec.command, errno: result)
        default:
            throw .spawnFailed(tab: spec.tab, command: spec.command, errno: result)
        }
    }
    return SpawnedChild(pid: pid, stdin: pipes.stdin[1], stdout: pipes.stdout[0], stderr: pipes.stderr[0])
}

/// An errno value as an Error.
struct Errno: Error { var code: Int32 }

/// A close-on-exec pipe whose ends are both above 2, so that dup2 onto 0...2 in the child
/// never clobbers another end (it could happen if the host closed its own stdio).
private func makePipe() throws(Errno) -> [Int32] {
    var fds: [Int32] = [0, 0]
    if let pipe2 = GNUExtensions.pipe2 {
        guard pipe2(&fds, O_CLOEXEC) == 0 else { throw Errno(code: errno) }
    } else {
        // Not atomic: a child spawned by another thread in between may inherit these.
        guard pipe(&fds) == 0 else { throw Errno(code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }
    for index in 0..<2 where fds[index] <= 2 {
        let moved = fcntl(fds[index], F_DUPFD_CLOEXEC, 3)
        if moved < 0 {
            let code = errno
            close(fds[0]); close(fds[1])
            throw Errno(code: code)
        }
        close(fds[index])
        fds[index] = moved
    }
    return fds
}

/// The first executable regular file named `program` in a `PATH`-style list
/// (an empty entry means the current directory).
func searchExecutable(_ program: String, in path: String) -> String? {
    for directory in path.split(separator: ":", omittingEmptySubsequences: false) {
        let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + program
        var info = stat()
        if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
            return candidate
        }
    }
    return nil
}

/// The host's environment with `extra` added (replacing same-named variables), plus
/// `TABDECK_PROTOCOL=1` unless `extra` sets it; as `NAME=value` strings.
func childEnvironment(adding extra: [String: String]) -> [String] {
    var result: [String] = []
    let environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
    if var entry = environment {
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            let name = variable.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? variable
            if extra[name] == nil && name != "TABDECK_PROTOCOL" {
                result.append(variable)
            }
            entry += 1
        }
    }
    for (name, value) in extra.sorted(by: { $0.key < $1.key }) {
        result.append("\(name)=\(value)")
    }
    if extra["TABDECK_PROTOCOL"] == nil {
        result.append("TABDECK_PROTOCOL=1")
    }
    return result
}

/// A NULL-terminated array of C strings that lives as long as this value.
final class CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            pointers[index] = strdup(string)
        }
        pointers[strings.count] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
