import TabdeckProtocol

/// Rows read from the table in one sort order: the whole table, or sample pages of a big one.
struct TableRead {
    var rows: [Row]
    /// The table position of each row (increasing).
    var positions: [Int]
    /// Every row of the table was read.
    var complete: Bool
    var requests: Int
    /// The total the last page reported (or the table description's).
    var total: Int?

    var ids: [String] { rows.map(\.id) }
}

extension CheckContext {
    /// Page size for reading whole tables: the most the host ever asks for (PROTOCOL.md 11.3).
    static let readPageSize = 1000
    /// Page size of sample pages.
    static let samplePageSize = 200

    /// Reads the whole table in the order `sort` if it has at most `wholeTableLimit` rows
    /// (1,000 rows a page), else sample pages. Checks on the way that the pages join up:
    /// only the last page is short, the count matches `total`, no id appears twice.
    func read(sort: [SortKey], into f: inout Findings) throws(CheckAbort) -> TableRead {
        let limit = options.wholeTableLimit
        if let total, total > limit { return try readSamples(sort: sort, total: total, into: &f) }
        var rows: [Row] = []
        var requests = 0
        var lastTotal = total
        while true {
            let offset = rows.count
            if offset > 0, let t = lastTotal, t <= limit, (offset / Self.readPageSize) % RequestBatches.size == 1 {
                // The next pages, together (the total is known from the first).
                sendAhead(stride(from: offset, to: t, by: Self.readPageSize).prefix(RequestBatches.size)
                    .map { ($0, Self.readPageSize, sort) })
            }
            let page = try self.page(offset: offset, limit: Self.readPageSize, sort: sort, into: &f)
            requests += 1
            rows += page.rows
            if page.totalSent { lastTotal = page.total }
            if page.rows.count < Self.readPageSize {
                if let t = lastTotal, rows.count < t {
                    f.fail("the page at offset \(offset) has \(page.rows.count) rows, ending the table at \(rows.count) rows, but total says \(t) (PROTOCOL.md 11.3)")
                }
                break
            }
            if let t = lastTotal, rows.count >= t { break }
            if rows.count > limit {
                // More rows than `total` promised (or total unknown): sample instead.
                return try readSamples(sort: sort, total: lastTotal, into: &f, prefix: (rows, requests))
            }
        }
        if let t = lastTotal, rows.count > t {
            f.fail("read \(rows.count) rows, but total says \(t) (PROTOCOL.md 11.3)")
        }
        checkUnique(rows, positions: Array(rows.indices), sort: sort, into: &f)
        return TableRead(rows: rows, positions: Array(rows.indices), complete: true, requests: requests, total: lastTotal)
    }

    /// The first page ``read(sort:into:)`` asks for, to send ahead.
    func firstPage(_ sort: [SortKey]) -> (offset: Int, limit: Int, sort: [SortKey]) {
        if let total, total > options.wholeTableLimit { return (0, Self.samplePageSize, sort) }
        return (0, Self.readPageSize, sort)
    }

    /// Sample pages of a big table: two adjacent pages at the start, two in the middle, one at
    /// the end (when the total is known).
    func readSamples(sort: [SortKey], total: Int?, into f: inout Findings, prefix: ([Row], Int)? = nil) throws(CheckAbort) -> TableRead {
        let size = Self.samplePageSize
        var starts: [Int] = [0, size]
        if let total {
            let middle = total / 2
            starts += [middle, middle + size, max(0, total - size)]
        }
        var positions: [Int] = []
        var rows: [Row] = []
        var requests = prefix?.1 ?? 0
        if let (known, _) = prefix {
            rows = known
            positions = Array(known.indices)
        }
        let wanted = Set(starts).sorted().filter { !positions.contains($0) }
        for (i, start) in wanted.enumerated() {
            if i % RequestBatches.size == 0 {
                sendAhead(wanted[i...].prefix(RequestBatches.size).map { ($0, size, sort) })
            }
            let page = try self.page(offset: start, limit: size, sort: sort, into: &f)
            requests += 1
            for (i, row) in page.rows.enumerated() where !positions.contains(start + i) {
                positions.append(start + i)
                rows.append(row)
            }
            if let total, start + size <= total, page.rows.count < size {
                f.fail("the page at offset \(start) has \(page.rows.count) rows for a limit of \(size), but total says \(total)")
            }
        }
        let order = positions.indices.sorted { positions[$0] < positions[$1] }
        let sortedRows = order.map { rows[$0] }
        let sortedPositions = order.map { positions[$0] }
        checkUnique(sortedRows, positions: sortedPositions, sort: sort, into: &f)
        return TableRead(rows: sortedRows, positions: sortedPositions, complete: false, requests: requests, total: total)
    }

    /// Fails for every id that appears at two positions. In a sorted read, an id that is unique
    /// in the natural order moved between pages: that is said as such (unstable ties), not as a
    /// duplicate id.
    func checkUnique(_ rows: [Row], positions: [Int], sort: [SortKey] = [], into f: inout Findings) {
        var first: [String: Int] = [:]
        var duplicates = 0
        let naturalIDs = sort.isEmpty ? nil : natural.flatMap { $0.complete ? Set($0.ids) : nil }
        let naturalUnique = naturalIDs != nil && naturalIDs!.count == natural!.rows.count
        for (row, position) in zip(rows, positions) {
            if let earlier = first[row.id] {
                if duplicates < 3 {
                    if naturalUnique {
                        f.fail("row \(row.id) came at positions \(earlier) and \(position) of the sort by \(Self.sortText(sort).dropFirst(7)), "
                               + "though its id is unique in the natural order: rows with equal sort keys changed places between pages. "
                               + "Ties must come in the same order on every request: break them by the natural order or the id (PROTOCOL.md 11.3)",
                               cause: "unstable ties")
                    } else {
                        f.fail("id \(row.id) is used by rows \(earlier) and \(position): row ids must be unique (PROTOCOL.md 10.5)")
                    }
                }
                duplicates += 1
            } else {
                first[row.id] = position
            }
        }
        if duplicates > 3 { f.fail("… \(duplicates - 3) more duplicate ids") }
    }

    /// The table in its natural order, read once (and again after an `invalidate`).
    func naturalOrder(into f: inout Findings) throws(CheckAbort) -> TableRead {
        if let natural, naturalEpoch == session.invalidateCount { return natural }
        let epoch = session.invalidateCount
        let read = try self.read(sort: [], into: &f)
        natural = read
        naturalEpoch = epoch
        return read
    }
}
