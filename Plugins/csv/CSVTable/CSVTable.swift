import Foundation

/// A CSV/TSV file opened for paging and sorting.
///
/// The file is memory-mapped and indexed once: an array of record start offsets (8 bytes
/// a row, in chunks), nothing per cell. Cells are parsed only for the rows asked for.
/// Rows are numbered from 0 in file order (the header is not a row, blank lines are
/// skipped); the protocol's row id is that number plus one.
///
/// Thread-safe: any number of threads may call ``page(offset:limit:sort:filter:isCancelled:)``
/// and ``values(row:)`` at once.
public final class CSVTable: @unchecked Sendable {
    public struct Options: Sendable {
        /// The delimiter; nil to sniff it from the header line.
        public var delimiter: UInt8?
        /// Index only the first 65,536 rows before returning and the rest on a background
        /// thread (rows past them, sorting and filtering wait for it).
        public var background: Bool
        /// Called on the indexing thread every 65,536 rows and at the end with bytes done,
        /// bytes in all and rows indexed so far (done == all: the index is complete).
        public var progress: (@Sendable (_ bytesDone: Int, _ bytesTotal: Int, _ rows: Int) -> Void)?
        /// Where sort orders are persisted across opens (nil: nowhere).
        public var sortIndex: SortIndexStore?
        /// Column types given by the tab's args, by column name or id (they replace the
        /// inferred ones).
        public var types: [String: CSVTypeChoice]

        public init(delimiter: UInt8? = nil, background: Bool = false,
                    progress: (@Sendable (_ bytesDone: Int, _ bytesTotal: Int, _ rows: Int) -> Void)? = nil,
                    sortIndex: SortIndexStore? = nil, types: [String: CSVTypeChoice] = [:]) {
            self.delimiter = delimiter; self.background = background; self.progress = progress
            self.sortIndex = sortIndex
            self.types = types
        }
    }

    public let path: String
    public let delimiter: UInt8
    public let columns: [CSVColumn]
    /// The file's size in bytes.
    public var fileSize: Int { file.count }

    let file: MappedFile
    let scanner: FieldScanner
    let index: RowIndex
    private let builder: IndexBuilder
    let caches: SortCaches
    /// Persisted orders (see SortIndexStore+CSVTable.swift).
    let persisted: PersistedOrders?

    public convenience init(path: String, delimiter: UInt8? = nil) throws(CSVError) {
        try self.init(path: path, options: Options(delimiter: delimiter))
    }

