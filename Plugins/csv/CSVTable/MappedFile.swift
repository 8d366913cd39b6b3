#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a CSV file could not be opened.
public struct CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A read-only, memory-mapped file. The bytes stay valid for the object's lifetime.
final class MappedFile: @unchecked Sendable {
    let path: String
    let count: Int
    /// Start of the mapping (a valid dummy pointer for an empty file).
    let base: UnsafePointer<UInt8>
    private let mapping: UnsafeMutableRawPointer?

    init(path: String) throws(CSVError) {
        self.path = path
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CSVError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw CSVError("cannot stat \(path): \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw CSVError("cannot open \(path): not a regular file") }
        count = Int(st.st_size)
        if count == 0 {
            mapping = nil
            base = UnsafePointer(MappedFile.empty)
            return
        }
        let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { throw CSVError("cannot map \(path): \(String(cString: strerror(errno)))") }
        _ = madvise(p, count, MADV_SEQUENTIAL)
        mapping = p
        base = UnsafePointer(p.assumingMemoryBound(to: UInt8.self))
    }

    /// After indexing, access is random (paging, sorting).
    func adviseRandom() {
        if let mapping { _ = madvise(mapping, count, MADV_NORMAL) }
    }

    deinit { if let mapping { munmap(mapping, count) } }

    nonisolated(unsafe) private static let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)

    /// The bytes in `range` as a buffer.
    @inline(__always) func buffer(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: end - start)
    }
}
