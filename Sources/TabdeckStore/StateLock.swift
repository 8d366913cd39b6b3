import TabdeckProtocol
import Foundation
import Synchronization
import TabdeckCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who holds a state folder: written into the lock file so that a second Tabdeck can name
/// the running one.
public struct StateLockOwner: Sendable, Hashable, CustomStringConvertible {
    /// The holder's process id.
    public var pid: Int32
    /// When it took the folder, in Unix seconds.
    public var started: Int64
    /// How it runs, in words ("full screen", "line mode").
    public var mode: String

    /// This process, starting now, in `mode`.
    public static func current(mode: String) -> StateLockOwner {
        StateLockOwner(pid: getpid(), started: Int64(Date().timeIntervalSince1970), mode: mode)
    }

    /// Makes an owner record.
    public init(pid: Int32, started: Int64, mode: String) { self.pid = pid; self.started = started; self.mode = mode }

    /// The lock file's text: `pid 1234`, `started 1795650000`, `mode full screen`, one a line.
    var fileText: String { "pid \(pid)\nstarted \(started)\nmode \(mode.filter { !$0.isNewline })\n" }

    /// Reads ``fileText`` back; nil when it is not there (yet) or not understood.
    static func parse(_ text: String) -> StateLockOwner? {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        guard let pid = fields["pid"].flatMap({ Int32($0) }), let started = fields["started"].flatMap({ Int64($0) }) else {
            return nil
        }
        return StateLockOwner(pid: pid, started: started, mode: fields["mode"] ?? "mode unknown")
    }

    /// `tabdeck pid 1234 (started 2026-11-24 22:40 UTC, full screen)`.
    public var description: String {
        var seconds = time_t(started)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday)) \(pad(parts.tm_hour)):\(pad(parts.tm_min)) UTC"
        return "tabdeck pid \(pid) (started \(date), \(Sanitizer.clean(mode)))"
    }
}

/// One Tabdeck per state folder: an exclusive advisory lock (`flock`) on
/// `<state>/tabdeck.lock`, taken before the database is opened and held until
/// ``release()`` (or until the process ends: the kernel drops the lock even after `kill -9`,
/// so a stale lock file never blocks anyone). The file holds the owner (``StateLockOwner``),
/// so a second Tabdeck is refused with a message that names the running one.
///
/// The descriptor is close-on-exec, so plugins never inherit the lock.
public final class StateLock: Sendable {
    /// The lock file's name inside the state folder.
    public static let fileName = "tabdeck.lock"
    /// The lock file.
    public let path: String
    private let descriptor: Mutex<Int32>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    /// Takes the lock of `directory` (which must exist) for `owner`, or throws
    /// ``StoreError/inUse(path:holder:)`` naming the process that has it.
    public static func acquire(directory: String, owner: StateLockOwner) throws(StoreError) -> StateLock {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .notWritable(path: path, reason: "cannot open the lock file: \(DatabaseFiles.message(errno))") }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        if result != 0 {
            let code = errno
            let holder = code == EWOULDBLOCK ? readOwner(fd) : nil
            close(fd)
            guard code == EWOULDBLOCK else {
                throw .notWritable(path: path, reason: "cannot lock the state folder: \(DatabaseFiles.message(code))")
            }
            throw .inUse(path: directory, holder: holder?.description ?? "another tabdeck (which has not written its pid yet)")
        }
        let text = Array(owner.fileText.utf8)
        let written = ftruncate(fd, 0) == 0 ? text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } : -1
        if written != text.count {
            let reason = DatabaseFiles.message(errno)
            close(fd)
            throw .notWritable(path: path, reason: "cannot write the lock file: \(reason)")
        }
        return StateLock(path: path, descriptor: fd)
    }

    /// The owner recorded in a lock file, if it can be read.
    static func readOwner(_ fd: Int32) -> StateLockOwner? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return StateLockOwner.parse(String(decoding: buffer[..<n], as: UTF8.self))
    }

    /// Who holds the lock of `directory` right now, or nil when nobody does (for messages and
    /// tests; does not take it).
    public static func holder(directory: String) -> StateLockOwner? {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return readOwner(fd)
    }

    /// Lets the folder go (the file stays; its text is stale but harmless). Idempotent.
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
