import Foundation

/// The persisted sort orders of one open table: a ``SortIndexStore`` bound to the table's
/// file identity, path and delimiter, with the heads already read kept in memory (a page
/// of a persisted head is then served without touching the disk again).
final class PersistedOrders: @unchecked Sendable {
    let store: SortIndexStore
    let identity: SortIndexStore.FileIdentity
    let path: String
    let delimiter: UInt8
    /// Columns read with a given type or a style (``SortIndexStore/keyText(path:delimiter:sort:types:)``).
    let types: [Int: String]
    private let lock = NSLock()
    /// Heads looked up, by sort (nil: looked up, none).
    private var heads: [[CSVSortKey]: SortIndexStore.Head?] = [:]
    /// Byte ranges of the rows of the heads read, by row.
    private var records: [Int: (Int, Int)] = [:]

    init(store: SortIndexStore, identity: SortIndexStore.FileIdentity, path: String, delimiter: UInt8, types: [Int: String] = [:]) {
        self.store = store; self.identity = identity; self.path = path; self.delimiter = delimiter; self.types = types
    }

    func key(_ sort: [CSVSortKey]) -> String { SortIndexStore.keyText(path: path, delimiter: delimiter, sort: sort, types: types) }

    /// The persisted head of `sort` (read once).
    func head(_ sort: [CSVSortKey]) -> SortIndexStore.Head? {
        lock.lock()
        if let known = heads[sort] { lock.unlock(); return known }
        lock.unlock()
        let head = store.head(key: key(sort), identity: identity)
        lock.lock(); defer { lock.unlock() }
        heads[sort] = .some(head)
        if let head {
            for i in 0..<head.rows.count { records[Int(head.rows[i])] = (head.starts[i], head.ends[i]) }
        }
        return head
    }

    /// The byte range of `row` if it is in a head read.
    func record(_ row: Int) -> (Int, Int)? {
        lock.lock(); defer { lock.unlock() }
        return records[row]
    }

    /// The whole persisted order of `sort`, if valid for `rowCount` rows.
    func order(_ sort: [CSVSortKey], rowCount: Int) -> [UInt32]? {
        store.order(key: key(sort), identity: identity, rowCount: rowCount)
    }

    /// Persists a computed order (unless the file changed since it was opened).
    func save(_ order: [UInt32], sort: [CSVSortKey], record: (Int) -> (Int, Int)) {
        guard SortIndexStore.FileIdentity.of(path: path) == identity else { return }
        store.save(order: order, key: key(sort), identity: identity, record: record)
    }
}
