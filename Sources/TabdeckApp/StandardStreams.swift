import TabdeckSupervisor

/// Line mode's stdout and stderr, written with write(2) (``Descriptors/writeAll(_:_:)``).
/// `FileHandle.write` traps when the reader has gone away (`tabdeck --line ... | head -1`:
/// EPIPE, since the host ignores SIGPIPE for its plugins' pipes); here that is a `false` the
/// runtime acts on.
public enum StandardStreams {
    /// Writes all of `text` to `fd`; false when the bytes could not all be written (the
    /// reader is gone, or another error).
    @discardableResult
    public static func write(_ fd: Int32, _ text: String) -> Bool {
        Descriptors.writeAll(fd, Array(text.utf8))
    }

    /// Writes all of `bytes` to `fd`; false when they could not all be written.
    @discardableResult
    public static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        Descriptors.writeAll(fd, bytes)
    }
}
