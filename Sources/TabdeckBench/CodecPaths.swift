import TabdeckPluginKit
import TabdeckProtocol

/// The host's and the plugin kit's code paths, as the bench drives them.
enum CodecPaths {
    /// The plugin kit: the bytes of one `rows` reply line (newline included).
    static func encode(_ result: RowsResult, id: Int64) -> [UInt8] {
        LineEncoder.rowsReply(id: .int(id), result)
    }

    /// The host: every `rows` reply in `stream`, as the core sees it.
    static func decode(_ stream: [UInt8]) throws -> [RowsResult] {
        var results: [RowsResult] = []
        try forEachMessage(stream) { message in
            guard case .response(_, let result) = message else { throw CodecBenchError("not a response: \(message)") }
            results.append(try RowsResult(result))
        }
        return results
    }

    /// The host's path as it runs: each result is kept while the next ones come, as the core's
    /// page cache keeps at most 6,400 rows of a table (here the last 32 replies of up to 200
    /// rows), so memory is reused as in the host. Returns the rows decoded.
    static func decodeKeepingRecent(_ stream: [UInt8], keep: Int) throws -> Int {
        var recent: [RowsResult?] = Array(repeating: nil, count: max(keep, 1))
        var count = 0, next = 0
        try forEachMessage(stream) { message in
            guard case .response(_, let result) = message else { throw CodecBenchError("not a response: \(message)") }
            let rows = try RowsResult(result)
            count += rows.rows.count
            recent[next] = rows
            next = (next + 1) % recent.count
        }
        return count
    }

    /// The reader thread's part only: lines to messages; returns the rows seen. The rows are
    /// counted through `RowsResult(_:)`, which for a reply the codec decoded straight to rows
    /// only reads `generation`, `offset` and `total` (reading `result["rows"]` would rebuild
    /// the rows as JSON values).
    static func decodeMessages(_ stream: [UInt8]) throws -> Int {
        var count = 0
        try forEachMessage(stream) { message in
            if case .response(_, let result) = message { count += try RowsResult(result).rows.count }
        }
        return count
    }

    /// Splits `stream` as the supervisor's reader thread does (64 KiB reads) and decodes each line.
    static func forEachMessage(_ stream: [UInt8], _ body: (Message) throws -> Void) throws {
        var splitter = LineSplitter()
        let chunk = 64 * 1024
        try stream.withUnsafeBytes { raw in
            var start = 0
            while start < raw.count {
                let end = Swift.min(start + chunk, raw.count)
                for piece in splitter.push(UnsafeRawBufferPointer(rebasing: raw[start..<end])) {
                    guard case .line(let bytes) = piece else { throw CodecBenchError("over-long line") }
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }) { continue }
                    try body(try MessageCodec.decode(bytes))
                }
                start = end
            }
        }
    }
}
