import Foundation

/// Sort orders persisted on disk, so that reopening a file sorted before shows its first
/// sorted page without indexing or sorting it again (issue 14, point 3).
///
/// One file per (file path, delimiter, sort keys) in `directory`, named by a hash of that
/// text, holding: the identity of the data file it was computed from (size and modification
/// time), the row count, the first ``headRows`` rows of the order with their byte ranges
/// (enough to serve the first page before the file is indexed) and the whole order.
///
/// - Invalidation: an entry whose size or modification time differs from the data file's
///   is deleted when looked up.
/// - Bound: after each write, entries are deleted least recently used first (a lookup sets
///   the entry's modification time to `now()`) until they take at most `capacity` bytes.
/// - Removal: ``clear(directory:)`` deletes the folder (`tabdeck cache clear`).
///
/// Every failure (no folder, a full disk, a damaged entry) only means "no entry": the order
/// is then computed as if this store did not exist.
public struct SortIndexStore: Sendable {
    /// The identity of a data file: an entry is valid only for the same size and mtime.
    public struct FileIdentity: Equatable, Sendable {
        public var size: Int
        public var mtimeSeconds: Int
        public var mtimeNanoseconds: Int
        public init(size: Int, mtimeSeconds: Int, mtimeNanoseconds: Int) {
            self.size = size; self.mtimeSeconds = mtimeSeconds; self.mtimeNanoseconds = mtimeNanoseconds
        }

