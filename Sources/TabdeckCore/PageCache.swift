import TabdeckProtocol

/// A bounded cache of fixed-size pages of rows, evicting the least recently used.
///
/// The host never holds more than `capacity` pages of a table, whatever its size: this is
/// what keeps a ten-million-row tab as cheap as a hundred-row one.
public struct PageCache: Hashable, Sendable {
    /// Rows per page (the `limit` of each `rows` request).
    public let pageSize: Int
    /// Pages kept at most.
    public let capacity: Int
    private(set) var pages: [Int: [Row]] = [:]
    private var lastUse: [Int: UInt64] = [:]
    private var clock: UInt64 = 0
    /// The first rows of pages that came short with more to follow (PROTOCOL.md 11.3, `more`):
    /// the rest is asked for from the row after them; the page is stored once it is whole.
    public internal(set) var partial: [Int: [Row]] = [:]

    public init(pageSize: Int = 100, capacity: Int = 64) {
        precondition(pageSize > 0 && capacity > 0)
        self.pageSize = pageSize; self.capacity = capacity
    }

    /// The number of pages held.
    public var pageCount: Int { pages.count }
    /// The pages held, sorted.
    public var cachedPages: [Int] { pages.keys.sorted() }

    /// The page holding row `index`.
    public func page(of index: Int) -> Int { index / pageSize }

    /// Whether a page is held.
    public func has(page: Int) -> Bool { pages[page] != nil }

    /// The row at `index`, if its page is held.
    public func row(at index: Int) -> Row? {
        guard let rows = pages[index / pageSize] else { return nil }
        let i = index % pageSize
        return i < rows.count ? rows[i] : nil
    }

    /// Marks a page as just used (so it is evicted last).
    public mutating func touch(page: Int) {
        guard pages[page] != nil else { return }
        clock += 1
        lastUse[page] = clock
    }

    /// Stores a page, evicting least recently used pages beyond capacity (never those in `keep`).
    public mutating func store(page: Int, rows: [Row], keep: Set<Int> = []) {
        clock += 1
        pages[page] = rows
        lastUse[page] = clock
        partial[page] = nil
        while pages.count > capacity {
            guard let victim = lastUse.filter({ !keep.contains($0.key) && $0.key != page })
                .min(by: { $0.value < $1.value })?.key else { break }
            pages[victim] = nil
            lastUse[victim] = nil
        }
    }

    /// Drops every page (rows changed or the order changed).
    public mutating func removeAll() {
        pages = [:]; lastUse = [:]; partial = [:]
    }

    /// Drops the pages that hold any of `ids`.
    public mutating func remove(ids: Set<String>) {
        for (page, rows) in pages where rows.contains(where: { ids.contains($0.id) }) {
            pages[page] = nil; lastUse[page] = nil
        }
        for (page, rows) in partial where rows.contains(where: { ids.contains($0.id) }) { partial[page] = nil }
    }
}
