import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// One tab's spool: a throwaway folder holding the rows of its spooled tables.
///
/// Each table is two ``AppendFile``s: its rows as ``RowRecord``s in arrival order, and each
/// row's offset there (8 bytes). A materialized order is a third file (a 4-byte row number per
/// position). Appending a row costs one record's bytes, no index and no transaction; sorting
/// reads the records through a memory map (``RowSorter``), filtering too (``RowFilter``).
/// The files are rebuilt from the plugin whenever they are lost, so nothing is synced.
///
/// Not thread-safe: ``SpoolRouter`` uses it from its one writer queue only, its `owner`: every
/// method checks that it runs there, so a use from another thread (which could unmap a file
/// while a page reads it) stops at once in any test instead of crashing now and then.
public final class SpoolFile: @unchecked Sendable {
    /// The folder's path (`<state>/spool/<pid>-<tab>`).
    public let path: String
    /// The one queue allowed to use the file (nil: the caller's own discipline, for tests).
    private let owner: DispatchQueue?
    private var tables: [String: StoredRows] = [:]
    /// Materialized orders, by name (``materialize(_:_:name:)``).
    private(set) var orders: [String: AppendFile] = [:]
    /// The rows that pass a filter, in arrival order (`sort` empty) or in a sort order, for the
    /// last few asked: paging through a filtered view scans the table once. Dropped when the
    /// table changes.
    private var filtered: [(table: String, filter: RowKeep, sort: [SortKey], rows: [Int])] = []
    static let keptFilters = 4
    /// Rows a materialized order sorts in memory at once (``RowSorter/runRows``; tests make it small).
    var runRows = RowSorter.runRows
    /// A filtered page within this many rows of the top of a big result comes from a heap
    /// instead of a full sort of the rows that pass (a result of more than ``runRows`` rows is
    /// not kept sorted: each of its pages sorts again).
    static let heapRows = 1000

