import Foundation
import Testing
import TabdeckPluginKit
import TabdeckProtocol

@Suite(.timeLimit(.minutes(10))) struct PluginRunnerTests {
    @Test func handshake() throws {
        let h = Harness(source: TestSource())
        let reply = try h.call(id: 1, "initialize", [
            "protocolVersion": 1, "host": ["name": "tabdeck", "version": "0.1.0"],
            "capabilities": ["progress": true, "cancel": true, "somethingNew": ["x": 1]],
        ])
        #expect(reply["jsonrpc"] == "2.0")
        let result = try InitializeResult(try #require(reply["result"]))
        #expect(result.name == "test")
        #expect(result.version == "0.0.1")
        #expect(result.protocolVersion == 1)
        #expect(result.capabilities.sort)
        #expect(!result.capabilities.filter)
        #expect(h.finish() == 0)
    }

    @Test func locateIsAnsweredByTheSourceOrRefused() throws {
        let h = Harness(source: TestSource())
        _ = try h.call(id: 1, "initialize", ["protocolVersion": 1])
        _ = try h.call(id: 2, "open", ["args": [:]])
        let found = try h.call(id: 3, "locate", LocateRequest(table: "root", rows: ["x", "r42"], generation: 2).json)
        #expect(try LocateResult(try #require(found["result"])) == LocateResult(row: "r42", offset: 42))
        let bad = try h.call(id: 4, "locate", ["table": "root", "rows": "r1"])
        #expect(bad["error"]?["code"] == .int(-32602))
        #expect(h.finish() == 0)
        let plain = Harness(source: NoLocateSource())
        _ = try plain.call(id: 1, "initialize", ["protocolVersion": 1])
        #expect(try plain.call(id: 2, "locate", LocateRequest(table: "root", rows: ["r1"]).json)["error"]?["code"] == .int(-32601))
        #expect(plain.finish() == 0)
    }

    @Test func openAndRows() throws {
        let h = Harness(source: TestSource())
        _ = try h.call(id: 1, "initialize", ["protocolVersion": 1])
        let open = try TableDescription(try #require(try h.call(id: 2, "open", ["args": [:]])["result"]))
        #expect(open.table == "root")
        #expect(open.total == 1000)
        #expect(open.columns.map(\.id) == ["n"])
        let reply = try h.call(id: 3, "rows", rowsParams("root", offset: 998, limit: 5, generation: 7))
        let rows = try RowsResult(try #require(reply["result"]))
        #expect(rows.generation == 7)
        #expect(rows.offset == 998)
        #expect(rows.total == 1000)
        #expect(rows.rows.map(\.id) == ["r998", "r999"])
        #expect(rows.rows.map(\.cells) == [[998], [999]])
        // String ids work too.
        h.send(.request(id: .string("abc"), method: "rows", params: rowsParams("root")))
        let byString = try h.reply(to: "abc")
        #expect(byString["result"]?["rows"]?.arrayValue?.count == 3)
        #expect(h.finish() == 0)
    }

    @Test func repliesGoOutOfOrder() throws {
        let source = TestSource()
        let h = Harness(source: source)
        h.send(id: 1, "rows", rowsParams("gated"))
        h.send(id: 2, "rows", rowsParams("root"))
        let first = try h.next()
        #expect(first["id"] == 2)
        #expect(first["result"] != nil)
        source.release()
        let second = try h.next()
        #expect(second["id"] == 1)
        #expect(second["result"]?["rows"]?.arrayValue?.count == 3)
        #expect(h.finish() == 0)
    }

    /// A close waits for the earlier requests about its table; later ones wait for the close
    /// and get -32001; requests about other tables overtake both.
    @Test func closeIsOrderedWithRequestsAboutItsTable() throws {
        let source = TestSource()
        let h = Harness(source: source, workers: 4)
        h.send(id: 1, "rows", rowsParams("gated"))
        h.send(.notification(method: "close", params: ["table": "gated"]))
        h.send(id: 2, "rows", rowsParams("gated"))
        h.send(id: 3, "rows", rowsParams("root"))
        let first = try h.next()
        #expect(first["id"] == 3)
        source.release(2)
        let second = try h.next()
        #expect(second["id"] == 1)
        #expect(second["result"]?["rows"]?.arrayValue?.count == 3)
        let third = try h.next()
        #expect(third["id"] == 2)
        #expect(third["error"]?["code"] == .int(-32001))
        #expect(source.closed == ["gated"])
        #expect(h.finish() == 0)
    }

    @Test func manyRequestsInFlight() throws {
        let h = Harness(source: TestSource(), workers: 4)
        for i in 0..<200 { h.send(id: Int64(i), "rows", rowsParams("root", offset: i, limit: 2)) }
        var seen = Set<Int64>()
        for _ in 0..<200 {
            let m = try h.next()
            let id = try #require(m["id"]?.intValue)
            #expect(m["result"]?["offset"]?.intValue == id)
            seen.insert(id)
        }
        #expect(seen.count == 200)
        #expect(h.finish() == 0)
    }

    @Test func cancelStopsARunningRequest() throws {
        let source = TestSource()
        let h = Harness(source: source)
        h.send(id: 5, "rows", rowsParams("spin"))
        #expect(source.started.wait(timeout: .now() + 5) == .success)
        h.send(.notification(method: "$/cancel", params: ["id": 5]))
        let reply = try h.reply(to: 5)
        #expect(reply["error"]?["code"] == .int(-32800))
        // Cancelling an unknown or finished id is harmless.
        h.send(.notification(method: "$/cancel", params: ["id": 5]))
        h.send(.notification(method: "$/cancel", params: ["id": "nope"]))
        #expect(try h.call(id: 6, "rows", rowsParams("root"))["result"] != nil)
        #expect(h.finish() == 0)
    }

    @Test func cancelBeforeStartAnswers32800() throws {
        let source = TestSource()
        let h = Harness(source: source, workers: 1)
        h.send(id: 1, "rows", rowsParams("gated"))  // occupies the only worker
        #expect(source.started.wait(timeout: .now() + 5) == .success)
        h.send(id: 2, "rows", rowsParams("root"))
        h.send(.notification(method: "$/cancel", params: ["id": 2]))
        // The cancel is read before the gate opens: send a request handled on the reader
        // thread and wait for its reply to be sure.
        _ = try h.call(id: 3, "initialize", [:])
        source.release()
        #expect(try h.reply(to: 1)["result"] != nil)
        #expect(try h.reply(to: 2)["error"]?["code"] == .int(-32800))
        #expect(h.finish() == 0)
    }

    @Test func malformedAndOverlongLinesAreAnsweredAndSkipped() throws {
        let h = Harness(source: TestSource())
        h.send("this is not json")
        let parse = try h.next()
        #expect(parse["id"] == .null)
        #expect(parse["error"]?["code"] == .int(-32700))
        h.send("[1,2,3]")
        #expect(try h.next()["error"]?["code"] == .int(-32600))
        h.send(#"{"jsonrpc":"2.0","id":9}"#)
        let invalid = try h.next()
        #expect(invalid["id"] == 9)
        #expect(invalid["error"]?["code"] == .int(-32600))
        h.send("")  // blank lines are ignored
        var big = Array(#"{"jsonrpc":"2.0","id":10,"method":"rows","params":{"pad":""#.utf8)
        big += [UInt8](repeating: 0x61, count: LineSplitter.defaultMaxLineLength)
        big += Array(#""}}"#.utf8) + [0x0A]
        h.sendBytes(big)
        let overlong = try h.next(timeout: 10)
        #expect(overlong["error"]?["code"] == .int(-32600))
        #expect(try h.call(id: 11, "rows", rowsParams("root"))["result"] != nil)
        #expect(h.finish() == 0)
    }

    @Test func unknownMethodAndBadParams() throws {
        let h = Harness(source: TestSource())
        let unknown = try h.call(id: 1, "frobnicate", [:])
        #expect(unknown["error"]?["code"] == .int(-32601))
        #expect(unknown["error"]?["message"]?.stringValue?.contains("frobnicate") == true)
        let bad = try h.call(id: 2, "rows", ["table": "root", "limit": 5])
        #expect(bad["error"]?["code"] == .int(-32602))
        #expect(bad["error"]?["message"]?.stringValue?.contains("params.offset") == true)
        #expect(bad["error"]?["data"]?["path"] == "params.offset")
        let wrongType = try h.call(id: 3, "rows", ["table": "root", "offset": "zero", "limit": 5])
        #expect(wrongType["error"]?["data"]?["path"] == "params.offset")
        let negative = try h.call(id: 4, "rows", ["table": "root", "offset": -1, "limit": 5])
        #expect(negative["error"]?["code"] == .int(-32602))
        let badArgs = try h.call(id: 5, "open", ["args": 3])
        #expect(badArgs["error"]?["data"]?["path"] == "params.args")
        #expect(try h.call(id: 6, "children", ["table": "root", "row": "r1"])["error"]?["code"] == .int(-32002))
        #expect(h.finish() == 0)
    }

    @Test func handlerErrorsAreMapped() throws {
        let h = Harness(source: TestSource())
        #expect(try h.call(id: 1, "rows", rowsParams("nope"))["error"]?["code"] == .int(-32001))
        let boom = try h.call(id: 2, "rows", rowsParams("boom"))
        #expect(boom["error"]?["code"] == .int(-32603))
        let failed = try h.call(id: 3, "open", ["args": ["fail": "no such file: x.csv"]])
        #expect(failed["error"]?["message"] == "no such file: x.csv")
        #expect(h.finish() == 0)
    }

    @Test func shutdownAnswersNullAndEndsWhenInputCloses() throws {
        let source = TestSource()
        let h = Harness(source: source)
        _ = try h.call(id: 1, "initialize", [:])
        h.send(.notification(method: "close", params: ["table": "root"]))
        let reply = try h.call(id: 2, "shutdown")
        #expect(reply["result"] == .null)
        #expect(reply["error"] == nil)
        #expect(try h.call(id: 3, "rows", rowsParams("root"))["error"]?["code"] == .int(-32600))
        #expect(h.finish() == 0)
        #expect(source.closed == ["root"])
    }

    @Test func shutdownEndsEvenIfInputStaysOpen() throws {
        let h = Harness(source: TestSource(), grace: 0.2)
        _ = try h.call(id: 1, "shutdown")
        // Input stays open: returning at all shows the runner ended by itself once the grace
        // passed on its clock (a runner that waited for end of input would hang here, caught by
        // the suite's time limit).
        let ended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { _ = h.runner.wait(); ended.signal() }
        h.clock.advance(by: 0.3)
        #expect(ended.wait(timeout: .now() + 30) == .success)
    }

    @Test func shutdownCancelsRunningRequests() throws {
        let source = TestSource()
        let h = Harness(source: source)
        h.send(id: 1, "rows", rowsParams("spin"))
        #expect(source.started.wait(timeout: .now() + 5) == .success)
        #expect(try h.call(id: 2, "shutdown")["result"] == .null)
        #expect(try h.reply(to: 1)["error"]?["code"] == .int(-32800))
        #expect(h.finish() == 0)
    }

    @Test func notificationsFromManyThreadsStayWholeLines() throws {
        let source = TestSource()
        let h = Harness(source: source)
        let notifier = try #require(source.notifier)
        let long = String(repeating: "x", count: 100_000)
        // Sent from a background queue: the 4 MB of output must be read while it is written.
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: 40) { i in
                switch i % 5 {
                case 0: notifier.badge(.number(i))
                case 1: notifier.invalidate(table: "root", rows: ["r\(i)"], total: i)
                case 2: notifier.progress(done: Double(i), total: 40, message: long)
                case 3: notifier.status("status \(i)")
                default: notifier.log(.warning, "log \(i)")
                }
            }
        }
        var methods: [String: Int] = [:]
        for _ in 0..<40 {
            let m = try h.next()
            let method = try #require(m["method"]?.stringValue)
            methods[method, default: 0] += 1
            if method == "progress" { #expect(m["params"]?["message"]?.stringValue?.count == 100_000) }
            if method == "badge" { #expect(m["params"]?["value"]?.intValue != nil) }
        }
        #expect(methods == ["badge": 8, "invalidate": 8, "progress": 8, "status": 8, "log": 8])
        #expect(h.finish() == 0)
    }
}
