import Glibc

/// What one descriptor of a child is.
public enum ChildDescriptor: Sendable {
    /// A descriptor of the parent, duplicated onto the child's.
    case from(Int32)
    /// `/dev/null`, opened for reading (stdin) or writing.
    case devNull
}

/// How to start a child process: the one posix_spawn set-up of the code base (plugins, the
/// checker's raw channel, short helper commands). The child gets the descriptors named here and
/// no other (every higher one is closed), a process group of its own (a terminal's Ctrl-C does
/// not reach it, and its whole group can be signalled), default signal dispositions and an
/// empty signal mask, whatever the parent did with them.
public struct ChildSpawn: Sendable {
    /// The program and its arguments.
    public var argv: [String]
    /// The whole environment, as `NAME=value`.
    public var environment: [String]
    /// The child's descriptors 0, 1, 2 (and more, in order), by number.
    public var descriptors: [Int32: ChildDescriptor]
    /// The child's working directory ("" keeps the parent's).
    public var workingDirectory = ""
    /// Where a program without `/` is looked for: the parent's `PATH` (posix_spawnp) when nil.
    public var executable: String?

    public init(argv: [String], environment: [String], descriptors: [Int32: ChildDescriptor],
                workingDirectory: String = "", executable: String? = nil) {
        self.argv = argv; self.environment = environment; self.descriptors = descriptors
        self.workingDirectory = workingDirectory; self.executable = executable
    }

    /// Signals reset to their default action in the child (the host ignores SIGPIPE; a terminal
    /// UI may ignore or catch SIGINT).
    static let defaultedSignals: [Int32] = [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGCHLD]

    /// Starts the child: its pid (also its process group id), or posix_spawn's error number
    /// (`ENOSYS` when a working directory is asked of a C library that cannot set it).
    public func start() -> Result<pid_t, SpawnErrno> {
        guard let program = argv.first, !program.isEmpty else { return .failure(SpawnErrno(code: ENOENT)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in descriptors.sorted(by: { $0.key < $1.key }) {
            switch source {
            case .from(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .devNull: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Descriptors the parent opened without close-on-exec do not leak into the child.
        _ = GNUExtensions.addCloseFrom?(&actions, (descriptors.keys.max() ?? 2) + 1)
        if !workingDirectory.isEmpty {
            guard let addChdir = GNUExtensions.addChdir else { return .failure(SpawnErrno(code: ENOSYS)) }
            _ = addChdir(&actions, workingDirectory)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in Self.defaultedSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        let args = CStringArray(argv)
        let env = CStringArray(environment)
        var pid: pid_t = 0
        let result = executable.map { posix_spawn(&pid, $0, &actions, &attributes, args.pointers, env.pointers) }
            ?? posix_spawnp(&pid, program, &actions, &attributes, args.pointers, env.pointers)
        return result == 0 ? .success(pid) : .failure(SpawnErrno(code: result))
    }
}

/// posix_spawn's error number.
public struct SpawnErrno: Error, Sendable {
    public var code: Int32
}
