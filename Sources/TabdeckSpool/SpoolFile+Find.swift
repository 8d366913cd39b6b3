import TabdeckProtocol

/// `find` (PROTOCOL.md 11.15) in a spooled table's view.
extension SpoolFile {
    /// A row found: its position in the view, its id as the wire gives it, and whether the
    /// search went past the end (or start) to reach it.
    struct Found {
        var offset: Int
        var id: JSONValue
        var wrapped: Bool
    }

    /// Rows looked at between two checks of `stop`.
    static let findStride = 1 << 16

    /// The first position of the view of `request.sort` (read through `orderTable` when given)
    /// and `filter`, in the request's look order (``FindRequest/positions(count:)``), whose row
    /// has a cell holding `request.text` by the filter's rule (``RowFilter``); nil when none
    /// does. `stop` is asked every ``findStride`` rows; it ends the search with
    /// ``SpoolError/cancelled(table:)``.
    func find(_ schema: SpoolSchema, _ request: FindRequest, orderTable: String?, filter: RowKeep?,
              stop: @escaping () -> Bool) throws(SpoolError) -> Found? {
        onOwner()
        let columns = try schema.sortColumns(request.sort)
        let table = try stored(schema)
        let n = table.count
        let cellCount = schema.columns.count
        let match = RowFilter(request.text)
        return try table.read { (records, offsets) throws(SpoolError) -> Found? in
            guard let records, let offsets else { return nil }
            // The view's rows in order: the filter's, an order table's, or every row's.
            var view: [Int]?
            if let filter {
                let kept = passing(schema, filter: filter, records: records, offsets: offsets, count: n)
                if columns.isEmpty {
                    view = kept
                } else if let ordered = cachedFilter(schema, filter, request.sort) {
                    view = ordered
                } else {
                    view = RowSorter(base: records, offsets: offsets, columns: columns).all(count: n, of: kept).map(Int.init)
                    remember(schema, filter, request.sort, view!)
                }
            } else if !columns.isEmpty && (orderTable.flatMap { orders[$0] } == nil) {
                view = RowSorter(base: records, offsets: offsets, columns: columns).all(count: n).map(Int.init)
            }
            let look = { (positions: UnsafePointer<Int32>?) throws(SpoolError) -> Found? in
                let count = view?.count ?? n
                var scratch: [UInt8] = []
                var looked = 0
                for (part, range) in request.positions(count: count).enumerated() {
                    var p = request.backward ? range.upperBound - 1 : range.lowerBound
                    while range.contains(p) {
                        looked += 1
                        if looked % Self.findStride == 0, stop() { throw .cancelled(table: schema.tableName) }
                        let row = view.map { $0[p] } ?? positions.map { Int($0[p]) } ?? p
                        var r = RecordReader(base: records, at: Int(offsets[row]))
                        r.skipHeader()
                        if match.passes(&r, columns: cellCount, scratch: &scratch) {
                            let id = RowRecord.row(records, at: Int(offsets[row]), columns: cellCount)["id"] ?? .null
                            return Found(offset: p, id: id, wrapped: part > 0)
                        }
                        p += request.backward ? -1 : 1
                    }
                }
                return nil
            }
            if view == nil, let orderTable, let order = orders[orderTable] {
                return try order.read { (raw) throws(SpoolError) -> Found? in try look(raw?.assumingMemoryBound(to: Int32.self)) }
            }
            return try look(nil)
        }
    }
}
