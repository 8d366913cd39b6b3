import CSVTable
import Foundation
import TabdeckPluginKit
import TabdeckProtocol

extension CSVSource {
    /// `find` (PROTOCOL.md 11.15): the first row from `from` on (or back), in the view of the
    /// request's sort, `filter` and `where` (the one `rows` pages), holding the text by the
    /// filter's rule. A file is searched by the engine (``CSVTable/find(_:from:backward:wrap:sort:filter:where:isCancelled:progress:)``,
    /// both cores, `progress` while it looks); a table of groups or of statistics in memory.
    func find(_ request: FindRequest, cancel: CancellationFlag) throws -> FindResult {
        if let counts = countTable(request.table) { return try Self.find(request, in: counts.table) }
        if let stats = describedTable(request.table) { return try Self.find(request, in: stats) }
        let table = try self.table(request.table)
        let keys = try Self.sortKeys(request.sort, table)
        let conditions = try Self.conditions(request.where, table)
        let filter = request.filter.flatMap { $0.isEmpty ? nil : $0 }
        let reporter = RequestProgress(message: "finding \"\(request.text)\" in \(title(of: request.table))", notifier: notifierNow)
        reporter.start()
        defer { reporter.stop() }
        let hit = try table.find(request.text, from: request.from, backward: request.backward, wrap: request.wrap,
                                 sort: keys, filter: filter, where: conditions, isCancelled: { cancel.isCancelled },
                                 progress: { done, all in reporter.report(done, all) })
        return FindResult(generation: request.generation, offset: hit?.position, row: hit.map { String($0.row + 1) },
                          wrapped: hit?.wrapped ?? false)
    }

    /// `find` in a table held in memory, by its own filter's rule (``MemoryTable/contains(_:_:)``).
    static func find(_ request: FindRequest, in table: MemoryTable) throws -> FindResult {
        let order = try table.order(sort: request.sort, filter: request.filter, clause: request.where)
        let needle = request.text.lowercased()
        for (k, range) in request.positions(count: order.count).enumerated() {
            for p in request.backward ? Array(range.reversed()) : Array(range)
            where MemoryTable.contains(table.rows[order[p]].cells, needle) {
                return FindResult(generation: request.generation, offset: p, row: table.rows[order[p]].id, wrapped: k > 0)
            }
        }
        return FindResult(generation: request.generation, offset: nil)
    }
}
