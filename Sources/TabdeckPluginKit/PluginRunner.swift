#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TabdeckProtocol
// A plugin's main passes the clock (`SystemClock()`); importing the kit is enough for it.
@_exported import TabdeckTime

/// Runs a plugin: reads requests from the host, calls the ``TableDataSource``, writes replies.
///
/// - A dedicated reader thread splits the input into lines (4 MiB at most; a longer line
///   is answered with -32600, a malformed one with -32700, and reading goes on).
/// - `initialize`, `shutdown` and `$/cancel` are handled on the reader thread; `open`,
///   `rows`, `children`, `action` and `close` run on a pool of worker threads, so many
///   requests are in flight and replies go out in any order. A `close` waits for the requests
///   about its table that came before it, and requests about that table that come after it
///   wait for the close, so they get -32001 as the protocol says.
/// - `$/cancel` sets the request's ``CancellationFlag``; a request cancelled before it
///   started, or whose handler throws `CancellationError`, is answered with -32800.
/// - `shutdown` is answered with null; the runner then ends when the input closes, or
///   after `shutdownGrace` seconds if it does not.
/// - All output goes through one locked writer, one write(2) per message.
///
/// ```swift
/// let runner = PluginRunner(name: "hello", version: "1.0.0", dataSource: Hello(), clock: SystemClock())
/// runner.run()  // never returns
/// ```
public final class PluginRunner: @unchecked Sendable {
    public let name: String
    public let version: String
    /// For pushing notifications from any thread.
    public let notifier: Notifier
    /// How long to wait for the input to close after `shutdown`, in seconds of ``clock``.
    public var shutdownGrace: Double = 1.0
    /// The clock of the shutdown grace and of ``RequestProgress`` (through ``notifier``).
    public let clock: any MonotonicClock

    private let source: any TableDataSource
    private let input: Int32
    private let writer: OutputWriter
    private let workerCount: Int
    private var pool: WorkerPool?

    private let state = NSCondition()
    private var inFlight: [RequestID: CancellationFlag] = [:]
    private var inputClosed = false
    private var shutdownAt: Double?
    private var started = false

    /// - Parameters:
    ///   - input, output: the file descriptors of the protocol (stdin and stdout by default;
    ///     tests pass pipes).
    ///   - workers: threads that run handlers (2 to 4 are plenty).
    ///   - clock: `SystemClock()` in a plugin; tests pass a `ManualClock`.
    public init(name: String, version: String, dataSource: any TableDataSource,
                input: Int32 = 0, output: Int32 = 1, workers: Int = 3, clock: any MonotonicClock) {
        signal(SIGPIPE, SIG_IGN)
        self.name = name
        self.version = version
        self.source = dataSource
        self.input = input
        self.writer = OutputWriter(fd: output)
        self.clock = clock
        self.notifier = Notifier(writer: writer, clock: clock)
        self.workerCount = max(1, min(workers, 16))
    }

    /// Starts the reader and worker threads and returns.
    public func start() {
        state.lock()
        precondition(!started, "PluginRunner.start() called twice")
        started = true
        state.unlock()
        source.attach(notifier)
        pool = WorkerPool(threads: workerCount, name: name)
        let reader = Thread { [self] in readLoop() }
        reader.name = "\(name)-reader"
        reader.stackSize = 8 << 20
        reader.start()
    }

    /// Waits until the input closes (or `shutdown` plus the grace period), lets running
    /// handlers finish (up to 2 s), and returns the exit status (0).
    public func wait() -> Int32 {
        // A manual clock moved forward wakes this wait at once.
        let waiter = clock.addWaiter { [state] in state.lock(); state.broadcast(); state.unlock() }
        defer { clock.removeWaiter(waiter) }
        state.lock()
        while !inputClosed {
            var block = 0.05
            if let at = shutdownAt {
                let due = at + shutdownGrace
                if clock.now() >= due { break }
                block = min(block, clock.realWait(until: due) ?? block)
            }
            _ = state.wait(until: Date(timeIntervalSinceNow: block))
        }
        state.unlock()
        _ = pool?.waitIdle(timeout: 2)
        pool?.stop()
        return 0
    }

    /// Starts, waits, and exits the process with the status.
    public func run() -> Never {
        start()
        exit(wait())
    }

    // MARK: Reading

