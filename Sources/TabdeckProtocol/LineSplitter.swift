#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into `\n`-terminated lines, with a maximum line length.
///
/// A line longer than the maximum is not buffered: its bytes are counted and dropped,
/// and it comes out as ``Piece/overlong(byteCount:)``. A `\r` before the `\n` is removed.
public struct LineSplitter: Sendable {
    /// The protocol's maximum line length: 4 MiB, excluding the `\n`.
    public static let defaultMaxLineLength = 4 * 1024 * 1024

    /// What the splitter produces.
    public enum Piece: Equatable, Sendable {
        case line([UInt8])
        case overlong(byteCount: Int)
    }

    public let maxLineLength: Int
    private var buffer: [UInt8] = []
    private var discarding = 0  // > 0 while skipping an over-long line: bytes seen so far

    public init(maxLineLength: Int = LineSplitter.defaultMaxLineLength) {
        self.maxLineLength = maxLineLength
    }

    /// Whether the line being read has already grown past the maximum (its bytes are being
    /// counted and dropped until its `\n`). A reader that must not wait for the end of such a
    /// line checks this after each `push`.
    public var isDiscarding: Bool { discarding > 0 }

    /// The bytes of the unfinished line seen so far (kept or, past the maximum, counted).
    public var unfinishedByteCount: Int { discarding > 0 ? discarding : buffer.count }

    /// Feeds a chunk; returns the lines it completed.
    public mutating func push(_ chunk: UnsafeRawBufferPointer) -> [Piece] {
        var pieces: [Piece] = []
        let bytes = chunk.bindMemory(to: UInt8.self)
        var start = 0
        while start < bytes.count {
            let rest = UnsafeBufferPointer(rebasing: bytes[start...])
            guard let found = memchr(rest.baseAddress!, 0x0A, rest.count) else {
                append(rest)
                break
            }
            let newline = start + (UnsafeRawPointer(found) - UnsafeRawPointer(rest.baseAddress!))
            append(UnsafeBufferPointer(rebasing: bytes[start..<newline]))
            pieces.append(takeLine())
            start = newline + 1
        }
        return pieces
    }

    /// Feeds a chunk given as an array.
    public mutating func push(_ chunk: [UInt8]) -> [Piece] {
        chunk.withUnsafeBytes { push($0) }
    }

    /// Ends the stream: an unterminated last line comes out as a line.
    public mutating func finish() -> [Piece] {
        if discarding > 0 || !buffer.isEmpty { return [takeLine()] }
        return []
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if discarding > 0 { discarding += bytes.count; return }
        if buffer.count + bytes.count > maxLineLength {
            discarding = buffer.count + bytes.count
            buffer = []
            return
        }
        buffer.append(contentsOf: bytes)
    }

    private mutating func takeLine() -> Piece {
        if discarding > 0 {
            let n = discarding
            discarding = 0
            return .overlong(byteCount: n)
        }
        var line = buffer
        buffer = []
        buffer.reserveCapacity(min(line.count, 1 << 16))
        if line.last == 0x0D { line.removeLast() }
        return .line(line)
    }
}
