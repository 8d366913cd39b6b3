import Dispatch
import Foundation
import Logging
import PostgresNIO
import TabdeckPluginKit
import TabdeckProtocol

/// The plugin's link to the server: a PostgresNIO client (a small pool that reconnects on
/// its own when the server comes back) used synchronously from the kit's worker threads.
/// Every value travels as text (`$1::type` casts on the way in, `::text` on the way out).
public final class PGConnection: @unchecked Sendable {
    public let target: PGTarget
    private let password: String?
    private let client: PostgresClient
    private let runner: Task<Void, Never>

    /// Connects lazily: the first query opens a connection. The password is handed to the
    /// driver only; it is never logged or shown.
    public init(target: PGTarget, password: String?) {
        self.target = target
        self.password = password
        var config = PostgresClient.Configuration(host: target.host, port: target.port, username: target.user,
                                                  password: password, database: target.database, tls: .disable)
        config.options.connectTimeout = .seconds(5)
        config.options.maximumConnections = 4
        let logger = Logger(label: "tabdeck-postgres") { _ in SwiftLogNoOpLogHandler() }
        let client = PostgresClient(configuration: config, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
    }

    deinit { runner.cancel() }

    /// Opens one connection and closes it: a wrong password or an unreachable server fails
    /// here with its message (the pool would keep retrying).
    public func probe() throws {
        let config = PostgresConnection.Configuration(host: target.host, port: target.port, username: target.user,
                                                      password: password, database: target.database, tls: .disable)
        let logger = Logger(label: "tabdeck-postgres") { _ in SwiftLogNoOpLogHandler() }
        let future = PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config,
                                                id: 0, logger: logger)
        do {
            let connection = try future.wait()
            try? connection.close().wait()
        } catch {
            throw RPCError(code: RPCError.internalError, message: describe(error))
        }
    }

    /// Runs `sql` with text `binds` (nil = NULL) and returns every row as text cells. Stops
    /// with `CancellationError` soon after `cancel` is set (the query task is cancelled).
    public func query(_ sql: String, _ binds: [String?] = [], cancel: CancellationFlag? = nil) throws -> [[String?]] {
        var bindings = PostgresBindings(capacity: binds.count)
        for b in binds {
            if let b { bindings.append(b) } else { bindings.appendNull() }
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let client = self.client
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            do {
                var rows: [[String?]] = []
                for try await row in try await client.query(query) {
                    var cells: [String?] = []
                    for cell in row { cells.append(cell.bytes.map { String(buffer: $0) }) }
                    rows.append(cells)
                }
                box.set(.success(rows))
            } catch {
                box.set(.failure(error))
            }
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            // Answer the cancel at once; the query's task ends on its own (its answer is dropped).
            if cancel?.isCancelled == true { task.cancel(); throw CancellationError() }
        }
        switch box.get()! {
        case .success(let rows): return rows
        case .failure(let error): throw RPCError(code: RPCError.internalError, message: describe(error))
        }
    }

    /// A message for the user: the server's own message, or what failed when connecting
    /// (`cannot reach PostgreSQL at u@h:5432/db: connection refused`). Never the password.
    public func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] {
                let state = e.serverInfo?[.sqlState].map { " (\($0))" } ?? ""
                return "PostgreSQL: \(message)\(state)"
            }
            let underlying = e.underlying.map { ": \($0)" } ?? ""
            return "cannot reach PostgreSQL at \(target.display) (\(e.code))\(underlying)"
        }
        if error is CancellationError { return "cancelled" }
        return "PostgreSQL at \(target.display): \(error)"
    }
}

/// The result of a query handed from its task to the waiting thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<[[String?]], any Error>?
    func set(_ r: Result<[[String?]], any Error>) { lock.lock(); result = r; lock.unlock() }
    func get() -> Result<[[String?]], any Error>? { lock.lock(); defer { lock.unlock() }; return result }
}
