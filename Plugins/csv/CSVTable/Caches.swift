import TabdeckProtocol
import Foundation

/// The sort and filter caches of one table: the last few display orders, per-column sort
/// keys and filter matches. One computation runs at a time (a second request for the same
/// order waits and then finds it cached).
final class SortCaches: @unchecked Sendable {
    struct OrderKey: Hashable {
        var sort: [CSVSortKey]
        var filter: String?
        var conditions: [CSVCondition] = []
    }

    static let maxOrders = 4
    static let maxColumnKeys = 3
    static let maxMatches = 2

    /// Bytes the cached column keys may hold (the most recent one is always kept).
    let columnKeyBudget: Int

    init(columnKeyBudget: Int) { self.columnKeyBudget = columnKeyBudget }

    private let lock = NSLock()
    private let computeLock = NSLock()
    private var orders: [(OrderKey, [UInt32])] = []
    private var keys: [ColumnKeys] = []
    private var filters: [(Selection, RowSet)] = []
    /// The first rows of recent orders (``CSVTable/firstRows(sort:offsets:upTo:isCancelled:minimumRows:)``).
    private var tops: [([CSVSortKey], [UInt32])] = []
    static let maxTops = 2

    func order(_ key: OrderKey) -> [UInt32]? {
        lock.lock(); defer { lock.unlock() }
        guard let i = orders.firstIndex(where: { $0.0 == key }) else { return nil }
        let entry = orders.remove(at: i)
        orders.append(entry)
        return entry.1
    }

    func store(_ order: [UInt32], for key: OrderKey) {
        lock.lock(); defer { lock.unlock() }
        orders.removeAll { $0.0 == key }
        orders.append((key, order))
        // Orders take 4 bytes a row: the last one is always kept, older ones within the budget.
        while orders.count > 1 && (orders.count > Self.maxOrders
                                   || orders.reduce(0, { $0 + $1.1.count * 4 }) > columnKeyBudget / 2) {
            orders.removeFirst()
        }
    }

    func columnKeys(_ column: Int) -> ColumnKeys? {
        lock.lock(); defer { lock.unlock() }
        guard let i = keys.firstIndex(where: { $0.column == column }) else { return nil }
        let entry = keys.remove(at: i)
        keys.append(entry)
        return entry
    }

    func store(_ k: ColumnKeys) {
        lock.lock(); defer { lock.unlock() }
        keys.removeAll { $0.column == k.column }
        keys.append(k)
        while keys.count > 1 && (keys.count > Self.maxColumnKeys || keys.reduce(0, { $0 + $1.memoryFootprint }) > columnKeyBudget) {
            keys.removeFirst()
        }
    }

    func matches(_ filter: Selection) -> RowSet? {
        lock.lock(); defer { lock.unlock() }
        return filters.first { $0.0 == filter }?.1
    }

    func store(_ set: RowSet, for filter: Selection) {
        lock.lock(); defer { lock.unlock() }
        filters.removeAll { $0.0 == filter }
        filters.append((filter, set))
        if filters.count > Self.maxMatches { filters.removeFirst() }
    }

    /// The first rows of the order of `sort`, if at least `count` of them are kept.
    func top(_ sort: [CSVSortKey], count: Int) -> [UInt32]? {
        lock.lock(); defer { lock.unlock() }
        guard let rows = tops.first(where: { $0.0 == sort })?.1, rows.count >= count else { return nil }
        return rows
    }

    func storeTop(_ rows: [UInt32], for sort: [CSVSortKey]) {
        lock.lock(); defer { lock.unlock() }
        tops.removeAll { $0.0 == sort }
        tops.append((sort, rows))
        if tops.count > Self.maxTops { tops.removeFirst() }
    }

    /// Runs `body` alone among computations; gives up waiting when cancelled.
    func computing<T>(isCancelled: () -> Bool, _ body: () throws -> T) throws -> T {
        while !computeLock.lock(before: Date(timeIntervalSinceNow: 0.05)) {
            if isCancelled() { throw CancellationError() }
        }
        defer { computeLock.unlock() }
        if isCancelled() { throw CancellationError() }
        return try body()
    }
}

/// A set of row numbers as a bitmap.
struct RowSet: Sendable {
    var words: [UInt64]
    var count: Int

    init(rows: Int) { words = [UInt64](repeating: 0, count: (rows + 63) / 64); count = 0 }

    @inline(__always) func contains(_ row: Int) -> Bool { words[row >> 6] & (1 << UInt64(row & 63)) != 0 }
    @inline(__always) mutating func insert(_ row: Int) {
        let bit: UInt64 = 1 << UInt64(row & 63)
        if words[row >> 6] & bit == 0 { words[row >> 6] |= bit; count += 1 }
    }
}

/// Finds the rows with a cell that contains a text, ignoring ASCII letter case (the host's one
/// matcher, ``FilterText``, over each field's bytes).
struct RowFilter {
    let text: FilterText
    /// Whether a record without the needle in its raw bytes can be skipped (the raw record can
    /// only miss a match that spans a doubled quote or a line break).
    let prefilter: Bool

    init(needle: String) {
        text = FilterText(needle)
        prefilter = !text.bytes.contains(Byte.quote) && !text.bytes.contains(Byte.newline) && !text.bytes.contains(Byte.cr)
    }

    /// Whether the record at `start..<end` has a cell that contains the needle.
    @inline(__always) func matches(record start: Int, end: Int, scanner: FieldScanner, columns: Int) -> Bool {
        if prefilter && !contains(UnsafeBufferPointer(start: scanner.base + start, count: end - start)) { return false }
        var hit = false
        _ = scanner.scan(record: start) { j, span in
            guard j < columns else { return false }
            if span.escaped {
                hit = scanner.unescaped(span).withUnsafeBufferPointer { contains($0) }
            } else {
                hit = contains(UnsafeBufferPointer(start: scanner.base + span.start, count: span.count))
            }
            return !hit
        }
        return hit
    }

    @inline(__always) func contains(_ hay: UnsafeBufferPointer<UInt8>) -> Bool { text.contains(hay) }
}
