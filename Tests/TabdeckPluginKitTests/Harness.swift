#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TabdeckPluginKit
import TabdeckProtocol

struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// Drives a ``PluginRunner`` over two pipes, in-process, like a host would.
final class Harness: @unchecked Sendable {
    let runner: PluginRunner
    private let toPlugin: Int32
    private let fromPlugin: Int32
    private let pluginInput: Int32
    private let pluginOutput: Int32
    private var splitter = LineSplitter()
    private var pending: [JSONValue] = []
    private var inputClosed = false

    /// The runner's clock: the shutdown grace passes when a test moves it.
    let clock = ManualClock()

    init(source: some TableDataSource, workers: Int = 3, grace: Double = 1.0) {
        var a: [Int32] = [0, 0], b: [Int32] = [0, 0]
        precondition(pipe(&a) == 0 && pipe(&b) == 0)
        pluginInput = a[0]; toPlugin = a[1]
        fromPlugin = b[0]; pluginOutput = b[1]
        runner = PluginRunner(name: "test", version: "0.0.1", dataSource: source,
                              input: pluginInput, output: pluginOutput, workers: workers, clock: clock)
        runner.shutdownGrace = grace
        runner.start()
    }

    deinit {
        if !inputClosed { close(toPlugin) }
        close(fromPlugin)
    }

    /// Sends raw bytes.
    func sendBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(toPlugin, raw.baseAddress! + done, raw.count - done)
                precondition(n > 0, "write to plugin failed")
                done += n
            }
        }
    }

    /// Sends one line (a `\n` is added).
    func send(_ line: String) { sendBytes(Array((line + "\n").utf8)) }

    /// Sends a message.
    func send(_ message: Message) { sendBytes(MessageCodec.encode(message) + [0x0A]) }

    /// Sends a request.
    func send(id: Int64, _ method: String, _ params: JSONValue = .null) {
        send(.request(id: .int(id), method: method, params: params))
    }

    /// The next message from the plugin, parsed.
    func next(timeout: Double = 5) throws -> JSONValue {
        if !pending.isEmpty { return pending.removeFirst() }
        return try read(timeout: timeout)
    }

    private func read(timeout: Double) throws -> JSONValue {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var p = pollfd(fd: fromPlugin, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            if poll(&p, 1, left) <= 0 { throw HarnessError(description: "no message from the plugin within \(timeout) s") }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fromPlugin, $0.baseAddress, $0.count) }
            if n <= 0 { throw HarnessError(description: "the plugin closed its output") }
            let pieces = buffer.withUnsafeBytes { splitter.push(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            for piece in pieces {
                guard case .line(let line) = piece else { throw HarnessError(description: "over-long line from the plugin") }
                pending.append(try JSONParser.parse(line))
            }
            if !pending.isEmpty { return pending.removeFirst() }
        }
    }

    /// Reads until the reply to `id` arrives; other messages are kept for `next()`.
    func reply(to id: JSONValue, timeout: Double = 5) throws -> JSONValue {
        if let i = pending.firstIndex(where: { $0["id"] == id }) { return pending.remove(at: i) }
        var others: [JSONValue] = []
        defer { pending.insert(contentsOf: others, at: 0) }
        while true {
            let m = try read(timeout: timeout)
            if m["id"] == id { return m }
            others.append(m)
        }
    }

    /// Sends a request and waits for its reply.
    func call(id: Int64, _ method: String, _ params: JSONValue = .null) throws -> JSONValue {
        send(id: id, method, params)
        return try reply(to: .int(id))
    }

    /// Closes the plugin's input and waits for the runner to end.
    func finish() -> Int32 {
        closeInput()
        return runner.wait()
    }

    func closeInput() {
        if !inputClosed { close(toPlugin); inputClosed = true }
    }
}

/// A data source for the runner tests. Tables:
/// - `root`: 1000 rows `n` = 0..999 (`open` returns it);
/// - `gated`: like root, but each request waits for ``release()``;
/// - `spin`: runs until cancelled, then throws `CancellationError`;
/// - `boom`: throws a plain Swift error.
/// A closed table is unknown afterwards; `close` takes 50 ms, so a request that overtakes it
/// would see the table still open.
final class TestSource: TableDataSource, @unchecked Sendable {
    let capabilities = PluginCapabilities(sort: true)
    private let gate = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var _closed: [String] = []
    private var _notifier: Notifier?
    let started = DispatchSemaphore(value: 0)

    var notifier: Notifier? { lock.lock(); defer { lock.unlock() }; return _notifier }
    var closed: [String] { lock.lock(); defer { lock.unlock() }; return _closed }

    func release(_ count: Int = 1) { for _ in 0..<count { gate.signal() } }

    func attach(_ notifier: Notifier) { lock.lock(); _notifier = notifier; lock.unlock() }

    func open(args: JSONValue) throws -> TableDescription {
        if let reason = args["fail"]?.stringValue { throw RPCError(code: RPCError.invalidParams, message: reason) }
        return TableDescription(table: "root", title: "Numbers", columns: [ColumnSpec(id: "n", type: .integer)], total: 1000)
    }

    struct Boom: Error {}

    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        started.signal()
        switch request.table {
        case "root": break
        case "gated":
            if gate.wait(timeout: .now() + 10) == .timedOut { throw RPCError(code: -32603, message: "gate never opened") }
        case "spin":
            let deadline = Date(timeIntervalSinceNow: 10)
            while !cancel.isCancelled && Date() < deadline { usleep(1000) }
            try cancel.check()
            throw RPCError(code: -32603, message: "never cancelled")
        case "boom": throw Boom()
        default: throw RPCError.unknown(table: request.table)
        }
        if closed.contains(request.table) { throw RPCError.unknown(table: request.table) }
        let end = min(request.offset + request.limit, 1000)
        let rows = request.offset < end ? (request.offset..<end).map { Row(id: "r\($0)", cells: [.int(Int64($0))]) } : []
        return request.result(rows, total: 1000)
    }

    func close(table: String) {
        usleep(50_000)
        lock.lock(); _closed.append(table); lock.unlock()
    }

    /// `locate` on `root`: row `rN` is at offset N.
    func locate(_ request: LocateRequest, cancel: CancellationFlag) throws -> LocateResult {
        for id in request.rows {
            if let n = Int(id.dropFirst()), id.hasPrefix("r"), (0..<1000).contains(n) { return LocateResult(row: id, offset: n) }
        }
        return LocateResult(row: nil, offset: nil)
    }
}

/// A source that does not answer `locate` (the kit's default).
struct NoLocateSource: TableDataSource {
    let capabilities = PluginCapabilities()
    func open(args: JSONValue) throws -> TableDescription {
        TableDescription(table: "root", columns: [ColumnSpec(id: "n")], total: 0)
    }
    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult { request.result([], total: 0) }
}

func rowsParams(_ table: String, offset: Int = 0, limit: Int = 3, generation: Int = 1) -> JSONValue {
    RowsRequest(table: table, offset: offset, limit: limit, generation: generation).json
}
