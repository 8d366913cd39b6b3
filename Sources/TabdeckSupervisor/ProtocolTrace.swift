import Foundation
import TabdeckProtocol

/// Writes the protocol traffic of plugins to trace files, one line per message:
///
///     2026-11-22T10:00:00.123Z people → {"jsonrpc":"2.0","id":3,"method":"rows",...}
///     2026-11-22T10:00:00.125Z people ← {"jsonrpc":"2.0","id":3,"result":{...}}
///     2026-11-22T10:00:09.001Z people ! exited with status 3
///
/// `→` is a line sent to the plugin, `←` a line received from it (as decoded, written back
/// compactly), `!` something that is not a line on the wire: a protocol violation, a timeout,
/// the process's exit, a note from the host. For a plugin that cannot sort or page, the host's
/// spool answers the core's `rows` requests itself: `⇢` is such a request (never sent to the
/// plugin) and `⇠` what the spool answered or announced (`progress`, `invalidate`).
///
/// One locked appender: any thread may call it; a line is formatted before the lock is taken,
/// and the lock is held only for one `write(2)` of that line to each file it goes to, so the
/// caller (the host's main loop, the supervisor's reader threads) never waits for long.
/// A trace file that cannot be opened or written is given up silently: tracing never breaks
/// the host.
public final class ProtocolTracer: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`: the file every tab is traced to (`--trace FILE`), or -1.
    private var allTabs: Int32 = -1
    /// Guarded by `lock`: per-tab trace files by tab id; a path until first used, then opened.
    private var perTabPaths: [String: String]
    private var perTabFiles: [String: Int32] = [:]

    /// A tracer writing every tab's traffic to `allTabsPath` (if given) and the traffic of
    /// each tab in `perTab` to its own file (`<state>/logs/<tab>.trace`). Parent folders are
    /// created. Throws if `allTabsPath` cannot be opened (per-tab files open lazily).
    public init(allTabsPath: String? = nil, perTab: [String: String] = [:]) throws(TraceError) {
        perTabPaths = perTab
        if let allTabsPath {
            allTabs = try ProtocolTracer.openFile(allTabsPath)
        }
    }

    /// Also traces `tab` to its own file (the per-tab `"trace": true` switch).
    public func traceTab(_ tab: String, to path: String) {
        lock.withLock { perTabPaths[tab] = path }
    }

    deinit {
        if allTabs >= 0 { close(allTabs) }
        for fd in perTabFiles.values where fd >= 0 { close(fd) }
    }

    /// Whether anything of `tab` is traced.
    public func traces(_ tab: String) -> Bool {
        lock.withLock { allTabs >= 0 || perTabPaths[tab] != nil }
    }

    /// A message sent to the plugin of `tab`.
    public func sent(_ message: Message, tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "→", text: ProtocolTracer.json(message)))
    }

    /// Bytes sent to the plugin of `tab` as they are (a line written without the codec).
    public func sentRaw(_ bytes: [UInt8], tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "→", text: ProtocolTracer.oneLine(bytes)))
    }

    /// A message received from the plugin of `tab`.
    public func received(_ message: Message, tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "←", text: ProtocolTracer.json(message)))
    }

    /// Bytes received from the plugin of `tab` as they are.
    public func receivedRaw(_ bytes: [UInt8], tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "←", text: ProtocolTracer.oneLine(bytes)))
    }

    /// A request of the core answered by the host's spool instead of the plugin (`⇢`).
    public func toSpool(_ message: Message, tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "⇢", text: ProtocolTracer.json(message)))
    }

    /// A reply or notification from the host's spool to the core (`⇠`).
    public func fromSpool(_ message: Message, tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "⇠", text: ProtocolTracer.json(message)))
    }

    /// A `!` line: a violation, a timeout, an exit, or a note from the host.
    public func note(_ text: String, tab: String) {
        guard traces(tab) else { return }
        write(tab: tab, ProtocolTracer.line(tab: tab, mark: "!", text: ProtocolTracer.oneLine(Array(text.utf8))))
    }

    /// `10 s`, `0.5 s`.
    private func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value)) s" : "\(value) s"
    }

    /// Traces a supervisor event: messages as `←`, violations, timeouts and exits as `!`.
    /// stderr lines are not protocol traffic (they go to the tab's log) and are left out.
    public func record(_ event: SupervisorEvent) {
        switch event {
        case .message(let tab, let message): received(message, tab: tab)
        case .protocolViolation(let tab, let reason): note("protocol violation: \(reason)", tab: tab)
        case .timedOut(let tab, let id, let method, let after):
            note("no answer to \(method) (id \(id)) within \(seconds(after))", tab: tab)
        case .cancelIgnored(let tab, let id, let method, let after):
            note("\(method) (id \(id)) still unanswered \(seconds(after)) after its $/cancel; stopping the plugin", tab: tab)
        case .stderrLine: break
        case .exited(let tab, let exit, let pending):
            var text: String
            switch exit {
            case .exited(let code): text = "exited with status \(code)"
            case .signalled(let signal): text = "was killed by signal \(signal)"
            }
            if !pending.isEmpty { text += "; unanswered: " + pending.map(\.description).joined(separator: ", ") }
            note(text, tab: tab)
        }
    }

    // MARK: Lines and files

    private func write(tab: String, _ line: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if allTabs >= 0 && !ProtocolTracer.writeAll(allTabs, line) {
            close(allTabs)
            allTabs = -1
        }
        guard let path = perTabPaths[tab] else { return }
        var fd = perTabFiles[tab] ?? -2
        if fd == -2 {
            fd = (try? ProtocolTracer.openFile(path)) ?? -1
            perTabFiles[tab] = fd
        }
        if fd >= 0 && !ProtocolTracer.writeAll(fd, line) {
            close(fd)
            perTabFiles[tab] = -1
        }
    }

    /// `<timestamp> <tab> <mark> <text>\n`.
    static func line(tab: String, mark: String, text: [UInt8]) -> [UInt8] {
        var out = Array("\(timestamp()) \(tab) \(mark) ".utf8)
        out.reserveCapacity(out.count + text.count + 1)
        out.append(contentsOf: text)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// Raw bytes (a malformed line, a note) made safe by the host's one sanitizer: controls,
    /// bidi controls and invalid UTF-8 shown (`\r`, `\e`, `\u202e`, `\xff`), so one entry stays
    /// one line and `cat` of a trace cannot drive the terminal.
    static func oneLine(_ bytes: [UInt8]) -> [UInt8] {
        Array(Sanitizer.clean(utf8: bytes).utf8)
    }

    /// A message as compact JSON, with DEL, C1 and bidi controls escaped as `\uXXXX` too
    /// (still the same JSON value).
    static func json(_ message: Message) -> [UInt8] {
        Array(JSONWriter.escapingTerminalControls(String(decoding: MessageCodec.encode(message), as: UTF8.self)).utf8)
    }

    /// UTC with milliseconds: `2026-11-22T10:00:00.123Z`.
    public static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(now.tv_nsec / 1_000_000))
    }

    static func openFile(_ path: String) throws(TraceError) -> Int32 {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw TraceError(path: path, reason: String(cString: strerror(errno))) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool { Descriptors.writeAll(fd, bytes) }
}

/// The host's plugin endpoints trace through it (`TabdeckSupervisor.EndpointTrace`).
extension ProtocolTracer: EndpointTrace {}

/// A trace file that cannot be opened.
public struct TraceError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write the trace file \(path): \(reason)" }
}
