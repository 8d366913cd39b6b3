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
    /// Kept open for ``read(_:count:into:)``.
    private let fd: Int32
    /// The file as mapped: inode and modification time (``changed()``).
    private var inode: UInt = 0
    private var modified = timespec()

    init(path: String) throws(CSVError) {
        self.path = path
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CSVError("cannot open \(path): \(String(cString: strerror(errno)))") }
        self.fd = fd
        var keepOpen = false
        defer { if !keepOpen { close(fd) } }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw CSVError("cannot stat \(path): \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw CSVError("cannot open \(path): not a regular file") }
        count = Int(st.st_size)
        inode = UInt(st.st_ino)
        modified = st.st_mtim
        guard count < 1 << 40 else { throw CSVError("cannot open \(path): files of 1 TiB or more are not supported") }
        if count == 0 {
            mapping = nil
            base = UnsafePointer(MappedFile.empty)
            keepOpen = true
            return
        }
        let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { throw CSVError("cannot map \(path): \(String(cString: strerror(errno)))") }
        _ = madvise(p, count, MADV_SEQUENTIAL)
        mapping = p
        base = UnsafePointer(p.assumingMemoryBound(to: UInt8.self))
        keepOpen = true
    }

    /// Copies `count` bytes from `offset` into `buffer` with pread(2), without mapping the
    /// file's pages into this process. Returns the bytes read (fewer at the end of the file
    /// or on a read error).
    func read(_ offset: Int, count: Int, into buffer: UnsafeMutableRawPointer) -> Int {
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        return done
    }

    /// How the file at `path` differs from the mapping, if it does: written to, cut, or
    /// replaced since it was opened (a mapping of a file cut short faults on the pages past its
    /// new end, so every request checks first).
    func changed() -> String? {
        var now = stat()
        guard stat(path, &now) == 0 else { return "it was removed" }
        if UInt(now.st_ino) != inode { return "it was replaced" }
        if Int(now.st_size) != count { return "its size went from \(count) to \(now.st_size) bytes" }
        if now.st_mtim.tv_sec != modified.tv_sec || now.st_mtim.tv_nsec != modified.tv_nsec { return "it was written to" }
        return nil
    }

    /// After indexing, access is random (paging, sorting).
    func adviseRandom() {
        if let mapping { _ = madvise(mapping, count, MADV_NORMAL) }
    }

    deinit {
        if let mapping { munmap(mapping, count) }
        close(fd)
    }

    /// How many bytes a sequential pass reads before giving them back with ``release(_:_:)``.
    static let releaseWindow = 8 << 20

    /// Drops the pages of `start..<end` (whole pages inside it) from this process's
    /// resident memory. They stay in the kernel's page cache: touching them again maps them
    /// back (a minor fault), so this is safe while other threads read them. A sequential pass
    /// (indexing, sort keys, filtering) calls it behind itself, so the mapped file never
    /// counts in full in the process's RSS.
    func release(_ start: Int, _ end: Int) {
        guard let mapping else { return }
        let page = MappedFile.pageSize
        let from = (start + page - 1) / page * page
        let to = end >= count ? (count + page - 1) / page * page : end / page * page
        if to > from { _ = madvise(mapping + from, to - from, MADV_DONTNEED) }
    }

    /// Called by a sequential pass at `position`: once a window of `releaseWindow` bytes lies
    /// behind it, releases that window and maps the next one in one call
    /// (`MADV_POPULATE_READ`, cheaper than a page fault per 16 pages; ignored where the
    /// kernel lacks it).
    @inline(__always) func passed(_ position: Int, released: inout Int) {
        guard position - released >= MappedFile.releaseWindow else { return }
        release(released, position)
        released = position
        populate(position, min(count, position + MappedFile.releaseWindow))
    }

    /// Maps the pages of `start..<end` in one call (`MADV_POPULATE_READ`; ignored where the
    /// kernel lacks it), before a sequential read of them.
    func populate(_ start: Int, _ end: Int) {
        guard let mapping else { return }
        let page = MappedFile.pageSize
        let from = start / page * page
        if end > from { _ = madvise(mapping + from, end - from, 22 /* MADV_POPULATE_READ */) }
    }

    /// Drops every mapped page from the resident memory (see ``release(_:_:)``).
    func releaseAll() { release(0, count) }

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    nonisolated(unsafe) private static let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)

    /// The bytes in `range` as a buffer.
    @inline(__always) func buffer(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: end - start)
    }
}
