#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole writes to a file descriptor: the write loop of the host's POSIX layer, shared by the
/// protocol trace and line mode's stdout and stderr.
public enum Descriptors {
    /// Writes all of `bytes` to `fd`, again after `EINTR`; false when they could not all be
    /// written (`EPIPE`: the reader is gone; SIGPIPE is ignored, see `ignoreSIGPIPE`).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }
}
