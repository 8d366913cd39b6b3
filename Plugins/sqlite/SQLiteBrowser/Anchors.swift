import Foundation
import GRDB
import TabdeckProtocol

/// Keyset anchors: for one sort order (and filter) of a table, the sort-key values of the
/// row just before a position, remembered from the pages already served. A page that starts
/// at (or a little after) an anchor is read with `WHERE (keys) > (anchor)` instead of an
/// OFFSET that SQLite would have to step through.
///
/// The protocol's generation changes exactly when the sort or the filter does, so anchors
/// are kept per (table, sort, filter) rather than per generation number: they then also
/// serve a sort order the user comes back to. The ``ChangeEpoch`` is part of the key, so
/// anchors from before another process changed the database are never used.
final class AnchorStore: @unchecked Sendable {
    struct Order: Hashable {
        var table: String
        var sort: [SortKey]
        var filter: String?
        var epoch: Int
    }

    static let maxOrders = 16
    static let maxPerOrder = 4_096

    private let lock = NSLock()
    private var anchors: [Order: [Int: [DatabaseValue]]] = [:]
    private var recent: [Order] = []

    /// The anchor closest to `position` from below (or at it), if any.
    func nearest(_ order: Order, atOrBefore position: Int) -> (position: Int, key: [DatabaseValue])? {
        lock.lock(); defer { lock.unlock() }
        guard let all = anchors[order] else { return nil }
        var best: (Int, [DatabaseValue])?
        for (p, key) in all where p <= position && p > (best?.0 ?? 0) { best = (p, key) }
        return best.map { (position: $0.0, key: $0.1) }
    }

    /// Remembers that the row at `position - 1` has the sort-key values `key`.
    func remember(_ order: Order, position: Int, key: [DatabaseValue]) {
        guard position > 0 else { return }
        lock.lock(); defer { lock.unlock() }
        if let i = recent.firstIndex(of: order) { recent.remove(at: i) }
        recent.append(order)
        if recent.count > Self.maxOrders { anchors[recent.removeFirst()] = nil }
        var all = anchors[order] ?? [:]
        if all.count >= Self.maxPerOrder, all[position] == nil {
            // Forget the anchor farthest from the new one: browsing is mostly local.
            if let far = all.keys.max(by: { abs($0 - position) < abs($1 - position) }) { all[far] = nil }
        }
        all[position] = key
        anchors[order] = all
    }

    /// How many anchors are kept.
    var count: Int { lock.lock(); defer { lock.unlock() }; return anchors.values.reduce(0) { $0 + $1.count } }
}
