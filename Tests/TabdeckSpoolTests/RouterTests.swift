import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// What the router sent to the plugin and delivered to the core.
final class Wire: @unchecked Sendable {
    private let lock = NSLock()
    private var _sent: [Message] = []
    private var _delivered: [Message] = []
    var sent: [Message] { lock.withLock { _sent } }
    var delivered: [Message] { lock.withLock { _delivered } }
    func send(_ m: Message) { lock.withLock { _sent.append(m) } }
    func deliver(_ m: Message) { lock.withLock { _delivered.append(m) } }
    func clear() { lock.withLock { _sent = []; _delivered = [] } }

    /// The core's answer to request `id`, if delivered.
    func answer(_ id: Int64) -> JSONValue? {
        for m in delivered { if case .response(.int(id), let r) = m { return r } }
        return nil
    }
    func rowIDs(_ id: Int64) -> [String]? {
        guard case .object(let o)? = answer(id), case .array(let rows)? = o["rows"] else { return nil }
        return rows.map { if case .object(let r) = $0, case .string(let s)? = r["id"] { s } else { "?" } }
    }
    var notifications: [String] {
        delivered.compactMap { if case .notification(let m, _) = $0 { m } else { nil } }
    }
    /// The texts of the `status` notifications delivered, in order.
    var statusTexts: [String] {
        delivered.compactMap {
            if case .notification("status", .object(let o)) = $0, case .string(let t)? = o["text"] { t } else { nil }
        }
    }
}

/// Hands a plugin message to the router and waits until its rows are stored.
func feed(_ r: SpoolRouter, _ message: Message) -> Bool {
    let taken = r.incoming(message, tab: "s")
    r.drain()
    return taken
}

@Suite struct RouterTests {
    let folder = TempFolder()
    let wire = Wire()

    func router() -> SpoolRouter {
        let wire = self.wire
        return SpoolRouter(folder: folder.path, send: { _, m in wire.send(m) }, deliver: { _, m in wire.deliver(m) })
    }

    /// A router whose tab `s` did the handshake and opened `root` (columns n integer, name text).
    func opened(paging: Bool) -> SpoolRouter {
        let r = router()
        #expect(!r.outgoing(.request(id: .int(1), method: "initialize", params: [:]), tab: "s"))
        let caps: JSONValue = ["sort": false, "paging": .bool(paging), "children": true]
        #expect(feed(r, .response(id: .int(1), result: ["name": "x", "version": "1", "protocolVersion": 1, "capabilities": caps])))
        #expect(!r.outgoing(.request(id: .int(2), method: "open", params: ["args": [:]]), tab: "s"))
        let description: JSONValue = ["table": "root", "columns": [["id": "n", "type": "integer"], ["id": "name"]], "total": 5]
        #expect(!feed(r, .response(id: .int(2), result: description)))
        return r
    }

    /// The stream request a streaming table's description started, and its params.
    func streamRequest() -> (id: RequestID, params: JSONValue)? {
        for m in wire.sent { if case .request(let id, "rows", let params) = m, SpoolIDs.isSpool(id) { return (id, params) } }
        return nil
    }

    func rows(_ range: Range<Int>) -> JSONValue {
        .array(range.map { i in row("r\(i)", [.int(Int64(i % 3)), .string("w\(i)")]) })
    }

    func rowsRequest(_ id: Int64, offset: Int, limit: Int, sort: [SortKey] = [], filter: String? = nil) -> Message {
        .request(id: .int(id), method: "rows", params: RowsRequest(table: "root", offset: offset, limit: limit, sort: sort,
                                                                   filter: filter, generation: 4).json)
    }

    @Test func theCoreSeesAPluginThatSortsAndPages() throws {
        _ = opened(paging: false)
        guard case .response(.int(1), let result)? = wire.delivered.first else { Issue.record("no handshake"); return }
        let caps = try InitializeResult(result).capabilities
        #expect(caps.sort && caps.multiSort && caps.paging && caps.children && caps.filter)
    }

