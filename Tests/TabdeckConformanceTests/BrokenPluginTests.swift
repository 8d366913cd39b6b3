import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// Deliberately broken plugins fail the check that is about what they break.
@Suite struct BrokenPluginTests {
    static let broken = ["python3", "Plugins/fixtures/broken_plugin.py"]

    func checkBroken(_ mode: String, timeout: Duration = .seconds(10)) throws -> Report {
        try check(Self.broken, environment: ["BROKEN_MODE": mode], timeout: timeout)
    }

    @Test func wrongProtocolVersionFailsTheHandshake() throws {
        let report = try checkBroken("wrong-version")
        #expect(!report.conforms)
        #expect(report.result("handshake")?.status == .failed)
        #expect(report.result("handshake")?.notes.contains { $0.contains("plugin speaks protocol 99, host speaks 1") } == true,
                "\(report.text)")
        #expect(report.result("open")?.status == .skipped)
        // The host still stops it properly.
        #expect(report.result("shutdown")?.status == .passed, "\(report.text)")
        #expect(report.plugin?.protocolVersion == 99)
    }

    @Test func aFilterThatKeepsEveryRowFailsTheFilterCheck() throws {
        let report = try checkBroken("ignore-filter")
        let filter = report.result("filter")
        #expect(filter?.status == .failed, "\(report.text)")
        #expect(filter?.notes.contains { $0.contains("a filter no row contains kept 10 rows") } == true, "\(report.text)")
        #expect(report.plugin?.capabilities.contains("filter") == true)
        #expect(!report.conforms)
        // Without the capability the check is skipped.
        #expect(try checkBroken("").result("filter")?.status == .skipped)
    }

    @Test func crashOnRowsFailsTheFirstPage() throws {
        let report = try checkBroken("crash-on-rows")
        let first = report.result("paging: first page")
        #expect(first?.status == .failed)
        #expect(first?.summary.contains("exited with status 3") == true, "\(report.text)")
        #expect(first?.notes.contains { $0.contains("crashing on purpose") } == true, "stderr is shown: \(report.text)")
        #expect(report.result("handshake")?.status == .passed)
        #expect(report.result("open")?.status == .passed)
        #expect(report.result("sort")?.status == .skipped)
        #expect(!report.conforms)
    }

    @Test func garbageOnStdoutFailsOpen() throws {
        let report = try checkBroken("garbage")
        let open = report.result("open")
        #expect(open?.status == .failed)
        #expect(open?.summary.contains("cannot accept") == true, "\(report.text)")
        #expect(open?.notes.first?.contains("malformed line") == true)
        #expect(report.result("errors: malformed line")?.status == .failed, "garbage also follows its -32700 answers")
        #expect(!report.conforms)
    }

    @Test func hangOnRowsTimesOut() throws {
        let report = try checkBroken("hang-on-rows", timeout: .seconds(1))
        let first = report.result("paging: first page")
        #expect(first?.status == .failed)
        #expect(first?.summary.contains("no answer to rows") == true, "\(report.text)")
        // What does not need rows still runs, and a hung rows does not cost a timeout per check.
        #expect(report.result("errors: unknown method")?.status == .passed)
        #expect(report.result("shutdown")?.status == .passed, "\(report.text)")
        #expect(report.result("sort")?.status == .skipped)
        // One timeout in the whole run, whatever the machine's load: counted, not timed.
        let timeouts = report.results.filter { result in
            ([result.summary] + result.notes).contains { $0.contains("no answer to") }
        }
        #expect(timeouts.map(\.name) == ["paging: first page"], "\(report.text)")
        #expect(!report.conforms)
    }

    @Test func wrongSortOrderIsCaught() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = write(TinyPlugin.source, to: folder + "/tiny.py")
        let report = try check(["python3", plugin, "wrong-order"])
        #expect(report.result("sort: n desc")?.status == .passed, "\(report.text)")
        #expect(report.result("sort: word asc")?.status == .passed)
        let desc = report.result("sort: word desc")
        #expect(desc?.status == .failed, "\(report.text)")
        #expect(desc?.notes.contains { $0.contains("out of order for word desc") } == true, "\(report.text)")
        #expect(!report.conforms)
        #expect(report.failed == 1)
    }

    @Test func duplicateIDsAreCaught() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = write(TinyPlugin.source, to: folder + "/tiny.py")
        let report = try check(["python3", plugin, "duplicate-ids"])
        #expect(report.result("paging: first page")?.status == .passed, "the duplicate is on a later page")
        let whole = report.result("paging: whole table")
        #expect(whole?.status == .failed, "\(report.text)")
        #expect(whole?.notes.contains { $0.contains("id r5 is used by rows 5 and 1200") } == true, "\(report.text)")
        #expect(!report.conforms)
    }

    @Test func aMissingProgramFailsTheHandshake() throws {
        let report = try check(["/nonexistent/tabdeck-plugin"])
        #expect(report.result("handshake")?.status == .failed)
        #expect(report.result("handshake")?.summary.contains("cannot start") == true, "\(report.text)")
        #expect(report.results.dropFirst().allSatisfy { $0.status == .skipped }, "\(report.text)")
        #expect(!report.conforms)
    }
}

/// A tiny plugin (stdlib Python) with a fault chosen by its first argument:
/// `wrong-order` ignores the direction of a sort by `word` (always ascending);
/// `duplicate-ids` serves 1,500 rows where row 1200 reuses the id of row 5.
enum TinyPlugin {
    static let source = #"""
import json, sys
mode = sys.argv[1]
count = 1500 if mode == "duplicate-ids" else 5
words = ["delta", "alpha", "charlie", "bravo", "echo"]
rows = [{"id": "r5" if mode == "duplicate-ids" and i == 1200 else "r%d" % i, "cells": [i, words[i % 5]]}
        for i in range(count)]

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

def error(id, code, message):
    send({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        error(None, -32700, "parse error")
        continue
    if not isinstance(msg, dict) or "id" not in msg:
        continue
    id, method, p = msg["id"], msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        result = {"name": mode, "version": "0", "protocolVersion": 1, "capabilities": {"sort": True}}
    elif method == "open":
        result = {"table": "root", "columns": [{"id": "n", "type": "integer"}, {"id": "word"}], "total": count}
    elif method == "rows":
        if p.get("table") != "root":
            error(id, -32001, "unknown table")
            continue
        offset, limit = p.get("offset"), p.get("limit")
        if not isinstance(offset, int) or not isinstance(limit, int) or offset < 0 or limit < 0:
            error(id, -32602, "bad offset or limit")
            continue
        data = list(rows)
        bad = False
        for key in p.get("sort") or []:
            i = {"n": 0, "word": 1}.get(key.get("column"))
            if i is None:
                bad = True
                break
            desc = key.get("direction") == "desc" and not (mode == "wrong-order" and i == 1)
            data.sort(key=lambda r: r["cells"][i], reverse=desc)
        if bad:
            error(id, -32602, "unknown column")
            continue
        result = {"generation": p.get("generation"), "offset": offset, "rows": data[offset:offset + limit], "total": count}
    elif method == "shutdown":
        result = None
    else:
        error(id, -32601, "method not found")
        continue
    send({"jsonrpc": "2.0", "id": id, "result": result})
"""#
}
