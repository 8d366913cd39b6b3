#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Logging to stderr (never stdout, which carries the protocol). The host keeps stderr in
/// the tab's log file. Lines below `TABDECK_LOG` (debug, info, warning, error; default info)
/// are dropped.
public enum PluginLog {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    /// The lowest level written.
    nonisolated(unsafe) public static var threshold: Level = {
        switch getenv("TABDECK_LOG").map({ String(cString: $0) }) {
        case "debug": .debug
        case "warning": .warning
        case "error": .error
        case "off": .error
        default: .info
        }
    }()

    /// Writes one line to stderr (a single write(2)).
    public static func write(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= threshold else { return }
        var bytes = Array("[\(level.name)] \(message())\n".utf8)
        bytes.withUnsafeMutableBytes { b in _ = Glibc.write(2, b.baseAddress, b.count) }
    }

    public static func debug(_ m: @autoclosure () -> String) { write(.debug, m()) }
    public static func info(_ m: @autoclosure () -> String) { write(.info, m()) }
    public static func warning(_ m: @autoclosure () -> String) { write(.warning, m()) }
    public static func error(_ m: @autoclosure () -> String) { write(.error, m()) }
}
