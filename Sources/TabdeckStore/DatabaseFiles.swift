import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system chores around the database file: the state directory, permission checks,
/// and moving a broken database aside. Plain POSIX calls, so errors carry `strerror`.
enum DatabaseFiles {
    /// The database file name inside the state directory.
    static let fileName = "tabdeck.sqlite"
    /// SQLite's companion files, moved together with the database.
    static let companionSuffixes = ["-wal", "-shm"]

    static func databasePath(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
    }

    /// `mkdir -p` with mode 0700 (the state may name private things).
    static func makeDirectory(_ directory: String) throws(StoreError) {
        guard !directory.isEmpty else { throw .directoryUnavailable(path: directory, reason: "no state directory was given") }
        var missing: [String] = []
        var path = directory
        while !path.isEmpty, !exists(path) {
            missing.append(path)
            let parent = (path as NSString).deletingLastPathComponent
            if parent == path { break }
            path = parent
        }
        for path in missing.reversed() where mkdir(path, 0o700) != 0 {
            let code = errno
            if code == EEXIST && isDirectory(path) { continue }
            throw .directoryUnavailable(path: directory, reason: "mkdir \(path): \(message(code))")
        }
        if !isDirectory(directory) {
            throw .directoryUnavailable(path: directory, reason: "it exists and is not a directory")
        }
    }

    /// Fails with ``StoreError/notWritable(path:reason:)`` when SQLite would not be able to
    /// write: the folder (it creates the -wal and -shm files there) or an existing file.
    static func checkWritable(directory: String, database: String) throws(StoreError) {
        if access(directory, W_OK | X_OK) != 0 {
            throw .notWritable(path: directory, reason: "the state directory is not writable: \(message(errno))")
        }
        for path in [database] + companionSuffixes.map({ database + $0 }) where exists(path) {
            if access(path, R_OK | W_OK) != 0 {
                throw .notWritable(path: path, reason: "the database file is not readable and writable: \(message(errno))")
            }
        }
    }

    /// Renames the database and its -wal/-shm files to `<path>.broken-<UTC timestamp>`
    /// (plus "-2", "-3"... if that name is taken). Never deletes anything. If one rename
    /// fails, the ones already done are undone, so the database never gets separated from
    /// its WAL (a stray WAL next to the fresh file would be replayed into it).
    /// - Returns: the new path of the database file.
    static func moveAside(_ path: String, reason: String, now: Date) throws(StoreError) -> String {
        let base = "\(path).broken-\(timestamp(now))"
        var destination = base
        var attempt = 1
        while ([""] + companionSuffixes).contains(where: { exists(destination + $0) }) {
            attempt += 1
            destination = "\(base)-\(attempt)"
        }
        var moved: [String] = []
        for suffix in [""] + companionSuffixes where exists(path + suffix) {
            if rename(path + suffix, destination + suffix) != 0 {
                let failure = "rename \(path + suffix): \(message(errno))"
                for done in moved.reversed() { _ = rename(destination + done, path + done) }
                throw .cannotMoveAside(path: path, destination: destination, reason: reason, error: failure)
            }
            moved.append(suffix)
        }
        return destination
    }

    /// `20250131T235959Z`: sortable, no characters that need quoting in a shell.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
