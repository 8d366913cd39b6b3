import Dispatch
import Foundation
import Logging
import NIOSSL
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
    private let tls: PGTLSClient
    private let applicationName: String
    private let lock = NSLock()
    private var idle: [PostgresConnection] = []
    /// The server process of each connection (`pg_backend_pid()`), by connection id: a
    /// cancelled query is cancelled on the server too (`pg_cancel_backend`), from another
    /// connection, since PostgresNIO sends no cancel request of its own.
    private var backends: [Int: Int32] = [:]
    /// Connections (by id) whose query has not ended yet.
    private var running: Set<Int> = []
    /// Connections whose query was cancelled on the server: closed when it ends, never used
    /// again (a late `pg_cancel_backend` would otherwise cancel the next query run on them).
    private var cancelled: Set<Int> = []
    private var nextID = 1
    /// A connection was made once: failing to connect now means the connection was lost.
    private var connectedOnce = false
    /// Idle connections kept open (more are closed when they come back).
    static let keepIdle = 4
    static let connectTimeout = TimeAmount.seconds(5)
    private let logger = Logger(label: "tabdeck-postgres") { _ in SwiftLogNoOpLogHandler() }
    /// Seconds between two heartbeats of a running query.
    static let heartbeatInterval = 2.0
    private var heartbeatListener: (@Sendable (Int) -> Void)?

    /// Who hears that a query still runs (the source sends it on as `progress`).
    public var heartbeat: (@Sendable (Int) -> Void)? {
        get { heartbeatSink() }
        set { lock.lock(); heartbeatListener = newValue; lock.unlock() }
    }

    private func heartbeatSink() -> (@Sendable (Int) -> Void)? { lock.lock(); defer { lock.unlock() }; return heartbeatListener }

    /// Connects lazily: the first query opens a connection, with `tls` (its files are read
    /// here: an unreadable one fails naming it) and `applicationName` (the server's
    /// `application_name`, seen in `pg_stat_activity`). The password is handed to the driver
    /// only; it is never logged or shown.
    public init(target: PGTarget, password: String?, tls: PGTLS,
                applicationName: String = "tabdeck-postgres") throws {
        self.target = target
        self.password = password
        self.tls = try PGTLSClient(tls)
        self.applicationName = applicationName
    }

    deinit {
        for c in idle { PGConnection.close(c) }
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
    /// `heartbeat`: while the query runs, ``heartbeat`` hears every ``heartbeatInterval`` how
    /// long it has run, so that the host, which stops a plugin silent for 10 s, hears that it
    /// works (PROTOCOL.md section 5); false for work that reports its own progress.
    public func query(_ sql: String, _ binds: [String?] = [], cancel: CancellationFlag? = nil, retry: Bool = true,
                      heartbeat: Bool = true) throws -> [[String?]] {
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
                return try run(query, on: connection, cancel: cancel, heartbeat: heartbeat)
            } catch let error as ConnectionLost where reused && retry && attempt == 1 {
                _ = error  // a dead idle connection: once more on a fresh one
            } catch let error as ConnectionLost {
                throw RPCError(code: RPCError.internalError, message: error.message)
            }
        }
    }

    /// Runs `sql` like ``query(_:_:cancel:retry:heartbeat:)``, handing each row to `reader` on
    /// the connection's event loop as it arrives instead of collecting text cells (a page
    /// written straight from the row's bytes, ``PGRowWriter``). A retry on a fresh connection
    /// starts `reader` again.
    func read(_ sql: String, _ binds: [String?], cancel: CancellationFlag?, into reader: PGRowWriter) throws {
        var bindings = PostgresBindings(capacity: binds.count)
        for b in binds {
            if let b { bindings.append(b) } else { bindings.appendNull() }
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let logger = self.logger
        var attempt = 0
        while true {
            attempt += 1
            reader.reset()
            let (connection, reused) = try take()
            do {
                _ = try run(query, on: connection, cancel: cancel, heartbeat: true) { query, connection, finished in
                    connection.query(query, logger: logger) { row in reader.read(row) }.whenComplete { result in
                        switch result {
                        case .success: finished(.success([]))
                        case .failure(let error): finished(.failure(error))
                        }
                    }
                }
                return
            } catch let error as ConnectionLost where reused && attempt == 1 {
                _ = error  // a dead idle connection: once more on a fresh one
            } catch let error as ConnectionLost {
                throw RPCError(code: RPCError.internalError, message: error.message)
            }
        }
    }

    /// A failure that closed the connection (the server went away); `message` is for the user.
    private struct ConnectionLost: Error { var message: String }

    /// Runs `sql` in a transaction opened by the statements of `setup` (`BEGIN …`, `SET LOCAL
    /// …`) and rolled back after it, on one connection: the column names and type OIDs of
    /// its result, and its rows as text. Cancelled like ``query(_:_:cancel:retry:heartbeat:)``
    /// (on the server too). A failure of the statement is an `RPCError` with the server's
    /// message and, when it gives one, `data.position` (in `sql`).
    public func transaction(setup: [String], _ sql: String, cancel: CancellationFlag? = nil)
        throws -> (columns: [(name: String, oid: UInt32)], rows: [[String?]]) {
        let (connection, _) = try take()
        let logger = self.logger
        let rows: [[String?]]
        do {
            rows = try run(PostgresQuery(unsafeSQL: sql), on: connection, cancel: cancel, heartbeat: true) { _, connection, finished in
                Task {
                    do {
                        for statement in setup { _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect() }
                        var names: [String?] = [], oids: [String?] = []
                        var out: [[String?]] = []
                        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                            var cells: [String?] = []
                            if names.isEmpty {
                                for cell in row { names.append(cell.columnName); oids.append(String(cell.dataType.rawValue)) }
                            }
                            for cell in row { cells.append(cell.bytes.map { String(buffer: $0) }) }
                            out.append(cells)
                        }
                        _ = try await connection.query("ROLLBACK", logger: logger).collect()
                        finished(.success([names, oids] + out))
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger).collect()
                        finished(.failure(error))
                    }
                }
            }
        } catch let error as ConnectionLost {
            throw RPCError(code: RPCError.internalError, message: error.message)
        }
        let names = rows.first ?? [], oids = rows.count > 1 ? rows[1] : []
        let columns = zip(names, oids).map { (name: $0 ?? "?", oid: UInt32($1 ?? "") ?? 0) }
        return (columns, Array(rows.dropFirst(2)))
    }

    private func run(_ query: PostgresQuery, on connection: PostgresConnection, cancel: CancellationFlag?,
                     heartbeat: Bool,
                     start: ((PostgresQuery, PostgresConnection, @escaping @Sendable (Result<[[String?]], any Error>) -> Void) -> Void)? = nil)
        throws -> [[String?]] {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        lock.lock(); running.insert(connection.id); lock.unlock()
        let logger = self.logger
        let start = start ?? { query, connection, finished in Self.fetch(query, on: connection, logger: logger, finished: finished) }
        start(query, connection) { [self] result in
            box.set(result)
            var broken = false
            if case .failure(let error) = result { broken = connection.isClosed || Self.isConnectionFailure(error) }
            // Back to the idle list only once the query is over (also after a cancel).
            release(connection, broken: broken)
            done.signal()
        }
        let started = DispatchTime.now()
        var beats = 0
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            if heartbeat, seconds >= Self.heartbeatInterval * Double(beats + 1), let beat = heartbeatSink() {
                beats += 1
                beat(Int(seconds))
            }
            // Answer the cancel at once, and ask the server to stop the query; its answer
            // (an error, or rows that came first) is dropped.
            if cancel?.isCancelled == true {
                cancelOnServer(connection)
                throw CancellationError()
            }
        }
        switch box.get()! {
        case .success(let rows): return rows
        case .failure(let error):
            if connection.isClosed || Self.isConnectionFailure(error) {
                throw ConnectionLost(message: "connection to \(target.display) lost: \(reason(error))")
            }
            let position = (error as? PSQLError)?.serverInfo?[.position].flatMap { Int($0) }
            throw RPCError(code: RPCError.internalError, message: describe(error),
                           data: position.map { ["position": .int(Int64($0))] })
        }
    }

    /// Asks the server to cancel the query `connection` runs, if it still runs, from another
    /// connection, without waiting; the connection is closed once its query has ended.
    private func cancelOnServer(_ connection: PostgresConnection) {
        lock.lock()
        // Only a query still running: one that has ended left its connection free for others.
        let pid = running.contains(connection.id) ? backends[connection.id] : nil
        if pid != nil { cancelled.insert(connection.id) }
        lock.unlock()
        guard let pid else { return }
        DispatchQueue.global().async { [self] in
            do { _ = try query("SELECT pg_cancel_backend($1::int)::text", [String(pid)], retry: false) } catch {
                PluginLog.info("cancelling the query of server process \(pid) failed: \(error)")
            }
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
        running.remove(connection.id)
        let wasCancelled = cancelled.remove(connection.id) != nil
        if !broken && !wasCancelled && !connection.isClosed && idle.count < Self.keepIdle {
            idle.append(connection)
            lock.unlock()
            return
        }
        backends[connection.id] = nil
        lock.unlock()
        PGConnection.close(connection)
    }

    /// Closes a connection and keeps it alive until it is closed: PostgresNIO asserts that a
    /// connection is closed when it goes away, and `close()` only starts closing.
    private static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// A new connection, within ``connectTimeout`` (each attempt; `allow` and `prefer` may make
    /// two, see ``PGTLSClient``); fails with the server and the reason
    /// (`cannot connect to ann@127.0.0.1:5432/shop: connection refused (is the server running?)`,
    /// `… TLS: the server's certificate is not trusted by /ca.pem (sslmode=verify-ca)`,
    /// `connection to … lost, reconnecting failed: …` once connected before) or the server's own
    /// message (a wrong password, a pg_hba.conf that refuses plaintext).
    private func connect() throws -> PostgresConnection {
        var mode = tls.first
        var earlier: String?  // why the first attempt failed, when a second is made
        while true {
            do {
                return try connect(mode)
            } catch {
                if earlier == nil, let next = tls.retry(after: error) {
                    earlier = reason(error)
                    PluginLog.info("connecting to \(target.display) (\(tls.settings.display)) failed: \(earlier!); "
                        + (next.isAllowed ? "trying TLS" : "trying without TLS"))
                    mode = next
                    continue
                }
                let first = earlier.map { "; the first attempt, \(mode.isAllowed ? "without TLS" : "with TLS"), failed: \($0)" } ?? ""
                if let e = error as? PSQLError, e.serverInfo?[.message] != nil {
                    throw RPCError(code: RPCError.internalError, message: describe(error) + first)
                }
                lock.lock(); let lost = connectedOnce; lock.unlock()
                let what = lost ? "connection to \(target.display) lost, reconnecting failed" : "cannot connect to \(target.display)"
                throw RPCError(code: RPCError.internalError, message: "\(what): \(reason(error))\(first)")
            }
        }
    }

    /// One attempt to connect with `mode`.
    private func connect(_ mode: PostgresConnection.Configuration.TLS) throws -> PostgresConnection {
        var config = PostgresConnection.Configuration(host: target.host, port: target.port, username: target.user,
                                                      password: password, database: target.database, tls: mode)
        config.options.connectTimeout = Self.connectTimeout
        config.options.additionalStartupParameters = [("application_name", applicationName)]
        lock.lock(); let id = nextID; nextID += 1; lock.unlock()
        let future = PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config,
                                                id: id, logger: logger)
        let connection = try future.wait()
        lock.lock(); connectedOnce = true; lock.unlock()
        // Its server process, for cancelling (a failure only means no server-side cancel).
        let rows = try? Self.fetchNow("SELECT pg_backend_pid()::text", on: connection, logger: logger)
        if let cell = rows?.first?.first, let text = cell, let pid = Int32(text) {
            lock.lock(); backends[id] = pid; lock.unlock()
        }
        // A query whose plugin is gone (exited, killed) stops within a second instead of
        // running on to its end (PostgreSQL 14 and later; older servers refuse the setting).
        _ = try? Self.fetchNow("SET client_connection_check_interval = 1000", on: connection, logger: logger)
        return connection
    }

    /// Runs `query` on `connection`; `finished` gets every row as text cells, or the error.
    /// Rows are read on the connection's event loop as they arrive (no task hop per row: an
    /// export reads every row of a table this way); a page is at most the largest page, so
    /// there is nothing to hold back.
    private static func fetch(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger,
                              finished: @escaping @Sendable (Result<[[String?]], any Error>) -> Void) {
        let collected = CollectedRows()
        connection.query(query, logger: logger) { row in
            var cells: [String?] = []
            cells.reserveCapacity(row.count)
            for cell in row { cells.append(cell.bytes.map { String(buffer: $0) }) }
            collected.rows.append(cells)
        }.whenComplete { result in
            switch result {
            case .success: finished(.success(collected.rows))
            case .failure(let error): finished(.failure(error))
            }
        }
    }

    /// The rows of one query, appended on the connection's event loop only, read once it ends.
    private final class CollectedRows: @unchecked Sendable {
        var rows: [[String?]] = []
    }

    /// Runs `sql` on a connection not yet in use and waits for its rows.
    private static func fetchNow(_ sql: String, on connection: PostgresConnection, logger: Logger) throws -> [[String?]] {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        fetch(PostgresQuery(unsafeSQL: sql), on: connection, logger: logger) { result in
            box.set(result)
            done.signal()
        }
        done.wait()
        return try box.get()!.get()
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

    /// What went wrong on the wire, short and without the password: the server's message, why
    /// TLS failed (``PGTLSClient/reason(_:host:)``), or the system's (`connection refused`,
    /// `timed out after 5 s`).
    func reason(_ error: any Error) -> String {
        if let tlsReason = tls.reason(error, host: target.host) { return tlsReason }
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] { return "PostgreSQL: \(message)" }
            if let u = e.underlying { return reason(u) }
            switch e.code {
            case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
            case .clientClosedConnection: return "the connection was closed"
            default: return "\(e.code)"
            }
        }
        if let e = error as? NIOSSLError, case .uncleanShutdown = e { return "the server closed the connection" }
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
