import TabdeckProtocol

/// The line splitter with its length limit, on a byte stream cut into reads.
///
/// The first input byte sets the limit (1–64 bytes, so limits are crossed often), the second
/// how the stream is cut into reads. Invariants: the pieces are the stream's lines (a `\r`
/// before each `\n` removed), each at most the limit, and a longer line is only ever its
/// `.overlong` piece with its exact byte count; cutting the stream differently changes nothing.
enum LinesTarget {
    static let target = FuzzTarget(
        name: "lines",
        summary: "the line splitter: pieces give the input back, nothing passes the limit, reads do not matter",
        check: check)

    static func check(_ input: [UInt8]) -> FuzzViolation? {
        var reader = FuzzReader(input)
        let limit = 1 + Int(reader.byte() % 64)
        let cut = Int(reader.byte())
        let stream = reader.rest

        let expected = reference(stream, limit: limit)
        let whole = split(stream, limit: limit, reads: [stream.count])
        guard whole == expected else {
            return FuzzViolation("lines", "the pieces are the stream's lines, over-long ones counted",
                                 "limit \(limit), \(excerpt(stream)): \(whole) instead of \(expected)")
        }
        // Reads of 1…`cut`+1 bytes, cycling.
        var reads: [Int] = []
        var left = stream.count, size = 1
        while left > 0 { let n = min(left, size); reads.append(n); left -= n; size = size % (cut + 1) + 1 }
        let pieces = split(stream, limit: limit, reads: reads)
        guard pieces == expected else {
            return FuzzViolation("lines", "the same pieces whatever the reads", "limit \(limit), reads \(reads.prefix(8))…: \(pieces)")
        }
        for case .line(let line) in pieces where line.count > limit {
            return FuzzViolation("lines", "no line passes the limit", "a line of \(line.count) bytes, limit \(limit)")
        }
        return nil
    }

    static func split(_ stream: [UInt8], limit: Int, reads: [Int]) -> [LineSplitter.Piece] {
        var splitter = LineSplitter(maxLineLength: limit)
        var pieces: [LineSplitter.Piece] = []
        var start = 0
        for n in reads {
            pieces += splitter.push(Array(stream[start..<(start + n)]))
            start += n
        }
        return pieces + splitter.finish()
    }

    /// What the pieces must be, computed the obvious way.
    static func reference(_ stream: [UInt8], limit: Int) -> [LineSplitter.Piece] {
        var lines = stream.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if lines.last?.isEmpty == true { lines.removeLast() }  // the stream ended with `\n` (or is empty)
        return lines.map { raw in
            if raw.count > limit { return .overlong(byteCount: raw.count) }
            return .line(raw.last == 0x0D ? Array(raw.dropLast()) : raw)
        }
    }
}