    @Test func theSpoolFiltersOnceEveryRowHasArrived() throws {
        let r = opened(paging: true)  // a plugin that pages but cannot sort nor filter
        wire.clear()
        // A filtered page is the spool's even in the natural order: it pulls the whole table.
        #expect(r.outgoing(rowsRequest(3, offset: 0, limit: 10, filter: "W1"), tab: "s"))
        guard case .request(let pull, "rows", let params)? = wire.sent.first else { Issue.record("no pull"); return }
        #expect(params["filter"] == .null)  // the plugin is asked for every row
        #expect(wire.answer(3) == nil)
        let all: JSONValue = .array((0..<12).map { i in row("r\(i)", [.int(Int64(i % 3)), .string("w\(i)")]) })
        #expect(feed(r, .response(id: pull, result: ["generation": 1, "offset": 0, "rows": all, "total": 12])))
        // Pulled to the end (a short page), then answered.
        for m in wire.sent.dropFirst() {
            if case .request(let id, "rows", _) = m {
                #expect(feed(r, .response(id: id, result: ["generation": 1, "offset": 12, "rows": [], "total": 12])))
            }
        }
        r.drain()
        #expect(wire.rowIDs(3) == ["r1", "r10", "r11"])  // "w1", "w10", "w11": ASCII case ignored
        if case .object(let o)? = wire.answer(3) { #expect(o["total"] == 3) }
        // Sorted and filtered, and a number cell matches as text.
        #expect(r.outgoing(rowsRequest(4, offset: 1, limit: 10, sort: [SortKey("name", .descending)], filter: "1"), tab: "s"))
        r.drain()
        // n = 1 (r1 r4 r7 r10) or "1" in the name (r1 r10 r11): names descending by bytes are
        // w7 w4 w11 w10 w1, and the page starts at the second.
        #expect(wire.rowIDs(4) == ["r4", "r11", "r10", "r1"])
        if case .object(let o)? = wire.answer(4) { #expect(o["total"] == 5) }
        #expect(r.outgoing(rowsRequest(5, offset: 0, limit: 10, filter: "no such text"), tab: "s"))
        r.drain()
        #expect(wire.rowIDs(5) == [])
        if case .object(let o)? = wire.answer(5) { #expect(o["total"] == 0) }
    }

    @Test func aPluginThatSortsAndPagesIsLeftAlone() {
        let r = router()
        _ = r.outgoing(.request(id: .int(1), method: "initialize", params: [:]), tab: "s")
        #expect(!feed(r, .response(id: .int(1), result: ["protocolVersion": 1, "capabilities": ["sort": true]])))
        #expect(!r.outgoing(rowsRequest(3, offset: 0, limit: 10, sort: [SortKey("n")]), tab: "s"))
        #expect(!r.isSpooled(tab: "s"))
    }

    @Test func aStreamAnswersPagesAsRowsArriveAndSortsTheRowsSoFar() throws {
        let r = opened(paging: false)
        // The description starts the stream at once: one request with an id of the spool's own.
        guard let (sid, params) = streamRequest() else { Issue.record("no stream request"); return }
        #expect(wire.sent.filter { if case .request = $0 { true } else { false } }.count == 1)
        #expect(params == StreamMessages.streamParams(table: "root"))
        wire.clear()
        #expect(r.outgoing(rowsRequest(3, offset: 0, limit: 2), tab: "s"))
        #expect(r.outgoing(rowsRequest(4, offset: 0, limit: 2, sort: [SortKey("n", .descending)]), tab: "s"))
        #expect(r.outgoing(rowsRequest(6, offset: 0, limit: 1000, sort: [SortKey("n", .descending)]), tab: "s"))
        #expect(wire.sent.isEmpty)
        #expect(feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows(0..<3)])))
        r.drain()
        #expect(wire.rowIDs(3) == ["r0", "r1"])              // usable before the stream ends
        #expect(wire.rowIDs(4) == ["r2", "r1"])              // sorted: the rows so far (n: 0 1 2)
        if case .object(let o)? = wire.answer(4) { #expect(o["total"] == nil) }
        #expect(wire.answer(6) == nil)                        // a scan's page waits for every row
        #expect(wire.statusTexts.last == "sorted and filtered: the 3 rows received so far")
        if case .object(let o)? = wire.answer(3) { #expect(o["total"] == nil && o["generation"] == 4) }
        // More rows refresh the view (an invalidate of the whole table, no count).
        let before = wire.notifications.filter { $0 == "invalidate" }.count
        #expect(feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows(3..<4)])))
        r.drain()
        #expect(wire.notifications.filter { $0 == "invalidate" }.count == before + 1)
        #expect(wire.statusTexts.last == "sorted and filtered: the 4 rows received so far")
        #expect(feed(r, .response(id: sid, result: ["generation": 1, "offset": 0, "rows": rows(4..<5), "total": 5])))
        r.drain()
        #expect(wire.rowIDs(6) == ["r2", "r1", "r4", "r0", "r3"])  // n: 0 1 2 0 1 → desc, ties by arrival
        #expect(wire.notifications.contains("progress") && wire.notifications.contains("invalidate"))
        #expect(wire.statusTexts.last == "")                       // the "so far" note is gone
        // Now complete: any page at once, with the total.
        wire.clear()
        #expect(r.outgoing(rowsRequest(5, offset: 3, limit: 10, sort: [SortKey("name", .descending)]), tab: "s"))
        r.drain()   // pages are answered on the spool's writer queue
        #expect(wire.rowIDs(5) == ["r1", "r0"])
        if case .object(let o)? = wire.answer(5) { #expect(o["total"] == 5) }
        #expect(wire.sent.isEmpty)
        let path = r.spoolPath(tab: "s")
        #expect(FileManager.default.fileExists(atPath: path))
        r.pluginEnded(tab: "s")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aPluginThatPagesServesNaturalPagesItselfAndIsPulledForASort() throws {
        let r = opened(paging: true)
        wire.clear()
        #expect(!r.outgoing(rowsRequest(3, offset: 0, limit: 100), tab: "s"))    // straight to the plugin
        #expect(r.outgoing(rowsRequest(4, offset: 1, limit: 2, sort: [SortKey("name", .descending)]), tab: "s"))
        let pulls = wire.sent.compactMap { m -> (RequestID, RowsRequest)? in
            if case .request(let id, "rows", let p) = m, let q = try? RowsRequest(p) { return (id, q) }
            return nil
        }
        #expect(pulls.map(\.1.offset) == [0, 1000])
        #expect(pulls.allSatisfy { SpoolIDs.isSpool($0.0) && $0.1.sort.isEmpty })
        // The second page comes first; rows go in by offset anyway.
        #expect(feed(r, .response(id: pulls[1].0, result: ["generation": 1, "offset": 1000, "rows": []])))
        #expect(feed(r, .response(id: pulls[0].0, result: ["generation": 1, "offset": 0, "rows": rows(0..<5)])))
        #expect(wire.rowIDs(4) == ["r3", "r2"])   // w4 w3 w2 w1 w0
        r.removeAll()
    }

    @Test func aWaitingPageCanBeCancelledAndAFailedStreamFailsWaitingPages() throws {
        let r = opened(paging: false)
        guard let (sid, _) = streamRequest() else { Issue.record("no stream request"); return }
        wire.clear()
        // Pages that wait for every row (scans: 1,000 rows).
        #expect(r.outgoing(rowsRequest(3, offset: 0, limit: 1000, sort: [SortKey("n")]), tab: "s"))
        #expect(r.outgoing(rowsRequest(4, offset: 0, limit: 1000, sort: [SortKey("name")]), tab: "s"))
        #expect(r.outgoing(.notification(method: "$/cancel", params: ["id": 3]), tab: "s"))   // never reaches the plugin
        #expect(wire.sent.isEmpty)
        #expect(feed(r, .failure(id: sid, error: RPCError(code: -32603, message: "disk on fire"))))
        #expect(wire.answer(3) == nil)
        let failure = wire.delivered.first { if case .failure(.int(4), _) = $0 { true } else { false } }
        guard case .failure(_, let error)? = failure else { Issue.record("request 4 not failed"); return }
        #expect(error.message.contains("disk on fire") && error.message.contains("root"))
        r.removeAll()
    }

    @Test func aChunkOfBadRowsFailsTheStreamNamingTheField() throws {
        let r = opened(paging: false)
        guard let (sid, _) = streamRequest() else { Issue.record("no stream request"); return }
        wire.clear()
        // A page that waits for the whole table (a scan's: 1,000 rows).
        #expect(r.outgoing(rowsRequest(3, offset: 0, limit: 1000, sort: [SortKey("n")]), tab: "s"))
        _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows(0..<3)]))
        _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": [["id": "x", "cells": "oops"]]]))
        // The stream is cancelled, and the waiting page fails with the place of the fault.
        #expect(wire.sent.contains { if case .notification("$/cancel", _) = $0 { true } else { false } })
        let failure = wire.delivered.first { if case .failure(.int(3), _) = $0 { true } else { false } }
        guard case .failure(_, let error)? = failure else { Issue.record("request 3 not failed"); return }
        #expect(error.message.contains("plugin s, table root: bad rows: rows/chunk params.rows[0].cells"), "\(error.message)")
        r.removeAll()
    }

    @Test func aCrashMidStreamIsLoggedAndLeavesNoFile() throws {
        let r = opened(paging: false)
        #expect(r.outgoing(rowsRequest(3, offset: 0, limit: 100), tab: "s"))
        guard let (sid, _) = streamRequest() else { Issue.record("no stream request"); return }
        _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows(0..<3)]))
        wire.clear()
        r.pluginEnded(tab: "s")
        #expect(!FileManager.default.fileExists(atPath: r.spoolPath(tab: "s")))
        guard case .notification("log", let p)? = wire.delivered.first, case .object(let o) = p,
              case .string(let text)? = o["message"] else { Issue.record("no log"); return }
        #expect(text.contains("after 3 rows"))
    }
}

extension RouterTests {
    @Test func progressIsReportedAsRowsArrive() throws {
        let r = opened(paging: false)
        #expect(r.outgoing(rowsRequest(3, offset: 0, limit: 100), tab: "s"))
        guard case .request(let sid, _, _)? = wire.sent.last else { Issue.record("no stream request"); return }
        for k in 0..<50 {
            _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows((k * 500)..<((k + 1) * 500))]))
        }
        let done: [JSONValue] = wire.delivered.compactMap {
            if case .notification("progress", .object(let o)) = $0 { o["done"] } else { nil }
        }
        // The stream started with the table's description, before any request: nothing to report
        // then. The first chunk is reported at once: a core request waits for its rows, and it
        // lives on progress (the core's ledger times out a request that hears nothing). Then,
        // the bar showing, every chunk: a stream that pauses leaves it at the rows received
        // (it once stayed at 500 while 10,000 had come, and a test waiting for it hung).
        #expect(done == (1...50).map { JSONValue.int(Int64($0 * 500)) })
        r.removeAll()
    }

    /// A stream nobody waits for shows no bar until 10,000 rows; then every chunk moves it.
    @Test func aBackgroundStreamReportsFrom10000RowsOn() throws {
        let r = opened(paging: false)
        guard let (sid, _) = streamRequest() else { Issue.record("no stream request"); return }
        for k in 0..<23 {
            _ = feed(r, .notification(method: "rows/chunk", params: ["id": sid.json, "rows": rows((k * 500)..<((k + 1) * 500))]))
        }
        let done: [JSONValue] = wire.delivered.compactMap {
            if case .notification("progress", .object(let o)) = $0 { o["done"] } else { nil }
        }
        #expect(done == (20...23).map { JSONValue.int(Int64($0 * 500)) })
        r.removeAll()
    }
}

