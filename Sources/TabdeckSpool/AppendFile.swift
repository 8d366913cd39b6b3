#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file the spool only appends to and reads back through a memory map: the rows, their
/// offsets, a materialized order. Appends go through a buffer of ``bufferSize`` bytes;
/// ``read(_:)`` writes the buffer out and maps the file as far as it is written, so what the
/// spool holds lives in the page cache, not in the host's own memory.
///
/// Not thread-safe: the spool uses it from its one writer queue. A pointer handed to `read`'s
/// body is valid only inside it (an append may map the file again).
final class AppendFile {
    let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Bytes already in the file (the buffer comes after them).
    private var written = 0
    private var map: UnsafeMutableRawPointer?
    private var mapped = 0
    static let bufferSize = 1 << 20

    /// Creates (or truncates) the file.
    init(path: String) throws(SpoolError) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .file(path: path, message: "cannot create: \(String(cString: strerror(errno)))") }
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit { close() }

    /// Bytes in the file, counting those still in the buffer.
    var size: Int { written + buffer.count }

    /// Appends bytes with `body` writing into the buffer (which is written out once it is full).
    func append(_ body: (inout [UInt8]) -> Void) throws(SpoolError) {
        body(&buffer)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes the buffer to the file.
    func flush() throws(SpoolError) {
        guard !buffer.isEmpty else { return }
        guard fd >= 0 else { throw .file(path: path, message: "the file is closed") }
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(written + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .file(path: path, message: "cannot write: \(String(cString: strerror(errno)))")
            }
            done += n
        }
        written += done
        buffer.removeAll(keepingCapacity: true)
    }

    /// Runs `body` with the whole file mapped (nil when it is empty).
    func read<T>(_ body: (UnsafeRawPointer?) throws(SpoolError) -> T) throws(SpoolError) -> T {
        try flush()
        if written > mapped {
            if let map { munmap(map, mapped) }
            map = nil
            mapped = 0
            guard let m = mmap(nil, written, PROT_READ, MAP_SHARED, fd, 0), m != MAP_FAILED else {
                throw .file(path: path, message: "cannot map: \(String(cString: strerror(errno)))")
            }
            map = m
            mapped = written
        }
        return try body(written == 0 ? nil : UnsafeRawPointer(map))
    }

    /// The whole file mapped (nil when empty), valid until the next append or `close()`: for
    /// reading several files at once.
    func mappedBytes() throws(SpoolError) -> UnsafeRawPointer? {
        try read { (p) throws(SpoolError) -> UnsafeRawPointer? in p }
    }

    /// Unmaps and closes the file, and deletes it.
    func close() {
        if let map { munmap(map, mapped) }
        map = nil
        mapped = 0
        buffer = []
        if fd >= 0 {
            closeDescriptor(fd)
            unlink(path)
        }
        fd = -1
    }
}

private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #elseif canImport(Darwin)
    _ = Darwin.close(fd)
    #endif
}
