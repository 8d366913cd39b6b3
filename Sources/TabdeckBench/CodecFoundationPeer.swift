import Foundation

/// The peer for `tabdeck-bench codec`: the same `rows` reply lines decoded by Foundation's
/// `JSONDecoder` into Codable structs (what a straightforward Swift host would do).
enum FoundationPeer {
    struct Reply: Decodable {
        var jsonrpc: String
        var id: Int64
        var result: Result
    }

    struct Result: Decodable {
        var generation: Int
        var offset: Int
        var total: Int?
        var rows: [Row]
    }

    struct Row: Decodable {
        var id: String
        var cells: [Cell]
    }

    enum Cell: Decodable {
        case null, int(Int64), double(Double), string(String), bool(Bool)

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let s = try? c.decode(String.self) { self = .string(s) }
            else if let i = try? c.decode(Int64.self) { self = .int(i) }
            else if let d = try? c.decode(Double.self) { self = .double(d) }
            else { self = .bool(try c.decode(Bool.self)) }
        }
    }

    /// Decodes every line; returns the rows seen.
    static func decode(_ lines: [Data]) throws -> Int {
        let decoder = JSONDecoder()
        var count = 0
        for line in lines { count += try decoder.decode(Reply.self, from: line).result.rows.count }
        return count
    }
}
