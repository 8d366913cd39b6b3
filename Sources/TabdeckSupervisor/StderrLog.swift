#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import TabdeckProtocol

/// A plugin's log file: its stderr lines, through the host's one logger (swift-log with
/// ``LogFileHandler``), appended as `2026-11-22T10:00:00.123Z <line>`, the line made safe by
/// ``Sanitizer/clean(utf8:)`` (controls and bidi controls shown as `\e`, `\x07`, `\u202e`;
/// bytes of invalid UTF-8 as `\xNN`), so that `cat`/`tail -f` of the log cannot drive the terminal.
/// Used by one thread (the stderr reader); closed when that reader ends.
final class StderrLog {
    private let handler: LogFileHandler
    private let logger: Logger

    /// Opens (creating it and its parent folders) `path` for appending.
    init(path: String, rotation: LogRotation) throws(Errno) {
        let handler = LogFileHandler(file: try LogFile(path: path, rotation: rotation))
        self.handler = handler
        logger = Logger(label: "tabdeck.plugin-stderr") { _ in handler }
    }

    /// Appends one line with the current UTC time. Write errors (disk full) are ignored:
    /// a plugin's logging must never take the plugin down.
    func append(_ line: [UInt8]) {
        let text = line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? String(decoding: line, as: UTF8.self) : Sanitizer.clean(utf8: line)
        logger.info("\(text)")
    }

    /// Closes the file; later appends are ignored.
    func closeFile() { handler.close() }
}

/// The current UTC time as ISO 8601 with milliseconds, e.g. `2026-11-22T10:00:00.123Z`.
func utcTimestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ value: Int32, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
        + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
}

/// `mkdir -p` of the folder holding `path`.
func makeParentDirectories(of path: String) throws(Errno) {
    var components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
    guard !components.isEmpty else { return }
    var current = path.hasPrefix("/") ? "" : "."
    if path.hasPrefix("/") { components = components.dropFirst() }
    for component in components where !component.isEmpty {
        current += "/" + component
        if mkdir(current, 0o755) != 0 && errno != EEXIST {
            throw Errno(code: errno)
        }
    }
}
