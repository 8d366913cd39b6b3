import SeededRandom
import Testing
import TabdeckCore
import TabdeckProtocol


/// Plugins send whatever they like: replies and notifications with wrong types, missing or
/// extra fields, absurd numbers, rows of the wrong shape, answers to requests never made. The
/// core must take every one of them without trapping (a trap is a host crash) and keep working.
@Suite struct HostileRepliesTests {
    /// Values of every JSON type, including the awkward ones.
    static func anyValue(_ rng: inout SplitMix, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 1 ? 8 : 10), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int([0, -1, 1, Int64.max, Int64.min, 7, 1_000_000_000_000].randomElement(using: &rng)!)
        case 3: return .double([0.5, -0.0, 1e308, -1e308, 3.75].randomElement(using: &rng)!)
        case 4: return .string(["", "root", "t1", "\u{1b}[2J", "x\ny", String(repeating: "w", count: 300), "🎉"].randomElement(using: &rng)!)
        case 5: return .int(Int64.random(in: -5...2000, using: &rng))
        case 6: return .string("r\(Int.random(in: 0..<50, using: &rng))")
        case 7: return .int(Int64.random(in: 0...3, using: &rng))
        case 8: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in anyValue(&rng, depth: depth + 1) })
        default:
            var o = JSONObject()
            for key in ["id", "cells", "rows", "total", "table", "offset", "generation"].shuffled(using: &rng).prefix(Int.random(in: 0..<4, using: &rng)) {
                o[key] = anyValue(&rng, depth: depth + 1)
            }
            return .object(o)
        }
    }

    /// A rows result that is nearly right: each field may be dropped or replaced.
    static func rowsResult(_ params: JSONValue, _ rng: inout SplitMix) -> JSONValue {
        let offset = params["offset"]?.intValue ?? 0
        let limit = params["limit"]?.intValue ?? 50
        var rows: [JSONValue] = []
        for i in 0..<Int.random(in: 0...Int(min(limit, 60)), using: &rng) {
            var row: JSONObject = ["id": .string("r\(offset + Int64(i))"), "cells": .array([.int(offset + Int64(i)), .string("n")])]
            if Int.random(in: 0..<8, using: &rng) == 0 { row["cells"] = anyValue(&rng) }
            if Int.random(in: 0..<8, using: &rng) == 0 { row["id"] = anyValue(&rng) }
            if Int.random(in: 0..<10, using: &rng) == 0 { row["section"] = anyValue(&rng) }
            if Int.random(in: 0..<10, using: &rng) == 0 { row["hasChildren"] = anyValue(&rng) }
            rows.append(Int.random(in: 0..<30, using: &rng) == 0 ? anyValue(&rng) : .object(row))
        }
        var result: JSONObject = ["generation": params["generation"] ?? 1, "offset": .int(offset), "rows": .array(rows),
                                  "total": .int(1000)]
        for key in ["generation", "offset", "rows", "total"] where Int.random(in: 0..<6, using: &rng) == 0 {
            if Bool.random(using: &rng) { result[key] = nil } else { result[key] = anyValue(&rng) }
        }
        return Int.random(in: 0..<25, using: &rng) == 0 ? anyValue(&rng) : .object(result)
    }

    static func notification(_ rng: inout SplitMix) -> Message {
        let method = ["badge", "progress", "invalidate", "status", "log", "rows/chunk", "nonsense"].randomElement(using: &rng)!
        var params = JSONObject()
        for key in ["value", "done", "total", "message", "table", "rows", "text", "level"].shuffled(using: &rng).prefix(Int.random(in: 0..<4, using: &rng)) {
            params[key] = anyValue(&rng)
        }
        return .notification(method: method, params: Int.random(in: 0..<10, using: &rng) == 0 ? anyValue(&rng) : .object(params))
    }

    @Test func rowCountsOutOfRangeAreRefused() {
        var h = Harness(count: 1000)
        h.feed(.viewport(rows: 20))
        h.run("show 3")
        for total: Int64 in [-1, Int64.max] {
            h.feed(.plugin(tab: "people", .message(.notification(method: "invalidate", params: ["table": "root", "total": .int(total)]))))
            #expect(h.ws.tabs["people"]!.table!.total == 1000)
        }
        #expect(h.effects.contains {
            if case .log(_, let line) = $0 { line.contains("total: -1 is not a row count") } else { false }
        })
        h.run("goto 900")  // a page the fake answers with a wrong total
        h.plugins["people"]!.holdRows = true
        h.run("page first")
        // The page in view (a read-ahead page's failure is not shown against the view).
        let (id, params) = h.plugins["people"]!.held.first { $0.1["offset"] == .int(0) }!
        guard case .object(var result) = h.plugins["people"]!.rows(params) else { Issue.record("not an object"); return }
        result["total"] = .int(Int64.max)
        h.feed(.plugin(tab: "people", .message(.response(id: id, result: .object(result)))))
        #expect(h.ws.tabs["people"]!.table!.total == 1000)
        #expect(h.ws.tabs["people"]!.problem?.contains("9223372036854775807 is not a row count") == true)
        h.feed(.page(.last))  // would overflow page offsets with that count
        #expect(h.ws.tabs["people"]!.table!.view.cursor == 999)
    }

    @Test(arguments: Array(UInt64(1)...8))
    func theCoreTakesAnyReplyWithoutTrapping(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var h = Harness(count: 1000)
        h.feed(.viewport(rows: 20))
        h.feed(.refresh)
        h.run("show 3")
        h.plugins["people"]!.holdRows = true
        let commands = ["goto 900", "page next", "sort name", "sort id desc", "find n", "jump x", "page last", "show 5",
                        "select r1 r2", "select all", "open", "back", "tab select orders", "tab select people", "sort clear"]
        for _ in 0..<400 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1:
                h.feed(.command(commands.randomElement(using: &rng)!))
            case 2:
                h.feed(.cursor(delta: Int.random(in: -30...30, using: &rng)))
            case 3:
                h.feed(.page(Command.PageMove.allCases.randomElement(using: &rng)!))
            case 4:
                h.feed(.plugin(tab: "people", .message(Self.notification(&rng))))
            case 5:
                // An answer to a request never made (or already answered).
                let id = RequestID.int(Int64.random(in: -3...5000, using: &rng))
                let reply: Message = Bool.random(using: &rng)
                    ? .response(id: id, result: Self.anyValue(&rng))
                    : .failure(id: id, error: RPCError(code: -32603, message: "\u{1b}]0;owned\u{7}"))
                h.feed(.plugin(tab: "people", .message(reply)))
            case 6:
                h.feed(.find(text: ["n1", "zz", "r"].randomElement(using: &rng)!, backward: Bool.random(using: &rng)))
            default:
                // Answer the held requests, nearly right or wrong.
                let held = h.plugins["people"]!.held
                h.plugins["people"]!.held = []
                for (id, params) in held {
                    let reply: Message = Int.random(in: 0..<8, using: &rng) == 0
                        ? .failure(id: id, error: RPCError(code: -32001, message: "gone"))
                        : .response(id: id, result: Self.rowsResult(params, &rng))
                    h.feed(.plugin(tab: "people", .message(reply)))
                }
            }
            if Int.random(in: 0..<40, using: &rng) == 0 { h.feed(.cancelFind) }
        }
        // The commands ran (not all refused as busy), and the plugin's text never reached an
        // output unescaped.
        #expect(h.outputs.count > 20, "\(h.outputs.count) outputs, \(h.failures.count) failures")
        #expect(!(h.outputs.map(\.text) + h.failures).contains { $0.contains("\u{1b}") })
        // Still working: once the plugin behaves (and says its true count, which the host
        // believes whatever it was told before), the workspace answers normally.
        h.plugins["people"]!.holdRows = false
        h.feed(.plugin(tab: "people", .message(.notification(method: "invalidate", params: ["table": "root", "total": 1000]))))
        while !h.plugins["people"]!.held.isEmpty {
            let held = h.plugins["people"]!.held
            h.plugins["people"]!.held = []
            for (id, params) in held {
                h.feed(.plugin(tab: "people", .message(.response(id: id, result: h.plugins["people"]!.rows(params)))))
            }
        }
        h.feed(.cancelFind)
        // Failed pages back off (at most 30 s): once that has passed, the tab asks again.
        h.now += 31
        h.feed(.wake)
        #expect(h.ws.isBusy == false, "still running: \(h.ws)")
        h.run("tab select people")
        h.run("back")
        h.run("sort clear")
        #expect(h.run("goto 5")?.text == "row 5 of 1,000", "\(h.lastFailure ?? "") total \(String(describing: h.ws.tabs["people"]?.table?.total)) stack \(h.ws.tabs["people"]?.stack.map(\.key) ?? [])")
        #expect(h.run("show 2")?.json["rows"]?.arrayValue?.count == 2)
    }
}
