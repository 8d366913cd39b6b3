import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// The fake plugins' actions and row moves: `delete` removes the rows, `add` appends a row
/// made of its input (`name`, `age`), `fail` answers an error, any other action answers
/// `message: "<id> on N rows"`; `move` swaps the row with its neighbour.
extension Scene {
    /// A reply whose `$error` member is an error answer (code -32003, this message).
    static func message(_ id: RequestID, _ reply: JSONValue) -> Message {
        if let text = reply["$error"]?.stringValue { return .failure(id: id, error: RPCError(code: -32003, message: text)) }
        return .response(id: id, result: reply)
    }

    mutating func edit(_ tab: String, _ method: String, _ params: JSONValue) -> JSONValue {
        guard var table = tables[tab] else { return ["$error": "no table"] }
        let old = table.row
        let total = table.total
        var ids: [String] = []
        for i in 0..<total { ids.append(old(i).id) }
        let message: String
        if method == Method.move {
            let request = try! MoveRequest(params)
            guard let from = ids.firstIndex(of: request.row), let to = ids.firstIndex(of: request.target) else { return ["$error": "unknown row"] }
            var swapped = Array(0..<total)
            swapped.swapAt(from, to)
            let order = swapped
            table.row = { old(order[$0]) }
            message = "moved \(request.row) \(request.place.rawValue) \(request.target)"
        } else {
            let rows = params["rows"]?.arrayValue?.compactMap(\.stringValue) ?? []
            switch params["action"]?.stringValue {
            case "fail": return ["$error": .string("cannot do that to \(rows.first ?? "the table")")]
            case "delete":
                let kept = (0..<total).filter { !rows.contains(ids[$0]) }
                table.row = { old(kept[$0]) }
                table.total = kept.count
                message = "deleted \(rows.count) rows"
            case "add":
                let input = params["input"] ?? [:]
                let added = Row(id: "new\(total)", cells: [input["name"] ?? .null, input["age"] ?? .null, .string("todo"), .string("Rome")])
                table.row = { $0 == total ? added : old($0) }
                table.total = total + 1
                message = "added \(input["name"]?.stringValue ?? "?")"
            case let other: message = "\(other ?? "?") on \(rows.count) rows"
            }
        }
        tables[tab] = table
        return ["message": .string(message)]
    }
}