    /// Creates (or empties) the folder at `path`, creating its parent.
    public init(path: String, owner: DispatchQueue? = nil) throws(SpoolError) {
        self.path = path
        self.owner = owner
        try? FileManager.default.removeItem(atPath: path)
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw .file(path: path, message: "cannot create the spool folder: \(error.localizedDescription)")
        }
    }

    /// Stops the program when called off the owner queue.
    @inline(__always) func onOwner() {
        if let owner { dispatchPrecondition(condition: .onQueue(owner)) }
    }

    /// Closes and deletes every file, and the folder.
    public func remove() {
        onOwner()
        for table in tables.values { table.close() }
        for order in orders.values { order.close() }
        tables = [:]
        orders = [:]
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Creates the (empty) table of `schema`, dropping an old one of the same name.
    public func create(_ schema: SpoolSchema) throws(SpoolError) {
        onOwner()
        drop(schema)
        forgetFilters(schema)
        tables[schema.tableName] = try StoredRows(folder: path, name: schema.tableName, columns: schema.columns.count)
    }

    /// Drops the table of `schema`.
    public func drop(_ schema: SpoolSchema) {
        onOwner()
        tables.removeValue(forKey: schema.tableName)?.close()
        forgetFilters(schema)
    }

    private func forgetFilters(_ schema: SpoolSchema) {
        filtered.removeAll { $0.table == schema.tableName }
    }

    /// Drops a materialized order by name.
    public func dropTable(named name: String) {
        onOwner()
        orders.removeValue(forKey: name)?.close()
    }

    /// Writes out what is buffered (pages read it anyway; this only bounds what a crash loses).
    public func commit() throws(SpoolError) {
        onOwner()
        for table in tables.values { try table.flush() }
    }

    /// Appends rows to the table of `schema`, after those it has.
    /// - Returns: how many rows were appended.
    public func insert(_ rows: [Row], into schema: SpoolSchema) throws(SpoolError) -> Int {
        onOwner()
        forgetFilters(schema)
        try stored(schema).append(rows)
        return rows.count
    }

    /// The rows in the table of `schema`.
    public func count(_ schema: SpoolSchema) -> Int {
        onOwner()
        return tables[schema.tableName]?.count ?? 0
    }

    /// Materializes `sort` into the order `name`, for deep pages.
    public func materialize(_ schema: SpoolSchema, _ sort: [SortKey], name: String) throws(SpoolError) {
        onOwner()
        let columns = try schema.sortColumns(sort)
        let table = try stored(schema)
        let file = try AppendFile(path: path + "/\(name).order")
        do {
            try table.read { (records, offsets) throws(SpoolError) in
                guard let records, let offsets else { return }
                try RowSorter(base: records, offsets: offsets, columns: columns)
                    .write(count: table.count, into: file, runs: { (i) throws(SpoolError) in try AppendFile(path: path + "/\(name).run\(i)") },
                           runRows: runRows)
            }
            try file.flush()
        } catch {
            file.close()
            throw error
        }
        orders[name]?.close()
        orders[name] = file
    }

    /// One page of rows in `sort` order (arrival order when empty), as the wire's row objects.
    /// With `orderTable` (from ``materialize(_:_:name:)``) the page is read through it; with
    /// `filter`, only the rows that pass count (``RowFilter``).
    public func page(_ schema: SpoolSchema, sort: [SortKey], offset: Int, limit: Int,
                     orderTable: String? = nil, filter: RowKeep? = nil) throws(SpoolError) -> [JSONValue] {
        onOwner()
        let columns = try schema.sortColumns(sort)
        let table = try stored(schema)
        let n = table.count
        let cellCount = schema.columns.count
        return try table.read { (records, offsets) throws(SpoolError) -> [JSONValue] in
            guard let records, let offsets, offset < n, limit > 0 else { return [] }
            let rows: [Int]
            if let filter {
                let kept = passing(schema, filter: filter, records: records, offsets: offsets, count: n)
                if columns.isEmpty {
                    rows = Array(kept.dropFirst(offset).prefix(limit))
                } else if let ordered = cachedFilter(schema, filter, sort) {
                    rows = Array(ordered.dropFirst(offset).prefix(limit))
                } else {
                    let sorter = RowSorter(base: records, offsets: offsets, columns: columns)
                    // A heap near the top of a big result; else the whole result sorted and kept,
                    // unless it is too big to keep (then sorted again for each page, in memory:
                    // a heap as deep as the page, or every passing row's keys past a quarter).
                    if (offset + limit <= Self.heapRows && kept.count > 100_000) || kept.count > runRows {
                        rows = Array(sorter.first(offset + limit, count: n, of: kept).dropFirst(offset))
                    } else {
                        let ordered = sorter.all(count: n, of: kept).map(Int.init)
                        remember(schema, filter, sort, ordered)
                        rows = Array(ordered.dropFirst(offset).prefix(limit))
                    }
                }
            } else if let orderTable, let order = orders[orderTable] {
                let end = min(n, offset + limit)
                rows = try order.read { (positions) throws(SpoolError) -> [Int] in
                    guard let positions else { return [] }
                    let p = positions.assumingMemoryBound(to: Int32.self)
                    return (offset..<end).map { Int(p[$0]) }
                }
            } else if columns.isEmpty {
                rows = Array(offset..<min(n, offset + limit))
            } else {
                let sorter = RowSorter(base: records, offsets: offsets, columns: columns)
                rows = Array(sorter.first(offset + limit, count: n).dropFirst(offset))
            }
            return rows.map { RowRecord.row(records, at: Int(offsets[$0]), columns: cellCount) }
        }
    }

    /// How many rows of the table pass `filter`.
    public func count(_ schema: SpoolSchema, filter: RowKeep) throws(SpoolError) -> Int {
        onOwner()
        let table = try stored(schema)
        return try table.read { (records, offsets) throws(SpoolError) -> Int in
            passing(schema, filter: filter, records: records, offsets: offsets, count: table.count).count
        }
    }

    /// Counts the rows of the table of `schema` that pass `filter` (every row when nil) by
    /// their cells at `indexes` (``GroupCounter``): one pass over the records, memory for the
    /// groups only. Returns the groups in first-seen order and the rows counted.
    /// - Throws: ``SpoolError/tooManyGroups(_:table:)`` past `limit` groups.
    func groups(_ schema: SpoolSchema, filter: RowKeep?, indexes: [Int],
                limit: Int = GroupCounter.maxGroups) throws(SpoolError) -> (groups: [Group], rows: Int) {
        onOwner()
        let table = try stored(schema)
        let counter = GroupCounter(columns: schema.columns, indexes: indexes, keep: filter, limit: limit)
        let counted = try table.read { (records, offsets) throws(SpoolError) in
            counter.count(base: records, offsets: offsets, count: table.count)
        }
        guard let counted else { throw .tooManyGroups(limit, table: schema.tableName) }
        return counted
    }

    /// The `describe` statistics (PROTOCOL.md 11.13) of the rows of the table of `schema` that
    /// pass `filter` (every row when nil): one pass over the records (``RowDescriber``), memory
    /// bounded by `limits`.
    func describe(_ schema: SpoolSchema, filter: RowKeep?, limits: ColumnSummary.Limits) throws(SpoolError) -> TableSummary {
        onOwner()
        let table = try stored(schema)
        let describer = RowDescriber(columns: schema.columns, keep: filter, limits: limits)
        return try table.read { (records, offsets) throws(SpoolError) in
            describer.summarize(base: records, offsets: offsets, count: table.count)
        }
    }

    /// The rows that pass `filter`, in arrival order: from the cache, or one scan (then cached).
    func passing(_ schema: SpoolSchema, filter: RowKeep, records: UnsafeRawPointer?, offsets: UnsafePointer<UInt64>?,
                         count: Int) -> [Int] {
        if let kept = cachedFilter(schema, filter, []) { return kept }
        let kept = filter.rows(base: records, offsets: offsets, count: count, columns: schema.columns)
        remember(schema, filter, [], kept)
        return kept
    }

    func cachedFilter(_ schema: SpoolSchema, _ filter: RowKeep, _ sort: [SortKey]) -> [Int]? {
        guard let i = filtered.firstIndex(where: { $0.table == schema.tableName && $0.filter == filter && $0.sort == sort }) else {
            return nil
        }
        let entry = filtered.remove(at: i)
        filtered.append(entry)
        return entry.rows
    }

    func remember(_ schema: SpoolSchema, _ filter: RowKeep, _ sort: [SortKey], _ rows: [Int]) {
        filtered.removeAll { $0.table == schema.tableName && $0.filter == filter && $0.sort == sort }
        filtered.append((schema.tableName, filter, sort, rows))
        if filtered.count > Self.keptFilters { filtered.removeFirst() }
    }

    func stored(_ schema: SpoolSchema) throws(SpoolError) -> StoredRows {
        guard let table = tables[schema.tableName] else {
            throw .file(path: path, message: "no spooled table \(schema.tableName)")
        }
        return table
    }
}