        /// The identity of the file at `path` now (nil if it cannot be read).
        public static func of(path: String) -> FileIdentity? {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            return FileIdentity(size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec), mtimeNanoseconds: Int(st.st_mtim.tv_nsec))
        }
    }

    /// The start of a persisted order: its first rows and where their records are.
    public struct Head: Equatable, Sendable {
        /// All rows of the order (the table's row count).
        public var rowCount: Int
        /// The first rows of the order (0-based, file order).
        public var rows: [UInt32]
        /// The byte range of each of those rows' records in the data file.
        public var starts: [Int]
        public var ends: [Int]
    }

    /// The folder of the entries.
    public let directory: String
    /// Bytes the entries may take in all.
    public let capacity: Int
    /// The clock of last use (tests pass a virtual one).
    public let now: @Sendable () -> Date

    /// Rows of the order kept at the start of an entry with their byte ranges.
    public static let headRows = 4096
    /// The default bound: 1 GiB (an order takes 4 bytes a row: 40 MB at 10M rows).
    public static let defaultCapacity = 1 << 30
    static let magic: UInt64 = 0x3176_7864_5354_4454  // "TDSTdxv1" little-endian
    static let suffix = ".sortidx"

    public init(directory: String, capacity: Int = SortIndexStore.defaultCapacity, now: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory; self.capacity = capacity; self.now = now
    }

    /// The store in `$TABDECK_CACHE_DIR/csv-sort` (the host sets `TABDECK_CACHE_DIR` to
    /// `<state>/cache`; empty or unset: none), bounded by `$TABDECK_CSV_SORT_CACHE_MB`.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> SortIndexStore? {
        guard let dir = env["TABDECK_CACHE_DIR"], !dir.isEmpty else { return nil }
        let mb = env["TABDECK_CSV_SORT_CACHE_MB"].flatMap { Int($0) }
        return SortIndexStore(directory: dir + "/csv-sort", capacity: mb.map { $0 << 20 } ?? defaultCapacity)
    }

    /// Deletes every entry (the whole folder). Returns the number of entries deleted.
    @discardableResult
    public static func clear(directory: String) throws -> Int {
        let fm = FileManager.default
        guard fm.fileExists(atPath: directory) else { return 0 }
        let n = ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(suffix) }.count
        try fm.removeItem(atPath: directory)
        return n
    }

    /// What an entry is for: the data file's real path, its delimiter and the sort keys.
    /// `types`: how each sorted column is read, when not as inferred with standard forms
    /// (args can give a column another type: its order is then another one).
    static func keyText(path: String, delimiter: UInt8, sort: [CSVSortKey], types: [Int: String] = [:]) -> String {
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? path
        let absolute = URL(fileURLWithPath: real).standardizedFileURL.resolvingSymlinksInPath().path
        return "csv-sort-v1\n\(absolute)\n\(delimiter)\n" + sort.map {
            "\($0.column)\($0.descending ? "d" : "a")" + (types[$0.column].map { ":" + $0 } ?? "")
        }.joined(separator: ",")
    }

    /// The entry file for a key text (FNV-1a 64 of it; the text itself is checked on reading).
    func entryPath(_ key: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return directory + "/" + String(h, radix: 16) + Self.suffix
    }

    // MARK: Reading

    /// The start of the persisted order for `key`, if an entry exists for this file identity;
    /// marks the entry used. A stale entry (the file changed) is deleted.
    public func head(key: String, identity: FileIdentity) -> Head? {
        guard let reader = EntryReader(path: entryPath(key)) else { return nil }
        defer { reader.close() }
        guard let header = reader.header(), header.key == key else { return nil }
        guard header.identity == identity else {
            try? FileManager.default.removeItem(atPath: entryPath(key))
            return nil
        }
        guard let rows: [UInt32] = reader.array(count: header.headCount),
              let starts: [Int] = reader.array(count: header.headCount),
              let ends: [Int] = reader.array(count: header.headCount) else { return nil }
        touch(entryPath(key))
        return Head(rowCount: header.rowCount, rows: rows, starts: starts, ends: ends)
    }

    /// The whole persisted order for `key` if it is valid for this identity and row count.
    public func order(key: String, identity: FileIdentity, rowCount: Int) -> [UInt32]? {
        guard let reader = EntryReader(path: entryPath(key)) else { return nil }
        defer { reader.close() }
        guard let header = reader.header(), header.key == key, header.rowCount == rowCount else { return nil }
        guard header.identity == identity else {
            try? FileManager.default.removeItem(atPath: entryPath(key))
            return nil
        }
        reader.skip(header.headCount * (4 + 8 + 8))
        guard let order: [UInt32] = reader.array(count: rowCount) else { return nil }
        touch(entryPath(key))
        return order
    }

    private func touch(_ path: String) {
        let t = now().timeIntervalSince1970
        var times = [timespec(tv_sec: Int(t), tv_nsec: Int((t - t.rounded(.down)) * 1e9)),
                     timespec(tv_sec: Int(t), tv_nsec: Int((t - t.rounded(.down)) * 1e9))]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    // MARK: Writing

    /// Persists `order` for `key`, then evicts least recently used entries over the bound.
    /// `record(row)` gives a row's byte range. Returns false if nothing was written.
    @discardableResult
    public func save(order: [UInt32], key: String, identity: FileIdentity, record: (Int) -> (Int, Int)) -> Bool {
        let headCount = min(order.count, Self.headRows)
        let keyBytes = Array(key.utf8)
        let size = 8 * 7 + keyBytes.count + headCount * 20 + order.count * 4
        guard size <= capacity else { return false }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let final = entryPath(key)
        let temp = final + ".\(getpid()).tmp"
        guard let out = FileHandle(forWritingAtPath: temp) ?? {
            FileManager.default.createFile(atPath: temp, contents: nil) ? FileHandle(forWritingAtPath: temp) : nil
        }() else { return false }
        var data = Data(capacity: 8 * 7 + keyBytes.count + headCount * 20)
        for v in [Self.magic, UInt64(identity.size), UInt64(bitPattern: Int64(identity.mtimeSeconds)),
                  UInt64(bitPattern: Int64(identity.mtimeNanoseconds)), UInt64(order.count), UInt64(headCount),
                  UInt64(keyBytes.count)] {
            withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: keyBytes)
        let ranges = order.prefix(headCount).map { record(Int($0)) }
        order.prefix(headCount).withUnsafeBytes { data.append(contentsOf: $0) }
        ranges.map { $0.0 }.withUnsafeBytes { data.append(contentsOf: $0) }
        ranges.map { $0.1 }.withUnsafeBytes { data.append(contentsOf: $0) }
        do {
            try out.write(contentsOf: data)
            try order.withUnsafeBytes { try out.write(contentsOf: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0.baseAddress!),
                                                                        count: $0.count, deallocator: .none)) }
            try out.close()
        } catch {
            try? out.close(); try? FileManager.default.removeItem(atPath: temp)
            return false
        }
        guard rename(temp, final) == 0 else { try? FileManager.default.removeItem(atPath: temp); return false }
        touch(final)
        evict(keeping: final)
        return true
    }

    /// Deletes entries, least recently used first, until they take at most `capacity` bytes
    /// (`keeping` is deleted last).
    func evict(keeping: String? = nil) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else { return }
        var entries: [(path: String, used: Date, size: Int)] = []
        for name in names where name.hasSuffix(Self.suffix) {
            let path = directory + "/" + name
            guard let a = try? fm.attributesOfItem(atPath: path) else { continue }
            entries.append((path, a[.modificationDate] as? Date ?? .distantPast, (a[.size] as? NSNumber)?.intValue ?? 0))
        }
        var total = entries.reduce(0) { $0 + $1.size }
        entries.sort { ($0.path == keeping ? 1 : 0, $0.used) < ($1.path == keeping ? 1 : 0, $1.used) }
        for e in entries where total > capacity {
            try? fm.removeItem(atPath: e.path)
            total -= e.size
        }
    }

    /// The entries now, least recently used first (for tests and `tabdeck cache`).
    public func entries() -> [String] {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(Self.suffix) }
        return names.map { (name: $0, used: (try? fm.attributesOfItem(atPath: directory + "/" + $0))?[.modificationDate] as? Date ?? .distantPast) }
            .sorted { ($0.used, $0.name) < ($1.used, $1.name) }.map(\.name)
    }
}