extension RouterTests {
    /// The core closes a table (or the plugin ends) while the writer queue answers a page of
    /// it: the files are dropped on the writer queue after the page, never unmapped under it.
    @Test func closingATableWhileItsPageIsAnsweredWaitsForThePage() throws {
        let r = opened(paging: false)
        guard let (sid, _) = streamRequest() else { Issue.record("no stream request"); return }
        #expect(feed(r, .response(id: sid, result: ["generation": 1, "offset": 0, "rows": rows(0..<500), "total": 500])))
        wire.clear()
        // Queued one after the other without waiting: a sorted page, the close, the plugin's end.
        #expect(r.outgoing(rowsRequest(3, offset: 490, limit: 20, sort: [SortKey("name", .descending)]), tab: "s"))
        #expect(!r.outgoing(.notification(method: "close", params: ["table": "root"]), tab: "s"))
        r.pluginEnded(tab: "s")
        // Answered when the queue ran the page before the close; never half read.
        if let ids = wire.rowIDs(3) { #expect(ids.count == 10) }
        #expect(!FileManager.default.fileExists(atPath: r.spoolPath(tab: "s")))
    }

    /// A spool file used off its owner queue stops the program at once (the race it would be
    /// could otherwise crash only now and then).
    @Test func aSpoolFileRefusesAnotherThread() async throws {
        await #expect(processExitsWith: .failure) {
            let file = try SpoolFile(path: NSTemporaryDirectory() + "tabdeck-owner-\(getpid())", owner: DispatchQueue(label: "owner"))
            _ = file.count(SpoolSchema(tableName: "t", columns: []))
        }
    }
}