/// One spooled table's two files: the records and their offsets.
final class StoredRows {
    private let records: AppendFile
    private let offsets: AppendFile
    private let columns: Int
    private(set) var count = 0

    init(folder: String, name: String, columns: Int) throws(SpoolError) {
        records = try AppendFile(path: folder + "/\(name).rows")
        offsets = try AppendFile(path: folder + "/\(name).offsets")
        self.columns = columns
    }

    func append(_ rows: [Row]) throws(SpoolError) {
        var starts: [UInt64] = []
        starts.reserveCapacity(rows.count)
        var at = records.size
        try records.append { out in
            for row in rows {
                starts.append(UInt64(at))
                let before = out.count
                RowRecord.append(row, columns: columns, to: &out)
                at += out.count - before
            }
        }
        try offsets.append { out in starts.withUnsafeBytes { out.append(contentsOf: $0) } }
        count += rows.count
    }

    func flush() throws(SpoolError) {
        try records.flush()
        try offsets.flush()
    }

    /// Runs `body` with the records and offsets mapped (nil when there are no rows).
    func read<T>(_ body: (UnsafeRawPointer?, UnsafePointer<UInt64>?) throws(SpoolError) -> T) throws(SpoolError) -> T {
        try records.read { (r) throws(SpoolError) -> T in
            try offsets.read { (o) throws(SpoolError) -> T in
                try body(r, o?.assumingMemoryBound(to: UInt64.self))
            }
        }
    }

    func close() {
        records.close()
        offsets.close()
    }
}
