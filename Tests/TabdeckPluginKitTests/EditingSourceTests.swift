import Foundation
import Testing
import TabdeckPluginKit
import TabdeckProtocol

/// A source that edits: its action gets the form's `input`, its rows move.
private struct EditingSource: TableDataSource {
    var capabilities: PluginCapabilities { PluginCapabilities(actions: true, move: true) }
    func open(args: JSONValue) throws -> TableDescription {
        TableDescription(table: "root", columns: [ColumnSpec(id: "n")], total: 0, movable: true)
    }
    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        RowsResult(generation: request.generation, offset: request.offset, rows: [], total: 0)
    }
    func action(table: String, action: String, rows: [String], input: JSONObject) throws -> ActionResult {
        ActionResult(message: "\(action) \(rows.count) rows, name \(input["name"]?.stringValue ?? "-")")
    }
    func move(_ request: MoveRequest) throws -> ActionResult {
        ActionResult(message: "moved \(request.row) \(request.place.rawValue) \(request.target)")
    }
}

/// A source written before forms and moves: it keeps working, and refuses moves.
private struct OldSource: TableDataSource {
    var capabilities: PluginCapabilities { PluginCapabilities(actions: true) }
    func open(args: JSONValue) throws -> TableDescription { TableDescription(table: "root", columns: [ColumnSpec(id: "n")], total: 0) }
    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        RowsResult(generation: request.generation, offset: request.offset, rows: [], total: 0)
    }
    func action(table: String, action: String, rows: [String]) throws -> ActionResult { ActionResult(message: "old \(action)") }
}

@Suite(.timeLimit(.minutes(10))) struct EditingSourceTests {
    @Test func actionsGetTheirInputAndRowsMove() throws {
        let h = Harness(source: EditingSource())
        _ = try h.call(id: 1, "initialize", ["protocolVersion": 1])
        let add = try h.call(id: 2, "action", ["table": "root", "action": "add", "rows": [], "input": ["name": "Ada"]])
        #expect(add["result"] == ["message": "add 0 rows, name Ada"])
        let move = try h.call(id: 3, "move", ["table": "root", "row": "r3", "before": "r2"])
        #expect(move["result"] == ["message": "moved r3 before r2"])
        let bad = try h.call(id: 4, "move", ["table": "root", "row": "r3"])
        #expect(bad["error"]?["code"] == -32602)
        #expect(h.finish() == 0)
    }

    @Test func aSourceWithoutFormsOrMovesKeepsWorking() throws {
        let h = Harness(source: OldSource())
        _ = try h.call(id: 1, "initialize", ["protocolVersion": 1])
        #expect(try h.call(id: 2, "action", ["table": "root", "action": "touch", "rows": ["r1"]])["result"] == ["message": "old touch"])
        #expect(try h.call(id: 3, "move", ["table": "root", "row": "r3", "after": "r4"])["error"]?["code"] == -32002)
        #expect(h.finish() == 0)
    }
}
