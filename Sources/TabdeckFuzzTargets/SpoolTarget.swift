import Foundation
import TabdeckProtocol
import TabdeckSpool

/// The host's spool, fed a `rows/chunk` line as a streaming plugin writes it, into a table of
/// one to four columns of types the input chooses.
///
/// Invariants, for every chunk the spool accepts:
/// - the rows come back in arrival order exactly as sent (ids as text, one cell per column:
///   missing cells null, extra ones dropped);
/// - a sorted order (each column, both directions; nulls smallest or largest, text folded or
///   not) holds every row once, and its first rows
///   (a bounded heap) are the first rows of the whole order (a full sort, materialized).
enum SpoolTarget {
    static let target = FuzzTarget(
        name: "spool",
        summary: "a rows/chunk line into the spool: rows come back as sent; every order is a permutation, its heap and full sort agree",
        check: check)

    static let types: [ColumnType] = [.text, .integer, .decimal, .bool, .date, .enumeration(["a", "b", "Zoë"])]
    static let folder = NSTemporaryDirectory() + "/tabdeck-fuzz-spool-\(getpid())"

    static func check(_ input: [UInt8]) -> FuzzViolation? {
        var reader = FuzzReader(input)
        let count = 1 + Int(reader.byte() % 4)
        // Each column's type, and from the same byte's high bits its declared null order and
        // whether its text folds case (PROTOCOL 10.2).
        let columns = (0..<count).map { i -> ColumnSpec in
            let b = Int(reader.byte())
            return ColumnSpec(id: "c\(i)", type: types[(b & 0x0F) % types.count], nulls: b & 0x10 != 0 ? .largest : .smallest,
                              order: b & 0x20 != 0 ? .casefold : .protocol)
        }
        let line = reader.rest
        guard case .notification(StreamMessages.chunkMethod, let params)? = try? MessageCodec.decode(line),
              let rows = try? StreamMessages.chunk(params).rows else { return nil }
        let schema = SpoolSchema(tableName: "t1", columns: columns)
        do {
            let file = try SpoolFile(path: folder)
            defer { file.remove() }
            try file.create(schema)
            _ = try file.insert(rows, into: schema)
            let expected = rows.map { row -> JSONValue in
                var normal = row
                normal.cells = (0..<count).map { $0 < row.cells.count ? row.cells[$0] : .null }
                return normal.json
            }
            let natural = try file.page(schema, sort: [], offset: 0, limit: rows.count + 1)
            guard natural == expected else {
                return FuzzViolation("spool", "rows come back as sent", "\(excerpt(line)): \(natural) instead of \(expected)")
            }
            for column in columns {
                for direction in [SortDirection.ascending, .descending] {
                    let sort = [SortKey(column.id, direction)]
                    try file.materialize(schema, sort, name: "o")
                    let all = try file.page(schema, sort: sort, offset: 0, limit: rows.count, orderTable: "o")
                    guard all.count == expected.count, Set(all.map { "\($0)" }) == Set(expected.map { "\($0)" }) else {
                        return FuzzViolation("spool", "a sorted order holds every row once", "\(excerpt(line)) by \(sort)")
                    }
                    for k in [1, 2, 5] where k * 4 < rows.count {
                        let first = try file.page(schema, sort: sort, offset: 0, limit: k)
                        guard first == Array(all.prefix(k)) else {
                            return FuzzViolation("spool", "the heap's first rows are the full sort's",
                                                 "\(excerpt(line)) by \(sort), k \(k): \(first) vs \(all.prefix(k))")
                        }
                    }
                }
            }
        } catch {
            return FuzzViolation("spool", "the spool takes any chunk it decodes", "\(excerpt(line)): \(error)")
        }
        return nil
    }
}
