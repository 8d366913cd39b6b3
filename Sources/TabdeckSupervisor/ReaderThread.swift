import Foundation
import TabdeckProtocol

/// Size of one read(2) from a plugin pipe.
let readChunkSize = 64 * 1024

/// Starts a dedicated thread that reads `fd` with blocking read(2) calls of 64 KiB, cuts
/// the bytes into lines with a `LineSplitter`, and hands every piece to `onPiece` (on that
/// thread). At end of file (or a read error) the final unterminated line is handed over,
/// `fd` is closed and `onEnd` runs. `onReading(true)` runs before each read(2) and
/// `onReading(false, n)` after it (`n` bytes read), so the owner can tell an idle pipe from
/// a busy reader and count what it read.
///
/// With `cutOverlongLines`, a line is reported as `.overlong` the moment its bytes cross
/// `maxLineLength`, without waiting for its `\n` or the end of the stream, and the thread stops
/// reading there (it closes `fd`: a writer still writing gets EPIPE): at most one read(2)
/// beyond the limit is ever read.
func startReaderThread(
    name: String, fd: Int32, maxLineLength: Int, cutOverlongLines: Bool,
    onReading: @escaping @Sendable (_ reading: Bool, _ bytes: Int) -> Void,
    onPiece: @escaping @Sendable (LineSplitter.Piece) -> Void,
    onEnd: @escaping @Sendable () -> Void
) {
    let thread = Thread {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readChunkSize, alignment: 1)
        defer { buffer.deallocate() }
        var cut = false
        reading: while true {
            onReading(true, 0)
            let count = read(fd, buffer.baseAddress, readChunkSize)
            let code = errno
            onReading(false, max(count, 0))
            if count < 0 && code == EINTR { continue }
            if count <= 0 { break }
            for piece in splitter.push(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                onPiece(piece)
                if cutOverlongLines, case .overlong = piece {
                    cut = true
                    break reading
                }
            }
            if cutOverlongLines && splitter.isDiscarding {
                onPiece(.overlong(byteCount: splitter.unfinishedByteCount))
                cut = true
                break
            }
        }
        if !cut {
            for piece in splitter.finish() {
                onPiece(piece)
            }
        }
        close(fd)
        onEnd()
    }
    thread.name = name
    thread.stackSize = 4 * 1024 * 1024  // decoding recurses (up to 512 levels of nesting); virtual, touched lazily
    thread.start()
}
