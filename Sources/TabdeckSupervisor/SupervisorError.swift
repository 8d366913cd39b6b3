import TabdeckProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the supervisor could not start a plugin or send it a message.
public enum SupervisorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The spec's command is empty.
    case emptyCommand(tab: String)
    /// The program was not found (in `PATH`, when it has no `/`).
    case commandNotFound(tab: String, command: [String], searchPath: String?)
    /// The program exists but cannot be executed (permissions, not a program).
    case notExecutable(tab: String, command: [String], errno: Int32)
    /// The working directory does not exist or is not a directory.
    case workingDirectoryUnavailable(tab: String, path: String, errno: Int32)
    /// The log file (or its folder) cannot be created or opened.
    case logFileUnavailable(tab: String, path: String, errno: Int32)
    /// Spawning failed for another reason (out of processes, of file descriptors, ...).
    case spawnFailed(tab: String, command: [String], errno: Int32)
    /// `start` for a tab whose process is still running.
    case alreadyRunning(tab: String)
    /// `send` to a tab with no running process.
    case notRunning(tab: String)
    /// The plugin's stdin is closed: it is being stopped, or it stopped reading
    /// (`errno` is the write error, e.g. EPIPE, when there was one).
    case stdinClosed(tab: String, errno: Int32?)
    /// The encoded message is longer than the protocol allows.
    case messageTooLong(tab: String, byteCount: Int, limit: Int)
    /// A request with this id is already pending for the tab.
    case duplicateRequestID(tab: String, id: RequestID)

    /// The tab the error is about.
    public var tab: String {
        switch self {
        case .emptyCommand(let tab), .commandNotFound(let tab, _, _), .notExecutable(let tab, _, _),
            .workingDirectoryUnavailable(let tab, _, _), .logFileUnavailable(let tab, _, _),
            .spawnFailed(let tab, _, _), .alreadyRunning(let tab), .notRunning(let tab),
            .stdinClosed(let tab, _), .messageTooLong(let tab, _, _), .duplicateRequestID(let tab, _):
            return tab
        }
    }

    /// A message a user can read, naming the tab and, when it matters, the command.
    public var description: String { "tab '\(tab)': \(reason)" }

    /// What went wrong, without the tab (for a caller that names the tab itself).
    public var reason: String {
        switch self {
        case .emptyCommand:
            return "no command configured"
        case .commandNotFound(_, let command, let searchPath):
            let program = command.first ?? ""
            if program.contains("/") {
                return "command not found: \(program) (no such file)"
            }
            return "command not found: \(program) (searched PATH=\(searchPath ?? "<unset>"))"
        case .notExecutable(_, let command, let code):
            return "cannot execute \(command.first ?? ""): \(errnoText(code))"
        case .workingDirectoryUnavailable(_, let path, let code):
            return "working directory \(path): \(errnoText(code))"
        case .logFileUnavailable(_, let path, let code):
            return "cannot open log file \(path): \(errnoText(code))"
        case .spawnFailed(_, let command, let code):
            return "cannot start \(command.joined(separator: " ")): \(errnoText(code))"
        case .alreadyRunning:
            return "the plugin is already running"
        case .notRunning:
            return "the plugin is not running"
        case .stdinClosed(_, let code?):
            return "the plugin stopped reading its input: \(errnoText(code))"
        case .stdinClosed(_, nil):
            return "the plugin's input is closed (it is stopping)"
        case .messageTooLong(_, let byteCount, let limit):
            return "message of \(byteCount) bytes is longer than the limit of \(limit) bytes"
        case .duplicateRequestID(_, let id):
            return "request id \(id) is already pending"
        }
    }
}

/// `strerror` text for an errno value, e.g. "No such file or directory (2)".
func errnoText(_ code: Int32) -> String {
    "\(String(cString: strerror(code))) (\(code))"
}
