import Foundation
import TabdeckProtocol

/// Where ``CSVTable/find(_:from:backward:wrap:sort:filter:where:isCancelled:progress:)`` found
/// its row.
public struct CSVFindHit: Equatable, Sendable {
    /// The row's 0-based position in the view (the sort and filters of the request).
    public var position: Int
    /// The row (0-based, file order; its protocol id is this plus one).
    public var row: Int
    /// Found past the end (or the start): the search wrapped.
    public var wrapped: Bool

    public init(position: Int, row: Int, wrapped: Bool) {
        self.position = position; self.row = row; self.wrapped = wrapped
    }
}

extension CSVTable {
    /// The first row, in the order of `sort` and under `filter` and `conditions` (the view
    /// ``page(offset:limit:sort:filter:where:isCancelled:)`` serves), from position `from` on
    /// (or back, with `backward`; on from the other end with `wrap`: ``FindRequest/positions(count:)``),
    /// with a cell whose raw text contains `text` by the filter's rule (ASCII case folded).
    ///
    /// Looks only where needed, in look order, on every core (``FindScan``): in the file
    /// itself for the natural order; along the view's order otherwise. Under a sort the first
    /// rows are walked, then the rest is settled by one sequential pass (``FindScan/Tuning/walkLimit(count:)``).
    /// `progress` gets positions looked at and positions to look at.
    public func find(_ text: String, from: Int, backward: Bool = false, wrap: Bool = false,
                     sort: [CSVSortKey] = [], filter: String? = nil, where conditions: [CSVCondition] = [],
                     isCancelled: () -> Bool = { false },
                     progress: (@Sendable (_ done: Int, _ all: Int) -> Void)? = nil) throws -> CSVFindHit? {
        try find(text, from: from, backward: backward, wrap: wrap, sort: sort, filter: filter, where: conditions,
                 isCancelled: isCancelled, progress: progress, tuning: FindScan.Tuning())
    }

    /// ``find(_:from:backward:wrap:sort:filter:where:isCancelled:progress:)`` in pieces of the
    /// given sizes (tests take every path on small tables with small ones).
    func find(_ text: String, from: Int, backward: Bool = false, wrap: Bool = false,
              sort: [CSVSortKey] = [], filter: String? = nil, where conditions: [CSVCondition] = [],
              isCancelled: () -> Bool = { false }, progress: (@Sendable (_ done: Int, _ all: Int) -> Void)? = nil,
              tuning: FindScan.Tuning) throws -> CSVFindHit? {
        precondition(!text.isEmpty && from >= 0, "find: empty text or negative from")
        for key in sort { precondition(key.column >= 0 && key.column < columns.count, "sort column out of range") }
        for c in conditions { precondition(c.column >= 0 && c.column < columns.count, "where column out of range") }
        if columns.isEmpty { return nil }
        let selection = Selection(filter: filter, conditions: conditions)
        let offsets = try index.waitComplete(isCancelled: isCancelled)
        let order: [UInt32]? = sort.isEmpty && selection.isEmpty
            ? nil : try self.order(sort: sort, selection: selection, offsets: offsets, isCancelled: isCancelled)
        let look = LookOrder(FindRequest(table: "", text: text, from: from, backward: backward, wrap: wrap)
            .positions(count: order?.count ?? offsets.count), backward: backward)
        let scan = FindScan(table: self, offsets: offsets, order: order, sorted: !sort.isEmpty, text: text,
                            look: look, tuning: tuning)
        // The rows holding the text, when a filter by it is cached: no record to read.
        if let known = caches.matches(Selection(filter: text, conditions: [])) {
            return try scan.settle(known, from: 0, isCancelled: isCancelled, progress: progress)
        }
        return try scan.run(isCancelled: isCancelled, progress: progress)
    }
}

/// The positions `find` looks at, in the order it looks at them: its ranges one after the
/// other, each walked downwards when `backward`.
struct LookOrder {
    let ranges: [Range<Int>]
    let backward: Bool
    /// Positions in all.
    let count: Int

    init(_ ranges: [Range<Int>], backward: Bool) {
        self.ranges = ranges; self.backward = backward
        count = ranges.reduce(0) { $0 + $1.count }
    }

    /// A run of positions looked at one after the other (within one range).
    struct Piece {
        /// Where in the look order it starts.
        var start: Int
        /// Its positions (walked downwards when backward).
        var positions: Range<Int>
        /// The range it is in (0: not wrapped).
        var range: Int
    }

    /// The look order cut into pieces: the first of `first` positions, each next one twice
    /// as long up to `most` (a hit near `from` is found after reading little; far ones in
    /// pieces long enough to share out cheaply).
    func pieces(first: Int, most: Int) -> [Piece] {
        var out: [Piece] = []
        var size = first, start = 0
        for (k, r) in ranges.enumerated() {
            var done = 0
            while done < r.count {
                let n = min(size, r.count - done)
                let positions = backward ? (r.upperBound - done - n)..<(r.upperBound - done) : (r.lowerBound + done)..<(r.lowerBound + done + n)
                out.append(Piece(start: start, positions: positions, range: k))
                start += n; done += n
                size = min(most, size * 2)
            }
        }
        return out
    }
}