    public init(path: String, options: Options) throws(CSVError) {
        self.path = path
        let identity = SortIndexStore.FileIdentity.of(path: path)
        let file = try MappedFile(path: path)
        self.file = file
        // Column keys take up to 9 bytes a row (plus text suffixes for columns with many
        // distinct texts): keep up to 128 MB or a third of the file's size.
        caches = SortCaches(columnKeyBudget: max(128 << 20, file.count / 3))
        let base = file.base, limit = file.count
        var pos = 0
        if limit >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { pos = 3 }
        // The header: the first non-blank record.
        var headerStart = pos
        while headerStart < limit && (base[headerStart] == Byte.newline || base[headerStart] == Byte.cr) { headerStart += 1 }
        let headerEnd = headerStart < limit
            ? IndexBuilder.recordEnd(base: base, from: headerStart, limit: limit, delimiter: Byte.comma) : limit
        let delimiter = options.delimiter ?? CSVDialect.sniff(file.buffer(headerStart, headerEnd), path: path)
        self.delimiter = delimiter
        let scanner = FieldScanner(base: base, limit: limit, delimiter: delimiter)
        self.scanner = scanner
        var dataStart = limit
        var names: [String] = []
        if headerStart < limit {
            _ = scanner.scan(record: headerStart) { _, span in names.append(scanner.string(span)); return true }
            dataStart = IndexBuilder.recordEnd(base: base, from: headerStart, limit: limit, delimiter: delimiter)
        }

        index = RowIndex()
        builder = IndexBuilder(file: file, delimiter: delimiter, dataStart: dataStart, index: index)
        let indexStart = PhaseLog.now(), indexCPU = PhaseLog.threadCPU()
        let done = builder.run(maxChunks: 1, progress: options.progress)
        let firstChunkCPU = PhaseLog.threadCPU() - indexCPU

        // Types and widths from a sample of the first chunk: up to 2,000 rows spread over it.
        let first = index.snapshot()
        var inference = ColumnInference(columns: names.count)
        let sampleRows = min(first.count, RowOffsets.chunkSize)
        let step = max(1, sampleRows / 2000)
        var r = 0
        while r < sampleRows { inference.add(record: first[r], scanner: scanner); r += step }
        // Widths only, also from the file's last 64 KiB, where growing numbers (ids) are
        // widest: one short sequential read, so `open` costs the same whatever the file's
        // size, also when the file is not in the page cache (no reads spread over the file).
        // A line start there may be inside a quoted field: good enough for widths (typed
        // columns count only cells that parse as their type), not for types.
        let sampledTo = first.count > 0 ? first[first.count - 1] : dataStart
        var tail = max(sampledTo, limit - (64 << 10))
        if tail > dataStart, tail < limit, let nl = memchr(base + tail - 1, Int32(Byte.newline), limit - tail + 1) {
            tail = UnsafeRawPointer(nl) - UnsafeRawPointer(base) + 1
        }
        while tail < limit {
            inference.add(record: tail, scanner: scanner, widthsOnly: true)
            tail = IndexBuilder.recordEnd(base: base, from: tail, limit: limit, delimiter: delimiter)
        }
        var used = Set<String>()
        var columns: [CSVColumn] = []
        for (j, raw) in names.enumerated() {
            let name = raw.isEmpty ? "column \(j + 1)" : raw
            var id = name, n = 2
            while used.contains(id) { id = "\(name)_\(n)"; n += 1 }
            used.insert(id)
            var (type, style) = inference.typeAndStyle(of: j)
            if let given = options.types[name] ?? options.types[id] { (type, style) = (given.type, given.style) }
            let w = inference.widths(of: j, type: type, style: style)
            var column = CSVColumn(name: name, id: id, type: type, headerWidth: DisplayWidth.of(Array(name.utf8)),
                                   maxWidth: w.max, typicalWidth: w.typical,
                                   decimals: type == .decimal ? inference.decimals(of: j) : nil)
            column.sortScale = type == .decimal ? inference.sortScale(of: j) : nil
            column.style = style
            column.typeGiven = options.types[name] != nil || options.types[id] != nil
            columns.append(column)
        }
        self.columns = columns
        persisted = options.sortIndex.flatMap { store in
            identity.map { PersistedOrders(store: store, identity: $0, path: path, delimiter: delimiter, types: Self.readAs(columns)) }
        }

        // The index phase (PhaseLog): from the first chunk to the last, the CPU of the indexing
        // thread(s) only.
        let index = self.index
        let logIndex = { @Sendable (cpu: Double) in
            PhaseLog.record("index", start: indexStart, cpu: firstChunkCPU + cpu, extra: ["rows": index.snapshot().count])
        }
        if !done {
            let builder = self.builder, progress = options.progress, file = self.file
            if options.background {
                let thread = Thread {
                    let cpu = PhaseLog.threadCPU()
                    _ = builder.run(maxChunks: .max, progress: progress)
                    logIndex(PhaseLog.threadCPU() - cpu)
                    file.adviseRandom()
                }
                thread.stackSize = 1 << 20
                thread.start()
            } else {
                let cpu = PhaseLog.threadCPU()
                _ = builder.run(maxChunks: .max, progress: progress)
                logIndex(PhaseLog.threadCPU() - cpu)
                file.adviseRandom()
            }
        } else {
            logIndex(0)
            file.adviseRandom()
        }
    }

    deinit { builder.stopped = true }

    /// Stops a background indexing run (the rows found so far stay usable).
    public func close() { builder.stopped = true }

    // MARK: Rows

    /// The number of rows, or nil while the background indexer is still running.
    public var rowCount: Int? {
        let s = index.snapshot()
        return s.complete ? s.count : nil
    }

