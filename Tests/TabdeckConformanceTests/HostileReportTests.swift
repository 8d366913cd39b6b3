import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// `tabdeck plugin check` on a plugin whose every string is hostile (issue #10, point 6): the
/// readable report holds no raw control or bidi character, and its JSON (written
/// terminal-safe, as the command does) reads back to the plugin's own strings.
@Suite struct HostileReportTests {
    static let plugin = #"""
    import json, sys
    N = "\x1b]0;pwned\x07 \x9b2J \u202efdp.exe \u2066x\x7f \r\n"
    sys.stderr.write(N + "stderr\n"); sys.stderr.flush()
    for line in sys.stdin:
        m = json.loads(line)
        if "id" not in m:
            continue
        method, params = m["method"], m.get("params") or {}
        if method == "initialize":
            r = {"protocolVersion": 1, "name": N + "name", "version": N + "1.0", "capabilities": {}}
        elif method == "open":
            r = {"table": N + "t", "title": N, "columns": [{"id": N + "c", "title": N}], "total": 2}
        elif method == "rows":
            off, lim = params.get("offset", 0), params.get("limit", 2)
            rows = [{"id": N + str(i), "cells": [N + str(i)]} for i in range(off, min(2, off + lim))]
            r = {"generation": params.get("generation", 0), "offset": off, "rows": rows, "total": 2}
        elif method == "shutdown":
            print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": None}), flush=True)
            break
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": N + "no " + method}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    """#

    @Test func theReportOfAHostilePluginIsSafe() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = write(Self.plugin, to: folder + "/hostile.py")
        let report = try check(["python3", script])
        let nasty = "\u{1B}]0;pwned\u{07} \u{9B}2J \u{202E}fdp.exe \u{2066}x\u{7F} \r\n"
        #expect(report.plugin?.name == nasty + "name")
        let text = report.text + "\n" + report.results.flatMap { Report.lines(for: $0) }.joined(separator: "\n")
        for line in text.split(separator: "\n") {
            #expect(!line.unicodeScalars.contains(where: Sanitizer.isUnsafe), "\(String(reflecting: line))")
        }
        #expect(text.contains(Sanitizer.clean(nasty + "name")))
        let json = JSONWriter.string(report.json, terminalSafe: true)
        #expect(!json.unicodeScalars.contains(where: Sanitizer.isUnsafe))
        #expect(try JSONParser.parse(json) == report.json)
    }
}
