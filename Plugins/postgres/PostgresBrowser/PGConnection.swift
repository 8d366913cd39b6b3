import Dispatch
import Foundation
import Logging
import PostgresNIO
import TabdeckPluginKit
import TabdeckProtocol

/// The plugin's link to the server: a few `PostgresConnection`s of its own, used synchronously
/// from the kit's worker threads (one query per connection at a time). Every value travels as
/// text (`$1::type` casts on the way in, `::text` on the way out).
///
/// Not `PostgresClient`: its pool retries connecting without end while the server is down,
/// and a query waiting for a connection never fails (postgres-nio issues 489, 565), so a tab
/// would hang instead of saying the server is gone. Here a query takes an idle connection
/// (dropping those the server closed) or connects anew; a refused or timed-out connect, or a
/// connection lost during the query, fails that query at once with a message naming the
/// server, and the next query connects again, so the tab recovers as soon as the server is
/// back.
public final class PGConnection: @unchecked Sendable {
    public let target: PGTarget
    private let password: String?
    private let lock = NSLock()
    private var idle: [PostgresConnection] = []
    private var nextID = 1
    /// A connection was made once: failing to connect now means the connection was lost.
    private var connectedOnce = false
    /// Idle connections kept open (more are closed when they come back).
    static let keepIdle = 4
    static let connectTimeout = TimeAmount.seconds(5)
    private let logger = Logger(label: "tabdeck-postgres") { _ in SwiftLogNoOpLogHandler() }

    /// Connects lazily: the first query opens a connection. The password is handed to the
    /// driver only; it is never logged or shown.
    public init(target: PGTarget, password: String?) {
        self.target = target
        self.password = password
    }

    deinit {
        for c in idle { c.close().whenComplete { _ in } }
    }

    /// Opens one connection and keeps it for the first query: a wrong password or an
    /// unreachable server fails here with its message.
    public func probe() throws {
        release(try connect(), broken: false)
    }

    /// Runs `sql` with text `binds` (nil = NULL) and returns every row as text cells. Stops
    /// with `CancellationError` soon after `cancel` is set (the query finishes on its own
    /// connection, which is then reused). `retry`: a query that failed because the connection
    /// it took from the idle list was dead (the server restarted meanwhile) runs once more on
    /// a new connection; false for statements that change data.
    public func query(_ sql: String, _ binds: [String?] = [], cancel: CancellationFlag? = nil, retry: Bool = true) throws -> [[String?]] {
        var bindings = PostgresBindings(capacity: binds.count)
        for b in binds {
            if let b { bindings.append(b) } else { bindings.appendNull() }
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        var attempt = 0
        while true {
            attempt += 1
            let (connection, reused) = try take()
            do {
                return try run(query, on: connection, cancel: cancel)
            } catch let error as ConnectionLost where reused && retry && attempt == 1 {
                _ = error  // a dead idle connection: once more on a fresh one
            } catch let error as ConnectionLost {
                throw RPCError(code: RPCError.internalError, message: error.message)
            }
        }
    }

    /// A failure that closed the connection (the server went away); `message` is for the user.
    private struct ConnectionLost: Error { var message: String }

    private func run(_ query: PostgresQuery, on connection: PostgresConnection, cancel: CancellationFlag?) throws -> [[String?]] {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let logger = self.logger
        Task {
            var broken = false
            do {
                var rows: [[String?]] = []
                for try await row in try await connection.query(query, logger: logger) {
                    var cells: [String?] = []
                    for cell in row { cells.append(cell.bytes.map { String(buffer: $0) }) }
                    rows.append(cells)
                }
                box.set(.success(rows))
            } catch {
                broken = connection.isClosed || Self.isConnectionFailure(error)
                box.set(.failure(error))
            }
            // Back to the idle list only once the query is over (also after a cancel).
            self.release(connection, broken: broken)
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            // Answer the cancel at once; the query ends on its own and its answer is dropped.
            if cancel?.isCancelled == true { throw CancellationError() }
        }
        switch box.get()! {
        case .success(let rows): return rows
        case .failure(let error):
            if connection.isClosed || Self.isConnectionFailure(error) {
                throw ConnectionLost(message: "connection to \(target.display) lost: \(reason(error))")
            }
            throw RPCError(code: RPCError.internalError, message: describe(error))
        }
    }

    /// An idle connection still open, else a new one; `reused` tells which.
    private func take() throws -> (PostgresConnection, reused: Bool) {
        lock.lock()
        while let c = idle.popLast() {
            if !c.isClosed { lock.unlock(); return (c, true) }
        }
        lock.unlock()
        return (try connect(), false)
    }

    private func release(_ connection: PostgresConnection, broken: Bool) {
        lock.lock()
        if !broken && !connection.isClosed && idle.count < Self.keepIdle {
            idle.append(connection)
            lock.unlock()
            return
        }
        lock.unlock()
        connection.close().whenComplete { _ in }
    }

    /// A new connection, within ``connectTimeout``; fails with the server and the reason
    /// (`cannot connect to ann@127.0.0.1:5432/shop: connection refused (is the server running?)`,
    /// `connection to … lost, reconnecting failed: …` once connected before) or the server's own
    /// message (a wrong password).
    private func connect() throws -> PostgresConnection {
        var config = PostgresConnection.Configuration(host: target.host, port: target.port, username: target.user,
                                                      password: password, database: target.database, tls: .disable)
        config.options.connectTimeout = Self.connectTimeout
        lock.lock(); let id = nextID; nextID += 1; lock.unlock()
        let future = PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config,
                                                id: id, logger: logger)
        do {
            let connection = try future.wait()
            lock.lock(); connectedOnce = true; lock.unlock()
            return connection
        } catch {
            if let e = error as? PSQLError, e.serverInfo?[.message] != nil {
                throw RPCError(code: RPCError.internalError, message: describe(error))
            }
            lock.lock(); let lost = connectedOnce; lock.unlock()
            let what = lost ? "connection to \(target.display) lost, reconnecting failed" : "cannot connect to \(target.display)"
            throw RPCError(code: RPCError.internalError, message: "\(what): \(reason(error))")
        }
    }

