import Foundation
import TabdeckProtocol
import TabdeckSupervisor
import TabdeckTime

/// A plugin process on bare pipes, for the one thing the supervisor cannot do on purpose:
/// write a line that is not a valid message (the supervisor only sends what the codec
/// encodes). Used by the malformed-line and end-of-input checks; stderr goes to /dev/null.
final class RawChannel: @unchecked Sendable {
    let pid: pid_t
    private let input: Int32
    private let tracer: ProtocolTracer?
    /// The checker's clock: the deadlines of ``nextLine(before:)`` and ``waitForExit(limit:)``.
    let clock: any MonotonicClock
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var lines: [[UInt8]] = []
    private var outputEnded = false
    private var inputClosed = false
    private var status: PluginExit?

    init(command: [String], environment: [String: String], workingDirectory: String, clock: any MonotonicClock,
         tracer: ProtocolTracer?) throws(RawChannelError) {
        self.tracer = tracer
        self.clock = clock
        _ = signal(SIGPIPE, SIG_IGN)
        var argv = command
        if !workingDirectory.isEmpty {
            argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", workingDirectory] + command
        }
        guard let program = argv.first, !program.isEmpty else { throw RawChannelError("no command") }
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { throw RawChannelError("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw RawChannelError("pipe: \(String(cString: strerror(errno)))")
        }
        // dup2 clears close-on-exec on 0 and 1 in the child; nothing else leaks into it.
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        env["TABDECK_PROTOCOL"] = env["TABDECK_PROTOCOL"] ?? String(ProtocolVersion.current)
        let spawn = ChildSpawn(argv: argv, environment: env.map { "\($0.key)=\($0.value)" },
                               descriptors: [0: .from(toChild[0]), 1: .from(fromChild[1]), 2: .devNull])
        let started = spawn.start()
        close(toChild[0]); close(fromChild[1])
        guard case .success(let child) = started else {
            close(toChild[1]); close(fromChild[0])
            let code = if case .failure(let error) = started { error.code } else { EINVAL }
            throw RawChannelError("cannot start \(program): \(String(cString: strerror(code)))")
        }
        pid = child
        input = toChild[1]
        startReader(fd: fromChild[0])
    }

    deinit {
        closeInput()
        if status == nil { kill() }
    }

    private func startReader(fd: Int32) {
        let thread = Thread { [self] in
            var splitter = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let pieces = buffer.withUnsafeBytes { splitter.push(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                deliver(pieces)
            }
            deliver(splitter.finish())
            close(fd)
            condition.withLock { outputEnded = true }
            condition.broadcast()
        }
        thread.name = "tabdeck.check.raw"
        thread.start()
    }

    private func deliver(_ pieces: [LineSplitter.Piece]) {
        condition.lock()
        for piece in pieces {
            switch piece {
            case .line(let bytes):
                tracer?.receivedRaw(bytes, tab: PluginSession.tab)
                lines.append(bytes)
            case .overlong(let count):
                lines.append(Array("<a line of \(count) bytes>".utf8))
            }
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Writes one line (a `\n` is added); false if the plugin no longer reads.
    @discardableResult
    func writeLine(_ bytes: [UInt8]) -> Bool {
        tracer?.sentRaw(bytes, tab: PluginSession.tab)
        let line = bytes + [UInt8(ascii: "\n")]
        let closed = condition.withLock { inputClosed }
        if closed { return false }
        return Descriptors.writeAll(input, line)
    }

    /// Writes a message through the codec.
    @discardableResult
    func send(_ message: Message) -> Bool { writeLine(MessageCodec.encode(message)) }

    /// Closes the plugin's stdin (end of input).
    func closeInput() {
        let wasOpen = condition.withLock {
            defer { inputClosed = true }
            return !inputClosed
        }
        if wasOpen { close(input) }
    }

    /// The next line the plugin wrote, waiting until `deadline` (on ``clock``); nil on timeout or
    /// end of output.
    func nextLine(before deadline: Double) -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            if outputEnded { return nil }
            if !condition.wait(until: deadline, on: clock), lines.isEmpty { return nil }
        }
        return lines.removeFirst()
    }

    /// Reads lines until one is the answer to `id` (other lines are returned too).
    func answer(to id: RequestID, before deadline: Double) -> (answer: Message?, others: [[UInt8]]) {
        var others: [[UInt8]] = []
        while let line = nextLine(before: deadline) {
            if let message = try? MessageCodec.decode(line) {
                switch message {
                case .response(id, _), .failure(id?, _): return (message, others)
                default: break
                }
            }
            others.append(line)
        }
        return (nil, others)
    }

    /// Whether the process has exited; reaps it.
    func exited() -> PluginExit? {
        if let status = condition.withLock({ status }) { return status }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        guard result == pid else { return nil }
        let signal = raw & 0x7f
        let how: PluginExit = signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal)
        condition.withLock { status = how }
        return how
    }

    /// Waits up to `limit` for the process to exit.
    func waitForExit(limit: Duration) -> PluginExit? {
        let deadline = clock.now() + limit.seconds
        while clock.now() < deadline {
            if let how = exited() { return how }
            usleep(5_000)
        }
        return exited()
    }

    /// SIGKILL to the process group, then reap.
    func kill() {
        if exited() != nil { return }
        if Glibc.kill(-pid, SIGKILL) != 0 { _ = Glibc.kill(pid, SIGKILL) }
        _ = waitForExit(limit: .seconds(2))
    }
}

struct RawChannelError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
