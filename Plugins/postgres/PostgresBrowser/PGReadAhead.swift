import Foundation

/// Pages read ahead of a scan (an export, `select all`, a person paging down): when a page
/// starts where the last one served ended, and so did that one (in the same order, under the
/// same filters and generation), one query reads ``pages`` pages and the next requests are
/// answered from here. One page after another alone (the page after a jump) reads one page:
/// it is read at the speed of one page.
///
/// A keyset page starts from the last row of the one before, so pages read one by one take
/// turns with the server: it waits while the plugin reads a page's tail, the plugin while it
/// starts the next query. One query for several pages streams without those gaps. Kept pages
/// are for one scan at a time, at most a few, and dropped when another scan starts.
final class PGReadAhead: @unchecked Sendable {
    /// Pages one query reads ahead of a scan.
    static let pages = 4

    /// What a page belongs to: its order and filters, its size and the table's generation.
    struct Scan: Hashable {
        var order: PGAnchors.Order
        var limit: Int
        var generation: Int
    }

    private let lock = NSLock()
    private var scan: Scan?
    /// Where the last page served ends.
    private var next = 0
    /// How many pages in a row each started where the one before ended.
    private var streak = 0
    /// Pages read ahead, by the offset of their first row.
    private var kept: [Int: PGRowWriter.Page] = [:]

    /// The page of `scan` at `offset` if it was read ahead (taken: it is not kept any more).
    func take(_ scan: Scan, offset: Int) -> PGRowWriter.Page? {
        lock.lock(); defer { lock.unlock() }
        guard self.scan == scan, let page = kept.removeValue(forKey: offset) else { return nil }
        streak = next == offset ? streak + 1 : 0
        next = offset + page.count
        return page
    }

    /// Whether a page at `offset` continues `scan`, whose last page continued it too (so that
    /// reading ahead pays).
    func continues(_ scan: Scan, offset: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return self.scan == scan && offset > 0 && next == offset && streak > 0
    }

    /// The pages one query read for `scan` from `offset`: the first is served, the rest kept.
    func served(_ scan: Scan, offset: Int, pages: [PGRowWriter.Page]) {
        lock.lock(); defer { lock.unlock() }
        if self.scan != scan { kept = [:] }
        streak = self.scan == scan && offset > 0 && next == offset ? streak + 1 : 0
        self.scan = scan
        var at = offset
        for (k, page) in pages.enumerated() {
            if k > 0 { kept[at] = page }
            at += page.count
        }
        next = offset + (pages.first?.count ?? 0)
        // Pages a scan left behind (it moved on, or was cancelled) are not kept for ever.
        if kept.count > 2 * Self.pages { kept = kept.filter { $0.key >= offset } }
    }

    /// Forgets every page (rows were deleted).
    func clear() {
        lock.lock(); scan = nil; next = 0; streak = 0; kept = [:]; lock.unlock()
    }
}