    /// The number of rows found so far.
    public var indexedRowCount: Int { index.snapshot().count }

    /// Blocks until the whole file is indexed; returns the row count.
    @discardableResult
    public func waitUntilIndexed(isCancelled: () -> Bool = { false }) throws -> Int {
        try index.waitComplete(isCancelled: isCancelled).count
    }

    /// The cells of a row (0-based, file order): one per column; cells past the end of a
    /// short row are `.null`, fields past the last column are ignored. Empty cells are
    /// `.null` in typed columns and `""` in text columns. A cell that does not parse as its
    /// column's type is served as text.
    public func values(row: Int) -> [CSVValue] {
        values(rows: [row])[0]
    }

    /// The cells of several rows (see ``values(row:)``). Each record is copied out of the
    /// file with pread(2) rather than read through the mapping: rows of a sorted page lie
    /// all over the file, and touching them through the mapping would map a page (and the
    /// kernel up to 15 neighbours) for each, adding up to the file's size in RSS.
    public func values(rows: [Int]) -> [[CSVValue]] {
        let offsets = index.snapshot()
        return rows.map { row in
            // Rows of a persisted first page are served before the index reaches them.
            if !offsets.complete, let (start, end) = persisted?.record(row) { return values(start, end) }
            precondition(row >= 0 && row < offsets.count, "row \(row) out of range")
            let start = offsets[row]
            // The record's end is the next record's start (blank lines between are skipped by
            // the scanner); the last indexed row of an index still growing is read mapped.
            guard row + 1 < offsets.count || offsets.complete else { return values(recordAt: start) }
            let end = row + 1 < offsets.count ? offsets[row + 1] : file.count
            return values(start, end)
        }
    }