    /// True when `error` means the link to the server is gone (not an error of the statement).
    static func isConnectionFailure(_ error: any Error) -> Bool {
        guard let e = error as? PSQLError else { return !(error is CancellationError) }
        switch e.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
             .messageDecodingFailure, .unexpectedBackendMessage:
            return true
        case .server:
            // admin_shutdown, crash_shutdown, cannot_connect_now: the server is stopping.
            return ["57P01", "57P02", "57P03"].contains(e.serverInfo?[.sqlState] ?? "")
        default:
            return false
        }
    }

    /// What went wrong on the wire, short and without the password: the server's message, or
    /// the system's (`connection refused`, `timed out after 5 s`).
    func reason(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] { return "PostgreSQL: \(message)" }
            if let u = e.underlying { return reason(u) }
            switch e.code {
            case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
            case .clientClosedConnection: return "the connection was closed"
            default: return "\(e.code)"
            }
        }
        if let e = error as? IOError {
            if e.errnoCode == ECONNREFUSED { return "connection refused (is the server running?)" }
            if e.errnoCode == ECONNRESET { return "connection reset by the server" }
            return String(cString: strerror(e.errnoCode)).lowercased()
        }
        if let e = error as? NIOConnectionError {
            if let first = e.connectionErrors.first { return reason(first.error) }
            if let dns = e.dnsAAAAError ?? e.dnsAError { return "cannot resolve \(target.host): \(dns)" }
            return "cannot connect"
        }
        if let e = error as? ChannelError {
            switch e {
            case .connectTimeout(let t): return "no answer within \(t.nanoseconds / 1_000_000_000) s"
            case .ioOnClosedChannel, .alreadyClosed, .eof: return "the server closed the connection"
            default: return "\(e)"
            }
        }
        return "\(error)"
    }

    /// A message for the user: the server's own message, or what failed when connecting.
    /// Never the password.
    public func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError, let message = e.serverInfo?[.message] {
            let state = e.serverInfo?[.sqlState].map { " (\($0))" } ?? ""
            return "PostgreSQL: \(message)\(state)"
        }
        if error is CancellationError { return "cancelled" }
        return "PostgreSQL at \(target.display): \(reason(error))"
    }
}

/// The result of a query handed from its task to the waiting thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<[[String?]], any Error>?
    func set(_ r: Result<[[String?]], any Error>) { lock.lock(); result = r; lock.unlock() }
    func get() -> Result<[[String?]], any Error>? { lock.lock(); defer { lock.unlock() }; return result }
}
