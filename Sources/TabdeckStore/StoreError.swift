import GRDB

/// What the store was doing when something failed. Carried by ``StoreError`` so that a
/// message can say "saving the view of tab `ps`" rather than just "SQLite error 8".
public enum StoreOperation: String, Sendable, Hashable, CustomStringConvertible {
    case open = "opening the database"
    case check = "checking the database"
    case migrate = "migrating the database"
    case loadLayout = "loading the workspace layout"
    case saveLayout = "saving the workspace layout"
    case resetLayout = "resetting the workspace layout"
    case loadView = "loading a table view"
    case saveView = "saving a table view"
    case loadAllViews = "loading all table views"
    case pruneViews = "dropping old drill-down views"
    case noteOpened = "noting the sources opened"
    case close = "closing the database"

    /// The operation in words, as it appears in error messages.
    public var description: String { rawValue }
}

/// An SQLite failure as reported by SQLite itself.
public struct SQLiteFailure: Sendable, Hashable, CustomStringConvertible {
    /// The primary result code (26 = SQLITE_NOTADB, 8 = SQLITE_READONLY, ...).
    public var code: Int32
    /// The extended result code.
    public var extendedCode: Int32
    /// SQLite's message ("file is not a database").
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    /// Makes a failure from SQLite's codes and message.
    public init(code: Int32, extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = code; self.extendedCode = extendedCode; self.message = message; self.sql = sql
    }

    init(_ error: DatabaseError) {
        self.init(code: error.resultCode.rawValue, extendedCode: error.extendedResultCode.rawValue,
                  message: error.message ?? "unknown error", sql: error.sql)
    }

    /// "SQLite error 26: file is not a database (while executing `…`)".
    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (while executing `\(sql)`)" }
        return text
    }
}

/// Everything the store can fail with. Every case names the file or folder involved, and
/// SQLite failures keep SQLite's own code and message, so the app can show one clear line.
public enum StoreError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The state directory does not exist and could not be created (`reason` is the OS message).
    case directoryUnavailable(path: String, reason: String)
    /// The state directory or the database file exists but may not be written by this
    /// process (read-only folder, file mode, read-only file system). Nothing was moved.
    case notWritable(path: String, reason: String)
    /// SQLite failed while doing `operation` on the database at `path`.
    case sqlite(operation: StoreOperation, path: String, failure: SQLiteFailure)
    /// The database at `path` is unusable (`reason` says why) and no fresh database could
    /// be started in its place.
    case unusable(path: String, reason: String)
    /// The database at `path` is broken (`reason`) but could not be renamed to
    /// `destination`, so it was left where it is and no fresh database was started.
    case cannotMoveAside(path: String, destination: String, reason: String, error: String)
    /// A value read from the database could not be decoded (for example malformed
    /// `sort_json`). The row is left untouched.
    case invalidStoredValue(operation: StoreOperation, path: String, detail: String)
    /// Any other failure (not from SQLite) during `operation`.
    case unexpected(operation: StoreOperation, path: String, message: String)
    /// Another Tabdeck holds the state folder at `path` (``StateLock``); `holder` names it
    /// (`tabdeck pid 1234 (started 2026-11-24 22:40 UTC, full screen)`). Nothing was opened.
    case inUse(path: String, holder: String)

    /// The file or folder the error is about.
    public var path: String {
        switch self {
        case .directoryUnavailable(let path, _), .notWritable(let path, _), .sqlite(_, let path, _),
             .unusable(let path, _), .cannotMoveAside(let path, _, _, _), .invalidStoredValue(_, let path, _),
             .unexpected(_, let path, _), .inUse(let path, _):
            return path
        }
    }

    /// One line for the user: what failed, where, and SQLite's or the OS's own words.
    public var description: String {
        switch self {
        case .directoryUnavailable(let path, let reason):
            return "cannot create the state directory \(path): \(reason)"
        case .notWritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .sqlite(let operation, let path, let failure):
            return "\(operation) at \(path) failed: \(failure)"
        case .unusable(let path, let reason):
            return "the database at \(path) is unusable: \(reason)"
        case .cannotMoveAside(let path, let destination, let reason, let error):
            return "the database at \(path) is broken (\(reason)) but could not be moved to \(destination): \(error)"
        case .invalidStoredValue(let operation, let path, let detail):
            return "\(operation) at \(path) failed: invalid stored value: \(detail)"
        case .unexpected(let operation, let path, let message):
            return "\(operation) at \(path) failed: \(message)"
        case .inUse(let path, let holder):
            return "the state folder \(path) is in use by \(holder); quit that one first, "
                + "or start this one with another state folder (--state-dir)"
        }
    }

    /// Wraps any error thrown inside a GRDB access.
    init(_ operation: StoreOperation, path: String, _ error: any Error) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as DatabaseError:
            self = .sqlite(operation: operation, path: path, failure: SQLiteFailure(error))
        case let error as StoredValueError:
            self = .invalidStoredValue(operation: operation, path: path, detail: error.detail)
        default:
            self = .unexpected(operation: operation, path: path, message: String(describing: error))
        }
    }
}

/// Thrown inside database closures when a stored column cannot be decoded; turned into
/// ``StoreError/invalidStoredValue(operation:path:detail:)`` at the facade.
struct StoredValueError: Error {
    var detail: String
}
