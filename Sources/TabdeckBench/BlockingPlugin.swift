import Foundation
import TabdeckProtocol
import TabdeckSupervisor
import TabdeckTime

/// What went wrong while driving a plugin in a benchmark, naming the plugin and the request.
struct BenchPluginError: Error, CustomStringConvertible {
    var plugin: String
    var method: String
    var reason: String
    var description: String { "\(plugin): \(method): \(reason)" }
}

/// One plugin run by the real `PluginSupervisor`, driven one request at a time: `call` sends a
/// request and blocks until its reply has come through the supervisor's reader thread.
///
/// This is the host's path minus the workspace: the same process spawning, line splitting,
/// decoding and timeout bookkeeping, with the reply handed to a waiting thread.
final class BlockingPlugin: @unchecked Sendable {
    private static let tab = "bench"
    private let supervisor: PluginSupervisor
    private let mailbox: Mailbox
    private let command: [String]
    private var nextID: Int64 = 1

    /// Starts the plugin. Requests may take minutes (indexing and sorting 10,000,000 rows).
    init(command: [String], workingDirectory: String) throws {
        let mailbox = Mailbox()
        self.mailbox = mailbox
        self.command = command
        supervisor = PluginSupervisor(
            requestTimeout: .seconds(600), handshakeTimeout: .seconds(30),
            clock: SystemClock(),  // a benchmark measures the wall clock
            onEvent: { event in mailbox.post(event) })
        try supervisor.start(PluginSpec(tab: Self.tab, command: command, workingDirectory: workingDirectory))
    }

    /// Sends a request and waits for its result.
    /// - Throws: `BenchPluginError` on an error reply, a timeout, or the plugin's exit.
    func call(_ method: String, _ params: JSONValue) throws -> JSONValue {
        let id = RequestID.int(nextID)
        nextID += 1
        try supervisor.send(.request(id: id, method: method, params: params), to: Self.tab)
        switch mailbox.waitForReply(id) {
        case .result(let value): return value
        case .failure(let reason): throw BenchPluginError(plugin: command.joined(separator: " "), method: method, reason: reason)
        }
    }

    /// Stops the plugin and waits until it is reaped.
    func stop() {
        supervisor.stopAll(grace: .seconds(2))
    }
}

/// The outcome of one request.
enum Reply {
    case result(JSONValue)
    case failure(String)
}

/// Replies delivered by the supervisor's threads, waited for by the benchmark's thread.
/// Notifications (progress, invalidate) and stderr lines are dropped.
private final class Mailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var replies: [RequestID: Reply] = [:]
    private var ended: String? = nil

    func post(_ event: SupervisorEvent) {
        condition.lock()
        defer { condition.unlock() }
        switch event {
        case .message(_, .response(let id, let result)):
            replies[id] = .result(result)
        case .message(_, .failure(let id?, let error)):
            replies[id] = .failure("error reply: \(error)")
        case .timedOut(_, let id, let method, _):
            replies[id] = .failure("\(method) timed out")
        case .cancelIgnored(_, _, _, _):
            return  // the benchmark never cancels
        case .protocolViolation(_, let reason):
            ended = "protocol violation: \(reason)"
        case .exited(_, let exit, _):
            ended = ended ?? "plugin exited (\(exit))"
        case .message, .stderrLine:
            return
        }
        condition.broadcast()
    }

    func waitForReply(_ id: RequestID) -> Reply {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let reply = replies.removeValue(forKey: id) { return reply }
            if let ended { return .failure(ended) }
            condition.wait()
        }
    }
}
