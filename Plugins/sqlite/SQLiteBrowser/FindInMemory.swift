import TabdeckPluginKit
import TabdeckProtocol

/// `find` (PROTOCOL.md 11.15) over rows held in memory (the catalog, an aggregate's groups, a
/// `query` result), already in the request's order and filter: the positions
/// ``FindRequest/positions(count:)`` names, looked at in turn, a cell matching as the
/// memory tables' filter does (``MemoryTable/contains(_:_:)``).
enum FindInMemory {
    static func find(_ request: FindRequest, in rows: [TabdeckProtocol.Row], cancel: CancellationFlag) throws -> FindResult {
        let needle = request.text.lowercased()
        for range in request.positions(count: rows.count) {
            try cancel.check()
            let walk: [Int] = request.backward ? range.reversed() : Array(range)
            for i in walk where MemoryTable.contains(rows[i].cells, needle) {
                let wrapped = request.backward ? i > request.from : i < request.from
                return FindResult(generation: request.generation, offset: i, row: rows[i].id, wrapped: wrapped)
            }
        }
        return FindResult(generation: request.generation, offset: nil)
    }
}
