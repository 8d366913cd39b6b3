#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TabdeckProtocol

/// The single writer of protocol messages: each message plus its `\n` goes out in one
/// write(2) call, under a lock, so lines from different threads never interleave.
final class OutputWriter: @unchecked Sendable {
    let fd: Int32
    private let lock = NSLock()
    private var broken = false

    init(fd: Int32) { self.fd = fd }

    func send(_ message: Message) {
        guard let bytes = LineEncoder.line(for: message) else { return }
        write(bytes)
    }

    /// Sends the reply to a `rows` request.
    func sendRowsReply(id: RequestID, _ result: RowsResult, writtenRows: [UInt8]? = nil) {
        if let writtenRows {
            write(LineEncoder.writtenRowsReply(id: id, result, writtenRows))
        } else {
            write(LineEncoder.rowsReply(id: id, result))
        }
    }

    /// Writes one whole line under the lock.
    private func write(_ bytes: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        if broken { return }
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n >= 0 { done += n; continue }
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 100)
                    continue
                }
                PluginLog.warning("stdout write failed: \(String(cString: strerror(errno))); dropping further output")
                broken = true
                return
            }
        }
    }
}

/// How the plugin kit turns a message into the bytes of one protocol line.
///
/// Public so that `tabdeck-bench codec` measures exactly what a Swift plugin writes.
public enum LineEncoder {
    /// The message as one JSON line, `\n` included. A reply longer than the protocol's
    /// 4 MiB line limit becomes an internal-error reply for the same id; any other
    /// over-long message is dropped (nil), with a log line on stderr.
    public static func line(for message: Message) -> [UInt8]? {
        finish(MessageCodec.encode(message), for: message)
    }

    /// The line of a reply to a `rows` request, written straight from the rows (the same
    /// bytes as `line(for: .response(id: id, result: result.json))`).
    /// A page too long for the line limit is cut short: as many rows as fit, with `"more": true`
    /// (PROTOCOL.md 11.3), so the host asks again for the rest; a single row too long for a line
    /// becomes an internal error naming it.
    public static func rowsReply(id: RequestID, _ result: RowsResult, maxLine: Int = LineSplitter.defaultMaxLineLength) -> [UInt8] {
        let whole = MessageCodec.encodeRowsResponse(id: id, result)
        if whole.count <= maxLine { return finish(whole, for: nil, replyTo: id)! }
        var short = result
        short.rows = []
        short.more = true
        var used = MessageCodec.encodeRowsResponse(id: id, short).count
        var fit = 0
        var row: [UInt8] = []
        for r in result.rows {
            row.removeAll(keepingCapacity: true)
            r.write(into: &row)
            let add = row.count + (fit > 0 ? 1 : 0)
            if used + add > maxLine { break }
            used += add
            fit += 1
        }
        guard fit > 0 else {
            PluginLog.error("row \(result.rows.first?.id ?? "?") alone exceeds the 4 MiB line limit")
            return finish(MessageCodec.encode(.failure(id: id, error: RPCError(
                code: RPCError.internalError,
                message: "row \(result.rows.first?.id ?? "?") (row \(result.offset + 1)) alone is longer than the protocol's 4 MiB line limit"))),
                for: nil)!
        }
        short.rows = Array(result.rows.prefix(fit))
        return finish(MessageCodec.encodeRowsResponse(id: id, short), for: nil, replyTo: id)!
    }

    /// The reply to a `rows` request whose rows the data source wrote itself (``WrittenRows``:
    /// never longer than ``WrittenRows/maxBytes``, so within the line limit).
    public static func writtenRowsReply(id: RequestID, _ result: RowsResult, _ rows: [UInt8]) -> [UInt8] {
        finish(MessageCodec.encodeRowsResponse(id: id, result, writtenRows: rows), for: nil, replyTo: id)!
    }

    /// Applies the line limit and appends the `\n`. An over-long reply (to `replyTo`, or
    /// the id of the response or failure `message`) becomes an internal error.
    private static func finish(_ encoded: consuming [UInt8], for message: Message?, replyTo: RequestID? = nil) -> [UInt8]? {
        var bytes = encoded
        if bytes.count > LineSplitter.defaultMaxLineLength {
            PluginLog.error("message of \(bytes.count) bytes exceeds the 4 MiB line limit")
            var id = replyTo
            switch message {
            case .response(let replied, _)?, .failure(.some(let replied), _)?: id = replied
            default: break
            }
            guard let id else { return nil }
            bytes = MessageCodec.encode(.failure(id: id, error: RPCError(
                code: RPCError.internalError, message: "the reply is longer than the protocol's 4 MiB line limit")))
        }
        bytes.append(0x0A)
        return bytes
    }

}

/// Pushes notifications to the host; safe from any thread, any time after the handshake.
public final class Notifier: Sendable {
    private let writer: OutputWriter
    /// The plugin's clock (``PluginRunner/clock``): progress is paced by it.
    public let clock: any MonotonicClock

    init(writer: OutputWriter, clock: any MonotonicClock) { self.writer = writer; self.clock = clock }

    /// Sends a notification.
    public func notify(_ method: String, _ params: JSONValue) {
        writer.send(.notification(method: method, params: params))
    }

    /// The tab's badge: a number, a short string (cut to 4 characters by the host), or nil to clear.
    public func badge(_ value: BadgeValue?) {
        let v: JSONValue = switch value {
        case .number(let n)?: .int(Int64(n))
        case .text(let s)?: .string(s)
        case nil: .null
        }
        notify(Method.badge, ["value": v])
    }

    /// Rows changed: all (`rows` nil) or the given ids; optionally the new row count, and the
    /// table's sections as they are now (new counts or footers; PROTOCOL.md 10.6, 12.2).
    public func invalidate(table: String, rows: [String]? = nil, total: Int? = nil, sections: [SectionSpec]? = nil) {
        var o: JSONObject = ["table": .string(table)]
        if let rows { o["rows"] = .array(rows.map { .string($0) }) }
        if let total { o["total"] = .int(Int64(total)) }
        if let sections { o["sections"] = .array(sections.map(\.json)) }
        notify(Method.invalidate, .object(o))
    }

    /// Progress of a long load; `done == total` ends it.
    public func progress(done: Double, total: Double?, message: String? = nil) {
        var o: JSONObject = ["done": .double(done), "total": total.map { .double($0) } ?? .null]
        if done.rounded() == done, abs(done) < 1e15 { o["done"] = .int(Int64(done)) }
        if let t = total, t.rounded() == t, abs(t) < 1e15 { o["total"] = .int(Int64(t)) }
        if let message { o["message"] = .string(message) }
        notify(Method.progress, .object(o))
    }

    /// A status line for the tab.
    public func status(_ text: String) { notify(Method.status, ["text": .string(text)]) }

    /// A log line shown by the host.
    public func log(_ level: PluginLog.Level, _ message: String) {
        notify(Method.log, ["level": .string(level.name), "message": .string(message)])
    }
}
