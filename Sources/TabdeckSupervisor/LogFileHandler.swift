#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import TabdeckProtocol

/// The host's one log writer: a swift-log `LogHandler` that appends each message to a tab's
/// log file (`<state>/logs/<tab>.log`) as `2026-11-22T10:00:00.123Z <line>`, the line made
/// safe by ``Sanitizer/clean(_:)`` (controls and bidi controls shown as `\e`, `\x07`,
/// `\u202e`), so that `cat`/`tail -f` of the log cannot drive the terminal.
///
/// Both the plugin's stderr (the supervisor's reader thread) and the runtime's own lines
/// (`Runtime.appendLog`) go through it. Level and metadata are not written: the file format
/// stays the one line per message that users and tests read.
public struct LogFileHandler: LogHandler {
    /// The open file, shared by the copies of the handler (a `Logger` is a value).
    let file: LogFile
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    /// A handler appending to `path` (created with its parent folders), rotated by `rotation`.
    public init(path: String, rotation: LogRotation = .standard) throws { file = try LogFile(path: path, rotation: rotation) }

    init(file: LogFile) { self.file = file }

    /// A logger labelled `label` writing to `path`.
    public static func logger(label: String, path: String, rotation: LogRotation = .standard) throws -> Logger {
        let handler = try LogFileHandler(path: path, rotation: rotation)
        return Logger(label: label) { _ in handler }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        file.append(Array(Sanitizer.clean(event.message.description).utf8))
    }

    /// Closes the file; later messages are dropped.
    public func close() { file.closeFile() }
}

/// How big a log grows: at `maxBytes` it becomes `NAME.1` (the older ones `NAME.2`, … up to
/// `files`; the oldest is deleted) and a new one starts, so a plugin's logs never take more
/// than about `maxBytes × (files + 1)`.
public struct LogRotation: Sendable, Equatable {
    public var maxBytes: Int
    public var files: Int
    public init(maxBytes: Int, files: Int) { self.maxBytes = maxBytes; self.files = files }
    /// 10 MiB, three older files.
    public static let standard = LogRotation(maxBytes: 10 << 20, files: 3)
}

/// A log file open for appending, written with one `write(2)` per line and rotated by its
/// ``LogRotation``. Several writers may append to one path (a plugin's stderr and the host's
/// own lines): the size is the file's (`fstat`), and a rotation is done once, under a lock of
/// the process, by the writer that finds the file still too big. Write errors (disk full) are
/// ignored: logging must never take the host or a plugin down.
final class LogFile: @unchecked Sendable {
    private let lock = Mutex()
    private var fd: Int32
    private let path: String
    private let rotation: LogRotation

    /// Opens (creating it and its parent folders) `path` for appending.
    init(path: String, rotation: LogRotation = .standard) throws(Errno) {
        try makeParentDirectories(of: path)
        self.path = path
        self.rotation = rotation
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw Errno(code: errno) }
    }

    /// Rotates the file when this record would take it past the limit; reopens the path when
    /// another writer rotated it. Caller holds `lock`.
    private func rotateIfFull(adding bytes: Int) {
        var own = stat()
        guard fstat(fd, &own) == 0, Int(own.st_size) + bytes > rotation.maxBytes, own.st_size > 0 else { return }
        LogFile.rotating.withLock {
            var current = stat()
            // Another writer rotated it already: only reopen.
            if stat(path, &current) == 0, current.st_ino == own.st_ino {
                if rotation.files <= 0 {
                    _ = unlink(path)
                } else {
                    _ = unlink("\(path).\(rotation.files)")
                    for n in stride(from: rotation.files - 1, through: 1, by: -1) { _ = rename("\(path).\(n)", "\(path).\(n + 1)") }
                    _ = rename(path, "\(path).1")
                }
            }
            let reopened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            if reopened >= 0 { close(fd); fd = reopened }
        }
    }

    /// One rotation at a time in the process.
    private static let rotating = Mutex()

    /// Appends one already safe line with the current UTC time.
    func append(_ line: [UInt8]) {
        var record = Array(utcTimestamp().utf8)
        record.reserveCapacity(record.count + line.count + 2)
        record.append(UInt8(ascii: " "))
        record.append(contentsOf: line)
        record.append(UInt8(ascii: "\n"))
        lock.withLock {
            guard fd >= 0 else { return }
            rotateIfFull(adding: record.count)
            Descriptors.writeAll(fd, record)
        }
    }

    func closeFile() {
        lock.withLock {
            if fd >= 0 { close(fd); fd = -1 }
        }
    }

    deinit { if fd >= 0 { close(fd) } }
}

/// A pthread mutex (the handler is called from any thread).
private final class Mutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex); defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
