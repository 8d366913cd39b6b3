import TabdeckProtocol

/// The child table of an expanded row (`o`, like SwiftUI's OutlineGroup): opened with
/// `children`, its rows fetched lazily in pages like any table's, shown under the row.
public struct OutlineChild: Hashable, Sendable {
    /// The child table, once `children` answered (nil while it is asked for).
    public var description: TableDescription?
    /// Its row count, once known.
    public var total: Int?
    public var cache: PageCache
    /// Why `children` or `rows` failed (shown under the row instead of its children).
    public var failure: String?
    /// The `children` request in flight.
    var request: RequestID?
    /// Bumped when its rows are dropped (refresh, invalidate), so late pages are ignored.
    var generation = 1

    /// A child table not asked for yet, its rows to go in `cache`.
    public init(cache: PageCache) { self.cache = cache }

    /// Lines its rows take under the expanded row: the count once known, else the rows loaded
    /// so far plus one placeholder (at least one line while `children` is asked for).
    var lineCount: Int {
        if failure != nil { return 0 }
        if let total { return total }
        var loaded = 0
        while cache.row(at: loaded) != nil { loaded += 1 }
        return loaded + 1
    }
}

/// Where the cursor can be in the flattened tree: a top-level row, and the indices below it.
public struct OutlinePosition: Hashable, Sendable {
    /// The top-level row (the table's own row index).
    public var row: Int
    /// Child indices from that row down: empty for the row itself.
    public var path: [Int]
    public init(row: Int, path: [Int]) { self.row = row; self.path = path }
}

extension TableState {
    /// The cursor's place in the tree.
    public var cursorPosition: OutlinePosition { OutlinePosition(row: view.cursor, path: cursorPath) }

    /// Whether the row with these ids (from a top-level row down) is expanded.
    public func isExpanded(_ ids: [String]) -> Bool { view.expanded.contains(ids) }

    /// The row at a position, if it (and every row above it in the tree) is loaded.
    public func outlineRow(_ p: OutlinePosition) -> Row? {
        guard var row = cache.row(at: p.row) else { return nil }
        var ids = [row.id]
        for k in p.path {
            guard isExpanded(ids), let next = outline[ids]?.cache.row(at: k) else { return nil }
            row = next
            ids.append(row.id)
        }
        return row
    }

    /// The ids from the top-level row down to the row at `p` (nil when one is not loaded).
    public func outlineIDs(_ p: OutlinePosition) -> [String]? {
        guard let first = cache.row(at: p.row) else { return nil }
        var ids = [first.id]
        for k in p.path {
            guard let next = outline[ids]?.cache.row(at: k) else { return nil }
            ids.append(next.id)
        }
        return ids
    }

    /// Lines the children of the row with these ids take: 0 unless it is expanded and its child
    /// table is asked for (a plugin that lost the `children` capability shows no placeholder).
    public func childLines(_ ids: [String]) -> Int {
        guard isExpanded(ids) else { return 0 }
        return outline[ids]?.lineCount ?? 0
    }

    /// The child table holding the row at `p` (nil for a top-level row).
    public func outlineChild(holding p: OutlinePosition) -> OutlineChild? {
        guard !p.path.isEmpty, let ids = outlineIDs(OutlinePosition(row: p.row, path: p.path.dropLast())) else { return nil }
        return outline[ids]
    }

    /// The position one line below `p` in the tree (into its children when expanded), nil at
    /// the end of the table.
    public func outlineStep(down p: OutlinePosition) -> OutlinePosition? {
        if let ids = outlineIDs(p), childLines(ids) > 0 { return OutlinePosition(row: p.row, path: p.path + [0]) }
        var path = p.path
        while let k = path.last {
            path.removeLast()
            if let ids = outlineIDs(OutlinePosition(row: p.row, path: path)), k + 1 < childLines(ids) {
                return OutlinePosition(row: p.row, path: path + [k + 1])
            }
        }
        if let total, p.row + 1 >= total { return nil }
        return OutlinePosition(row: p.row + 1, path: [])
    }

    /// The position one line above `p` in the tree, nil on the first row.
    public func outlineStep(up p: OutlinePosition) -> OutlinePosition? {
        guard let k = p.path.last else {
            return p.row == 0 ? nil : lastDescendant(OutlinePosition(row: p.row - 1, path: []))
        }
        if k == 0 { return OutlinePosition(row: p.row, path: p.path.dropLast()) }
        return lastDescendant(OutlinePosition(row: p.row, path: p.path.dropLast() + [k - 1]))
    }

    /// The last line of `p`'s expanded subtree (`p` itself when it is not expanded).
    func lastDescendant(_ p: OutlinePosition) -> OutlinePosition {
        var p = p
        while let ids = outlineIDs(p), childLines(ids) > 0 { p.path.append(childLines(ids) - 1) }
        return p
    }

    /// Child tables belong to one plugin process: after it is gone they are asked for again.
    mutating func forgetOutlineTables() {
        outline = [:]
    }
}
