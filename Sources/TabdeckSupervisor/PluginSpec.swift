/// How to run one plugin: the process behind one tab.
public struct PluginSpec: Sendable, Equatable {
    /// The tab id this process serves; every event names it.
    public var tab: String
    /// argv: the program (looked up through `PATH` when it has no `/`) and its arguments.
    public var command: [String]
    /// Variables added to (or replacing those of) the host's environment.
    /// The supervisor also sets `TABDECK_PROTOCOL=1` unless given here.
    public var environment: [String: String]
    /// The child's working directory; empty means the host's.
    public var workingDirectory: String
    /// Where stderr goes: appended, one timestamped line per stderr line. Parent folders are
    /// created. Empty means stderr is only delivered as events.
    public var logFile: String
    /// How big `logFile` grows before it is rotated.
    public var logRotation = LogRotation.standard
    /// A descriptor of the host's that the plugin gets as its descriptor 3 (the data of a pipe,
    /// `cmd | tabdeck`); nil: the plugin gets only stdin, stdout and stderr.
    public var dataDescriptor: Int32?

    /// Creates a spec.
    public init(
        tab: String, command: [String], environment: [String: String] = [:],
        workingDirectory: String = "", logFile: String = "", dataDescriptor: Int32? = nil
    ) {
        self.dataDescriptor = dataDescriptor
        self.tab = tab
        self.command = command
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.logFile = logFile
    }
}

/// How a plugin process ended.
public enum PluginExit: Sendable, Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// It was ended by this signal (e.g. 9 for SIGKILL).
    case signalled(Int32)
}