    /// The cells of the record at bytes `start..<end`, read with pread(2).
    func values(_ start: Int, _ end: Int) -> [CSVValue] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, end - start), alignment: 8)
        defer { buffer.deallocate() }
        let n = file.read(start, count: end - start, into: buffer.baseAddress!)
        let local = FieldScanner(base: UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                                 limit: n, delimiter: delimiter)
        return values(recordAt: 0, scanner: local)
    }

    func values(recordAt start: Int, scanner: FieldScanner? = nil) -> [CSVValue] {
        var out = [CSVValue](repeating: .null, count: columns.count)
        let columns = self.columns, scanner = scanner ?? self.scanner
        _ = scanner.scan(record: start) { j, span in
            guard j < columns.count else { return false }
            out[j] = CSVTable.value(span, type: columns[j].type, style: columns[j].style, scanner: scanner)
            return true
        }
        return out
    }

    /// The columns not read as plain inferred types: a given type or a style, as text.
    static func readAs(_ columns: [CSVColumn]) -> [Int: String] {
        var out: [Int: String] = [:]
        for (j, c) in columns.enumerated() where c.style != .standard || c.typeGiven { out[j] = "\(c.type.rawValue)-\(c.style.rawValue)" }
        return out
    }

    static func value(_ span: FieldSpan, type: CSVColumnType, style: CellStyle = .standard, scanner: FieldScanner) -> CSVValue {
        if span.count == 0 { return type == .text ? .text("") : .null }
        if !span.escaped {
            let b = UnsafeBufferPointer(start: scanner.base + span.start, count: span.count)
            var normal: [UInt8] = []
            if style != .standard, style.normalize(b, into: &normal) {
                if type == .date { return .text(String(decoding: normal, as: UTF8.self)) }
                if type == .decimal, let v = normal.withUnsafeBufferPointer({ ValueParser.decimal($0) }) { return .decimal(v) }
            }
            switch type {
            case .integer: if let v = ValueParser.integer(b) { return .integer(v) }
            case .decimal: if let v = ValueParser.decimal(b) { return .decimal(v) }
            case .bool: if let v = ValueParser.bool(b) { return .bool(v) }
            case .date, .text: break
            }
        }
        return .text(scanner.string(span))
    }

    /// How the file differs from what was opened, if it changed on disk (``MappedFile/changed()``).
    public func changedOnDisk() -> String? { file.changed() }

    /// The raw text of every cell of a row (for tests and detail views).
    public func strings(row: Int) -> [String?] {
        let offsets = index.snapshot()
        var out = [String?](repeating: nil, count: columns.count)
        _ = scanner.scan(record: offsets[row]) { j, span in
            guard j < out.count else { return false }
            out[j] = scanner.string(span)
            return true
        }
        return out
    }

    // MARK: Pages

    /// A page of rows: 0-based row numbers in file order, in display order.
    public struct Page: Equatable, Sendable {
        public var rows: [Int]
        /// The number of rows in the (filtered) table; nil while still indexing.
        public var total: Int?
    }

    /// The rows at `offset..<offset+limit` of the table sorted by `sort` and filtered by
    /// `filter` (a case-insensitive substring of any cell; ASCII letters fold).
    ///
    /// Without sort and filter, a page is served as soon as its rows are indexed; with
    /// them, the whole file must be indexed first. Sort orders, per-column keys and filter
    /// matches are cached (a few of each), so paging through one order is cheap.
    /// `conditions` (a structured filter, ``CSVCondition``) apply together with `filter`.
    public func page(offset: Int, limit: Int, sort: [CSVSortKey] = [], filter: String? = nil,
                     where conditions: [CSVCondition] = [], isCancelled: () -> Bool = { false }) throws -> Page {
        precondition(offset >= 0 && limit >= 0)
        for key in sort { precondition(key.column >= 0 && key.column < columns.count, "sort column out of range") }
        for c in conditions { precondition(c.column >= 0 && c.column < columns.count, "where column out of range") }
        let selection = Selection(filter: filter, conditions: conditions)
        if sort.isEmpty && selection.isEmpty {
            let (end, overflow) = offset.addingReportingOverflow(limit)
            let offsets = try index.wait(forRows: overflow ? .max : end, isCancelled: isCancelled)
            let rows = offset < offsets.count ? Array(offset..<CSVTable.end(offset, limit, offsets.count)) : []
            return Page(rows: rows, total: offsets.complete ? offsets.count : nil)
        }
        if !sort.isEmpty && selection.isEmpty && !index.isComplete, let persisted, let head = persisted.head(sort),
           offset <= head.rows.count, min(limit, max(0, head.rowCount - offset)) <= head.rows.count - offset {
            // Opened before with this order: its first rows, without indexing or sorting.
            let rows = offset < head.rows.count ? head.rows[offset..<CSVTable.end(offset, limit, head.rows.count)].map { Int($0) } : []
            return Page(rows: rows, total: head.rowCount)
        }
        if !sort.isEmpty && selection.isEmpty && !index.isComplete && persisted?.head(sort) == nil,
           limit <= Self.topRowsLimit, offset <= Self.topRowsLimit - limit,
           let top = try streamedFirstRows(sort: sort, upTo: offset + limit, isCancelled: isCancelled) {
            // A first page of a big file: straight from the records, alongside the indexer.
            let offsets = try index.waitComplete(isCancelled: isCancelled)
            let rows = offset < top.count ? top[offset..<top.count].map { Int($0) } : []
            return Page(rows: rows, total: offsets.count)
        }
        if !sort.isEmpty && !index.isComplete && persisted?.head(sort) == nil {
            // Extract the sort keys alongside the indexer rather than after it.
            try caches.computing(isCancelled: isCancelled) {
                try prepareColumnKeys(sort.map(\.column), rows: RowSource(index: index), atLeast: 1, isCancelled: isCancelled)
            }
        }
        let offsets = try index.waitComplete(isCancelled: isCancelled)
        if selection.isEmpty, limit <= Self.topRowsLimit, offset <= Self.topRowsLimit - limit,
           let top = try firstRows(sort: sort, offsets: offsets, upTo: offset + limit, isCancelled: isCancelled) {
            let rows = offset < top.count ? top[offset..<top.count].map { Int($0) } : []
            return Page(rows: rows, total: offsets.count)
        }
        let order = try self.order(sort: sort, selection: selection, offsets: offsets, isCancelled: isCancelled)
        let rows = offset < order.count ? order[offset..<CSVTable.end(offset, limit, order.count)].map { Int($0) } : []
        return Page(rows: rows, total: order.count)
    }

    /// The position of row `row` (0-based, in file order) in the table sorted by `sort` and
    /// filtered by `filter`, or nil when the filter leaves it out or there is no such row. Uses
    /// the same cached order as ``page(offset:limit:sort:filter:isCancelled:)``: one scan of it.
    public func position(ofRow row: Int, sort: [CSVSortKey] = [], filter: String? = nil,
                         where conditions: [CSVCondition] = [], isCancelled: () -> Bool = { false }) throws -> Int? {
        guard row >= 0 else { return nil }
        let selection = Selection(filter: filter, conditions: conditions)
        if sort.isEmpty && selection.isEmpty {
            let offsets = try index.wait(forRows: row + 1, isCancelled: isCancelled)
            return row < offsets.count ? row : nil
        }
        let offsets = try index.waitComplete(isCancelled: isCancelled)
        guard row < offsets.count else { return nil }
        let order = try self.order(sort: sort, selection: selection, offsets: offsets, isCancelled: isCancelled)
        return order.firstIndex(of: UInt32(row))
    }

    /// `min(offset + limit, count)` without overflow (`offset < count`).
    static func end(_ offset: Int, _ limit: Int, _ count: Int) -> Int {
        limit >= count - offset ? count : offset + limit
    }

    /// The full display order for a sort and filter (cached).
    func order(sort: [CSVSortKey], selection: Selection, offsets: RowOffsets, isCancelled: () -> Bool) throws -> [UInt32] {
        let key = SortCaches.OrderKey(sort: sort, filter: selection.filter, conditions: selection.conditions)
        if let cached = caches.order(key) { return cached }
        return try caches.computing(isCancelled: isCancelled) {
            if let cached = caches.order(key) { return cached }
            var order: [UInt32]
            if sort.isEmpty {
                order = []
            } else if let cached = caches.order(SortCaches.OrderKey(sort: sort, filter: nil)) {
                order = cached
            } else if let saved = persisted?.order(sort, rowCount: offsets.count) {
                order = saved
                caches.store(order, for: SortCaches.OrderKey(sort: sort, filter: nil))
            } else {
                try prepareColumnKeys(sort.map(\.column), rows: RowSource(offsets: offsets), atLeast: 2, isCancelled: isCancelled)
                var specs: [Sorter.Spec] = []
                for k in sort {
                    specs.append(Sorter.Spec(keys: try columnKeys(k.column, offsets: offsets, isCancelled: isCancelled),
                                             descending: k.descending))
                }
                let sortStart = PhaseLog.now(), sortCPU = PhaseLog.processCPU()
                order = try withoutActuallyEscaping(isCancelled) { cancelled in
                    try Sorter(specs: specs, isCancelled: cancelled).sortedOrder(count: offsets.count)
                }
                PhaseLog.record("sort", start: sortStart, cpu: PhaseLog.processCPU() - sortCPU, extra: ["rows": order.count])
                caches.store(order, for: SortCaches.OrderKey(sort: sort, filter: nil))
                persisted?.save(order, sort: sort) { row in
                    (offsets[row], row + 1 < offsets.count ? offsets[row + 1] : self.file.count)
                }
            }
            if !selection.isEmpty {
                let matches = try self.matches(selection, offsets: offsets, isCancelled: isCancelled)
                if sort.isEmpty {
                    order.reserveCapacity(matches.count)
                    for w in 0..<matches.words.count {
                        var word = matches.words[w]
                        while word != 0 {
                            order.append(UInt32(w * 64 + word.trailingZeroBitCount))
                            word &= word - 1
                        }
                    }
                } else {
                    order = order.filter { matches.contains(Int($0)) }
                }
                caches.store(order, for: key)
            }
            return order
        }
    }

    /// A first page asks for at most this many rows to be served from a partial sort.
    static let topRowsLimit = 2048
    /// Tables of fewer rows are sorted whole at once (it is quick).
    static let topRowsMinimum = 100_000
    /// A partial sort keeps at least this many first rows: the page after the first (the
    /// host reads one ahead) comes from the same pass.
    static let topRowsKept = 512
    /// Seconds between a partial sort and the start of the full order in the background: the
    /// answer, and whatever its reader does next, go first (a scripted `sort` then `show`
    /// then `quit` never pays for an order it does not use).
    static let fullOrderDelay = 0.2

    /// The first `end` rows of the order of `sort` by a partial sort (``TopRows``) when the
    /// full order is not known yet, starting the full order on a background thread of the
    /// lowest priority after ``fullOrderDelay`` (it is then cached and persisted as usual; a
    /// deep page asked for meanwhile computes it itself); nil when the full order is the way to go. The partial sort keeps at
    /// least ``topRowsKept`` rows, so the next page needs no pass of its own.
    func firstRows(sort: [CSVSortKey], offsets: RowOffsets, upTo end: Int, isCancelled: () -> Bool,
                   minimumRows: Int = CSVTable.topRowsMinimum) throws -> [UInt32]? {
        let key = SortCaches.OrderKey(sort: sort, filter: nil)
        guard !sort.isEmpty, end <= Self.topRowsLimit, offsets.count >= minimumRows, caches.order(key) == nil,
              persisted?.head(sort) == nil else { return nil }
        if let kept = caches.top(sort, count: min(end, offsets.count)) { return Array(kept.prefix(end)) }
        let top = try caches.computing(isCancelled: isCancelled) { () -> [UInt32]? in
            if caches.order(key) != nil { return nil }
            if let kept = caches.top(sort, count: min(end, offsets.count)) { return kept }
            try prepareColumnKeys(sort.map(\.column), rows: RowSource(offsets: offsets), atLeast: 2, isCancelled: isCancelled)
            var specs: [Sorter.Spec] = []
            for k in sort {
                specs.append(Sorter.Spec(keys: try columnKeys(k.column, offsets: offsets, isCancelled: isCancelled),
                                         descending: k.descending))
            }
            // Top-k runs on two threads: the process's CPU (nothing else runs meanwhile).
            let topStart = PhaseLog.now(), topCPU = PhaseLog.processCPU()
            let top = try withoutActuallyEscaping(isCancelled) { cancelled in
                try TopRows(specs: specs, isCancelled: cancelled).first(max(end, Self.topRowsKept), count: offsets.count)
            }
            PhaseLog.record("top-k", start: topStart, cpu: PhaseLog.processCPU() - topCPU, extra: ["rows": top.count])
            caches.storeTop(top, for: sort)
            startFullOrder(sort: sort, offsets: offsets)
            return top
        }
        return top.map { Array($0.prefix(end)) }
    }

    /// The first `end` rows of the order of `sort` read straight from the records while the
    /// file is being indexed (``StreamTop``), when no key of the sort's columns is extracted yet
    /// and no order is known; then, as ``firstRows(sort:offsets:upTo:isCancelled:minimumRows:)``,
    /// the full order follows in the background. Nil when that way does not apply or gave up.
    func streamedFirstRows(sort: [CSVSortKey], upTo end: Int, isCancelled: () -> Bool) throws -> [UInt32]? {
        let key = SortCaches.OrderKey(sort: sort, filter: nil)
        guard caches.order(key) == nil, sort.allSatisfy({ caches.columnKeys($0.column) == nil }) else { return nil }
        if let kept = caches.top(sort, count: end) { return Array(kept.prefix(end)) }
        return try caches.computing(isCancelled: isCancelled) { () -> [UInt32]? in
            if caches.order(key) != nil { return nil }
            if let kept = caches.top(sort, count: end) { return Array(kept.prefix(end)) }
            let start = PhaseLog.now(), cpu = PhaseLog.processCPU()
            let found = try withoutActuallyEscaping(isCancelled) { cancelled -> [UInt32]? in
                guard let stream = StreamTop(sort: sort, table: columns, file: file, scanner: scanner,
                                             rows: RowSource(index: index), isCancelled: cancelled) else { return nil }
                return try stream.first(max(end, Self.topRowsKept))
            }
            guard let top = found else { return nil }
            let offsets = try index.waitComplete(isCancelled: isCancelled)
            // Read alongside the indexer: the index and the top-k in one phase (PhaseLog).
            PhaseLog.record("stream top-k", start: start, cpu: PhaseLog.processCPU() - cpu, extra: ["rows": top.count])
            caches.storeTop(top, for: sort)
            startFullOrder(sort: sort, offsets: offsets)
            return Array(top.prefix(end))
        }
    }

    /// Starts the full order of `sort` on a background thread of the lowest priority after
    /// ``fullOrderDelay`` (it is then cached and persisted as usual).
    private func startFullOrder(sort: [CSVSortKey], offsets: RowOffsets) {
        let builder = self.builder
        let thread = Thread { [self] in
            lowestPriority()
            Thread.sleep(forTimeInterval: Self.fullOrderDelay)
            if builder.stopped { return }
            _ = try? order(sort: sort, selection: Selection(filter: nil, conditions: []), offsets: offsets,
                           isCancelled: { builder.stopped })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    func columnKeys(_ column: Int, offsets: RowOffsets, isCancelled: () -> Bool) throws -> ColumnKeys {
        if let keys = caches.columnKeys(column), keys.count == offsets.count { return keys }
        let keys = try PhaseLog.measure("keys", extra: ["column": column]) {
            try ColumnKeys(column: column, type: columns[column].type, scale: columns[column].sortScale,
                           style: columns[column].style, file: file,
                           scanner: scanner, offsets: offsets, isCancelled: isCancelled)
        }
        caches.store(keys)
        return keys
    }

    /// Extracts the keys of the columns not in the cache (if at least `atLeast` are missing),
    /// one thread per column (a sort by two keys on two cores takes the time of the slower
    /// column).
    func prepareColumnKeys(_ columns: [Int], rows: RowSource, atLeast: Int, isCancelled: () -> Bool) throws {
        var missing: [Int] = []
        for c in columns where !missing.contains(c) && caches.columnKeys(c) == nil { missing.append(c) }
        if missing.isEmpty || missing.count < atLeast { return }
        /// What the worker threads share: the inputs, the results and the first error.
        final class Job: @unchecked Sendable {
            let lock = NSLock()
            var keys: [ColumnKeys] = []
            var error: Error?
            let isCancelled: () -> Bool
            init(isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }
        }
        let types = self.columns.map(\.type), scales = self.columns.map(\.sortScale), styles = self.columns.map(\.style)
        let file = self.file, scanner = self.scanner, wanted = missing
        try withoutActuallyEscaping(isCancelled) { cancelled in
            let results = Job(isCancelled: cancelled)
            DispatchQueue.concurrentPerform(iterations: wanted.count) { i in
                do {
                    let keys = try PhaseLog.measure("keys", extra: ["column": wanted[i]]) {
                        try ColumnKeys(column: wanted[i], type: types[wanted[i]], scale: scales[wanted[i]],
                                       style: styles[wanted[i]], file: file,
                                       scanner: scanner, rows: rows, isCancelled: results.isCancelled)
                    }
                    results.lock.lock(); results.keys.append(keys); results.lock.unlock()
                } catch {
                    results.lock.lock(); results.error = error; results.lock.unlock()
                }
            }
            if let error = results.error { throw error }
            for keys in results.keys { caches.store(keys) }
        }
    }

    /// The rows a text filter and a structured filter keep (cached), found by one pass over
    /// the records on every core.
    func matches(_ filter: Selection, offsets: RowOffsets, isCancelled: () -> Bool) throws -> RowSet {
        if let cached = caches.matches(filter) { return cached }
        let set = try SelectionScan(selection: filter, table: self).run(offsets: offsets, isCancelled: isCancelled)
        caches.store(set, for: filter)
        return set
    }
}


/// Gives the calling thread the lowest scheduling priority (nice 19: on Linux the nice value
/// is per thread, and `who` 0 is the calling thread), so work it does in the background waits
/// for every other thread.
func lowestPriority() {
    #if os(Linux)
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    #endif
}