/// Reads an entry sequentially with pread(2).
private final class EntryReader {
    struct Header {
        var identity: SortIndexStore.FileIdentity
        var rowCount: Int
        var headCount: Int
        var key: String
    }

    let fd: Int32
    var offset = 0
    let size: Int

    init?(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        var st = stat()
        fstat(fd, &st)
        size = Int(st.st_size)
    }

    func close() { _ = Glibc.close(fd) }

    func skip(_ n: Int) { offset += n }

    func array<T>(count: Int) -> [T]? {
        let bytes = count * MemoryLayout<T>.stride
        guard count >= 0, offset + bytes <= size else { return nil }
        var ok = true
        let out = [T](unsafeUninitializedCapacity: count) { buf, initialized in
            var done = 0
            let raw = UnsafeMutableRawPointer(buf.baseAddress)
            while done < bytes, let raw {
                let n = pread(fd, raw + done, bytes - done, off_t(offset + done))
                if n <= 0 { ok = false; break }
                done += n
            }
            initialized = ok ? count : 0
        }
        offset += bytes
        return ok ? out : nil
    }

    func header() -> Header? {
        guard let words: [UInt64] = array(count: 7), words[0] == SortIndexStore.magic else { return nil }
        let rowCount = Int(words[4]), headCount = Int(words[5]), keyCount = Int(words[6])
        guard headCount <= rowCount, keyCount < 1 << 16, let key: [UInt8] = array(count: keyCount),
              size == offset + headCount * 20 + rowCount * 4 else { return nil }
        let identity = SortIndexStore.FileIdentity(size: Int(words[1]), mtimeSeconds: Int(Int64(bitPattern: words[2])),
                                                   mtimeNanoseconds: Int(Int64(bitPattern: words[3])))
        return Header(identity: identity, rowCount: rowCount, headCount: headCount, key: String(decoding: key, as: UTF8.self))
    }
}
