#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole writes to a file descriptor: the write loop of the host's POSIX layer, shared by the
/// plugins' stdin writer, the log files, the protocol trace, the conformance checker's channel
/// and line mode's stdout and stderr.
public enum Descriptors {
    /// Writes all of `bytes` to `fd`, again after `EINTR`; nil when all were written, else the
    /// `errno` that stopped it (`EPIPE`: the reader is gone; SIGPIPE is ignored, see `ignoreSIGPIPE`).
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = systemWrite(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }

    /// Writes all of `bytes` to `fd`; false when they could not all be written.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write(fd, $0) == nil }
    }

    /// Writes all of `text`'s UTF-8 to `fd`; false when it could not all be written. Line mode's
    /// stdout and stderr go through here, not `FileHandle.write`, which traps on EPIPE
    /// (`tabdeck --line ... | head -1`).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        writeAll(fd, Array(text.utf8))
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #elseif canImport(Darwin)
    Darwin.write(fd, buffer, count)
    #endif
}
