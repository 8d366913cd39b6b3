import Foundation
import PipeTable
import TabdeckPluginKit
import TabdeckProtocol

/// The pipe plugin's table: one stream of bytes (a descriptor the host handed over, or a file
/// or FIFO by path) read on a thread of its own into a ``PipeTable``, described once a sample
/// has arrived and streamed to the host as rows arrive (`paging: false`, PROTOCOL.md 11.3.1).
final class PipeSource: TableDataSource, @unchecked Sendable {
    let capabilities = PluginCapabilities(paging: false)
    /// Seconds `open` waits for a full sample once bytes have begun to arrive, and between two
    /// heartbeats (progress) while a request waits for input.
    static let sampleWait = 0.5
    static let heartbeat = 2.0
    static let chunkRows = 1000

    private let condition = NSCondition()
    private var table = PipeTable()
    private var readError: String?
    private var bytesRead = 0
    private var notifier: Notifier?
    private var title = "stdin"
    private var started = false

    func attach(_ notifier: Notifier) { self.notifier = notifier }

    func open(args: JSONValue) throws -> TableDescription {
        let r = try JSONReader(args, path: "params.args")
        let descriptor: Int32
        if let fd = try r.optionalInt("fd") {
            descriptor = Int32(fd)
            title = try r.optionalString("title") ?? "stdin"
        } else {
            let path = try r.string("path")
            descriptor = Glibc.open(path, O_RDONLY)
            if descriptor < 0 {
                throw RPCError.badParams("\(path): \(String(cString: strerror(errno)))", path: "params.args.path")
            }
            title = try r.optionalString("title") ?? (path as NSString).lastPathComponent
        }
        condition.lock()
        if !started {
            started = true
            Thread.detachNewThread { [self] in read(descriptor) }
        }
        // Wait for the first line, then for a full sample, the end, or a short pause.
        var firstBytesAt: Date?
        var lastBeat = Date()
        while !table.sampleComplete && readError == nil {
            if table.format != nil || bytesRead > 0 {
                let since = firstBytesAt ?? Date()
                firstBytesAt = since
                if Date().timeIntervalSince(since) >= Self.sampleWait && table.format != nil { break }
            }
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
            if Date().timeIntervalSince(lastBeat) >= Self.heartbeat {
                lastBeat = Date()
                notifier?.progress(done: Double(bytesRead), total: nil, message: "waiting for input on \(title)")
            }
        }
        if let readError, table.format == nil {
            condition.unlock()
            throw RPCError(code: RPCError.internalError, message: "\(title): \(readError)")
        }
        let columns = table.describe()
        let format = table.format?.name ?? "empty"
        condition.unlock()
        return TableDescription(table: "root", title: "\(title) (\(format))", columns: columns, total: nil)
    }

    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        throw RPCError.unsupported("a pipe is read once: ask for it with stream: true")
    }

    func stream(_ request: RowsRequest, send: ([Row]) -> Void, cancel: CancellationFlag) throws -> RowsResult {
        var sent = 0
        var reportedSkips = 0
        var reportedKeys = 0
        var lastBeat = Date()
        while true {
            condition.lock()
            while table.pendingCount == 0 && !table.ended && readError == nil && !cancel.isCancelled
                    && Date().timeIntervalSince(lastBeat) < Self.heartbeat {
                _ = condition.wait(until: lastBeat.addingTimeInterval(Self.heartbeat))
            }
            let rows = table.takeRows()
            let ended = table.ended
            let error = readError
            let skipped = table.skipped
            let lateKeys = table.lateKeys
            condition.unlock()
            if lateKeys.count > reportedKeys {
                notifier?.log(.warning, "\(title): keys first seen after the columns were chosen are not shown: \(lateKeys[reportedKeys...].joined(separator: ", "))")
                reportedKeys = lateKeys.count
            }
            try cancel.check()
            if skipped.count > reportedSkips {
                for (line, reason) in skipped[reportedSkips...].prefix(20) {
                    notifier?.log(.warning, "\(title) line \(line): \(reason); the line is left out")
                }
                reportedSkips = skipped.count
                notifier?.status("\(skipped.count) line\(skipped.count == 1 ? "" : "s") of \(title) left out (first: line \(skipped[0].line): \(skipped[0].reason))")
            }
            if let error { throw RPCError(code: RPCError.internalError, message: "\(title): \(error) after \(sent + rows.count) rows") }
            if ended {
                sent += rows.count
                return request.result(rows, total: sent)
            }
            var start = 0
            while start < rows.count {
                let end = min(start + Self.chunkRows, rows.count)
                send(Array(rows[start..<end]))
                start = end
            }
            sent += rows.count
            if rows.isEmpty {
                lastBeat = Date()
                notifier?.progress(done: Double(sent), total: nil, message: "waiting for input on \(title)")
            }
        }
    }

    /// Reads the stream to its end on the reader thread.
    private func read(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            condition.lock()
            if n > 0 {
                bytesRead += n
                table.feed(Array(buffer[..<n]))
            } else if n == 0 {
                table.finish()
            } else {
                readError = String(cString: strerror(errno))
            }
            condition.broadcast()
            condition.unlock()
            if n <= 0 { break }
        }
        Glibc.close(fd)
    }
}