    private func readLoop() {
        var splitter = LineSplitter()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                PluginLog.error("reading the input failed: \(String(cString: strerror(errno)))")
                break
            }
            if n == 0 { break }
            for piece in splitter.push(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { handle(piece) }
        }
        for piece in splitter.finish() { handle(piece) }
        state.lock()
        inputClosed = true
        state.broadcast()
        state.unlock()
    }

    private func handle(_ piece: LineSplitter.Piece) {
        switch piece {
        case .overlong(let count):
            PluginLog.warning("dropped an input line of \(count) bytes (limit \(LineSplitter.defaultMaxLineLength))")
            writer.send(.failure(id: nil, error: RPCError(code: RPCError.invalidRequest,
                message: "line of \(count) bytes exceeds the \(LineSplitter.defaultMaxLineLength)-byte limit")))
        case .line(let bytes):
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
            let value: JSONValue
            do { value = try JSONParser.parse(bytes) } catch {
                writer.send(.failure(id: nil, error: RPCError(code: RPCError.parseError,
                    message: "malformed JSON at column \(error.column): \(error.reason)")))
                return
            }
            let message: Message
            do { message = try MessageCodec.decode(value) } catch {
                let id: RequestID? = switch value["id"] {
                case .int(let i)?: .int(i)
                case .string(let s)?: .string(s)
                default: nil
                }
                writer.send(.failure(id: id, error: RPCError(code: RPCError.invalidRequest, message: error.message)))
                return
            }
            dispatch(message)
        }
    }

    // MARK: Dispatch

    private func dispatch(_ message: Message) {
        switch message {
        case .request(let id, let method, let params):
            request(id: id, method: method, params: params)
        case .notification(let method, let params):
            notification(method: method, params: params)
        case .response(let id, _), .failure(.some(let id), _):
            PluginLog.debug("ignoring a reply from the host (id \(id))")
        case .failure(nil, let error):
            PluginLog.warning("the host reported an error: \(error)")
        }
    }

    private func request(id: RequestID, method: String, params: JSONValue) {
        state.lock()
        let shuttingDown = shutdownAt != nil
        state.unlock()
        if shuttingDown && method != Method.shutdown {
            reply(id, .failure(RPCError(code: RPCError.invalidRequest, message: "the plugin is shutting down")))
            return
        }
        switch method {
        case Method.initialize:
            reply(id, handleInitialize(params))
        case Method.shutdown:
            state.lock()
            shutdownAt = clock.now()
            for flag in inFlight.values { flag.cancel() }
            state.broadcast()
            state.unlock()
            reply(id, .success(.null))
        case Method.open, Method.rows, Method.children, Method.action, Method.move, Method.locate, Method.find, Method.cell, Method.aggregate, Method.describe, Method.query:
            let flag = CancellationFlag()
            state.lock()
            inFlight[id] = flag
            state.unlock()
            let source = self.source
            pool?.submit(key: params["table"]?.stringValue) { [self] in
                let result: Result<ReplyBody, RPCError>
                if flag.isCancelled {
                    result = .failure(Self.cancelled)
                } else {
                    result = Self.run { () throws -> ReplyBody in
                        try Self.call(source, method: method, params: params, cancel: flag) { [writer] rows in
                            writer.send(.notification(method: "rows/chunk", params: [
                                "id": id.json, "rows": .array(rows.map(\.json))]))
                        }
                    }
                }
                state.lock()
                inFlight[id] = nil
                state.unlock()
                answer(id, result)
            }
        default:
            reply(id, .failure(RPCError(code: RPCError.methodNotFound, message: "method not found: \(method)")))
        }
    }

    private func notification(method: String, params: JSONValue) {
        switch method {
        case Method.cancel:
            let id: RequestID? = switch params["id"] {
            case .int(let i)?: .int(i)
            case .string(let s)?: .string(s)
            default: nil
            }
            guard let id else { PluginLog.warning("$/cancel without an id"); return }
            state.lock()
            let flag = inFlight[id]
            state.unlock()
            flag?.cancel()
        case Method.close:
            guard let table = params["table"]?.stringValue else { PluginLog.warning("close without a table"); return }
            let source = self.source
            pool?.submit(key: table, barrier: true) { source.close(table: table) }
        default:
            PluginLog.debug("ignoring notification \(method)")
        }
    }

    private func handleInitialize(_ params: JSONValue) -> Result<JSONValue, RPCError> {
        if params != .null && params.objectValue == nil {
            return .failure(.badParams("params: expected an object, got \(params.typeDescription)", path: "params"))
        }
        if let v = params["protocolVersion"]?.intValue, v != Int64(ProtocolVersion.current) {
            PluginLog.warning("host speaks protocol \(v), plugin speaks \(ProtocolVersion.current)")
        }
        let result = InitializeResult(name: name, version: version, protocolVersion: ProtocolVersion.current,
                                      capabilities: source.capabilities)
        return .success(result.json)
    }

    private func answer(_ id: RequestID, _ result: Result<ReplyBody, RPCError>) {
        switch result {
        case .success(.value(let value)): writer.send(.response(id: id, result: value))
        case .success(.rows(let rows)): writer.sendRowsReply(id: id, rows)
        case .success(.writtenRows(let written)): writer.sendRowsReply(id: id, written.result, writtenRows: written.json)
        case .failure(let error): writer.send(.failure(id: id, error: error))
        }
    }

    private func reply(_ id: RequestID, _ result: Result<JSONValue, RPCError>) {
        switch result {
        case .success(let value): writer.send(.response(id: id, result: value))
        case .failure(let error): writer.send(.failure(id: id, error: error))
        }
    }

    // MARK: Handlers

    static let cancelled = RPCError(code: RPCError.requestCancelled, message: "request cancelled")

    /// Runs a handler, mapping thrown errors to RPC errors.
    static func run(_ body: () throws -> ReplyBody) -> Result<ReplyBody, RPCError> {
        do { return .success(try body()) }
        catch let e as RPCError { return .failure(e) }
        catch let e as JSONFieldError { return .failure(.badParams(e.description, path: e.path)) }
        catch is CancellationError { return .failure(cancelled) }
        catch {
            PluginLog.error("handler failed: \(error)")
            return .failure(RPCError(code: RPCError.internalError, message: "\(error)"))
        }
    }

    static func call(_ source: any TableDataSource, method: String, params: JSONValue,
                     cancel: CancellationFlag, chunk: ([Row]) -> Void = { _ in }) throws -> ReplyBody {
        switch method {
        case Method.open:
            if params == .null { return .value(try source.open(args: [:]).json) }
            let r = try JSONReader(params, path: "params")
            let args = r.value("args") ?? .null
            if args != .null && args.objectValue == nil {
                throw JSONFieldError(path: "params.args", reason: "expected an object, got \(args.typeDescription)")
            }
            return .value(try source.open(args: args == .null ? [:] : args).json)
        case Method.rows:
            let request = try RowsRequest(params, path: "params")
            if request.offset < 0 { throw JSONFieldError(path: "params.offset", reason: "must not be negative") }
            if request.limit < 0 { throw JSONFieldError(path: "params.limit", reason: "must not be negative") }
            if params["stream"] == .bool(true) {
                // The result's own rows go out as chunks too, a thousand at a time, so that no
                // line passes the 4 MiB limit (a result cut short would lose the rest: a stream
                // has no `more`).
                var result = try source.stream(request, send: chunk, cancel: cancel)
                var start = 0
                while start < result.rows.count {
                    let end = min(start + 1000, result.rows.count)
                    chunk(Array(result.rows[start..<end]))
                    start = end
                }
                result.rows = []
                return .rows(result)
            }
            if let written = try source.writtenRows(request, cancel: cancel) { return .writtenRows(written) }
            return .rows(try source.rows(request, cancel: cancel))
        case Method.locate:
            return .value(try source.locate(try LocateRequest(params, path: "params"), cancel: cancel).json)
        case Method.find:
            return .value(try source.find(try FindRequest(params, path: "params"), cancel: cancel).json)
        case Method.children:
            let r = try JSONReader(params, path: "params")
            return .value(try source.children(table: try r.string("table"), row: try rowID(r, "row")).json)
        case Method.action:
            let r = try JSONReader(params, path: "params")
            var rows: [String] = []
            for (i, v) in try r.array("rows").enumerated() {
                switch v {
                case .string(let s): rows.append(s)
                case .int(let n): rows.append(String(n))
                default: throw JSONFieldError(path: "params.rows[\(i)]", reason: "expected a string, got \(v.typeDescription)")
                }
            }
            let input = try r.optionalObject("input")?.object ?? JSONObject()
            return .value(try source.action(table: try r.string("table"), action: try r.string("action"), rows: rows,
                                            input: input).json)
        case Method.move:
            return .value(try source.move(try MoveRequest(params)).json)
        case Method.aggregate:
            return .value(try source.aggregate(try AggregateRequest(params, path: "params"), cancel: cancel).json)
        case Method.describe:
            return .value(try source.describe(try DescribeRequest(params, path: "params"), cancel: cancel).json)
        case Method.query:
            return .value(try source.query(try QueryRequest(params, path: "params"), cancel: cancel).json)
        case Method.cell:
            let request = try CellRequest(params, path: "params")
            let text = try source.cell(table: request.table, row: request.row, column: request.column, cancel: cancel)
            // A part whose escaped line would be long (control characters take 6 bytes) is halved.
            var maxBytes = CutCell.partBytes
            while true {
                let part = request.part(of: text, maxBytes: maxBytes)
                if maxBytes <= 4096 || MessageCodec.encode(.response(id: .int(0), result: part.json)).count < 3 * 1_048_576 {
                    return .value(part.json)
                }
                maxBytes /= 2
            }
        default:
            throw RPCError(code: RPCError.methodNotFound, message: "method not found: \(method)")
        }
    }

    private static func rowID(_ r: JSONReader, _ key: String) throws -> String {
        switch r.value(key) {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case let v?: throw JSONFieldError(path: r.pathOf(key), reason: "expected a string, got \(v.typeDescription)")
        case nil: throw JSONFieldError(path: r.pathOf(key), reason: "missing (expected a string)")
        }
    }
}

/// What a handler answers: any result, or a `rows` result, which is written straight to bytes
/// (`LineEncoder.rowsReply`) without a ``JSONValue`` per row.
enum ReplyBody {
    case value(JSONValue)
    case rows(RowsResult)
    /// A page whose rows the data source wrote as JSON itself (``TableDataSource/writtenRows(_:cancel:)``).
    case writtenRows(WrittenRows)
}
