import Foundation
import Testing

/// One Tabdeck per state folder, and `select all` that reads no rows, with the real binary.
@Suite(.enabled(if: Bin.built, Comment(rawValue: Bin.missing)))
struct StateSafetyTests {
    let dir = TempDir()

    /// A config with one tab of 1,000,000 rows served by arithmetic (no table in memory), so
    /// that any `rows` request would show in the trace and cost nothing to answer.
    func millionConfig() throws -> String {
        let plugin = try dir.write("million.py", #"""
            import json, sys
            N = 1000000
            def handle(m, p):
                if m == "initialize":
                    return {"name": "million", "version": "1", "protocolVersion": 1, "capabilities": {"sort": True, "actions": True}}
                if m == "open":
                    return {"table": "root", "title": "million", "total": N,
                            "columns": [{"id": "n", "title": "N", "type": "integer"}],
                            "actions": [{"id": "touch", "title": "Touch", "multiple": True}]}
                if m == "rows":
                    desc = any(k["direction"] == "desc" for k in p["sort"])
                    ns = range(p["offset"], min(N, p["offset"] + p["limit"]))
                    rows = [{"id": f"r{N - 1 - n if desc else n}", "cells": [N - 1 - n if desc else n]} for n in ns]
                    return {"generation": p["generation"], "offset": p["offset"], "rows": rows, "total": N}
                if m == "action":
                    return {"message": f"touched {len(p['rows'])}"}
                return None
            for line in sys.stdin:
                msg = json.loads(line)
                if "id" in msg:
                    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": handle(msg["method"], msg.get("params") or {})}), flush=True)
            """#)
        return try dir.write("config.json", """
            {"tabs": [{"id": "million", "title": "Million", "command": ["python3", "\(plugin)"]}]}
            """)
    }

    func rowsRequests(_ trace: String) -> [String] {
        ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.contains("→") && $0.contains(#""method":"rows""#) }.map(String.init)
    }

    @Test func aSecondInstanceIsRefusedNamingTheFirst() async throws {
        let config = try millionConfig()
        let args = ["--line", "--config", config, "--state-dir", dir.state]
        let first = try LiveTabdeck(args)
        first.send("tabs\n")
        #expect(await first.waitForOutput("Million"), "the first instance did not start: \(first.err)")
        let second = try await tabdeck(args, input: "select all\n")
        #expect(second.status == 2, "\(second)")
        #expect(second.err.contains("tabdeck: the state folder \(dir.state) is in use by tabdeck pid \(first.process.processIdentifier) ("),
                "\(second)")
        #expect(second.err.contains(", line mode, commands from stdin); quit that one first"), "\(second)")
        #expect(second.out.isEmpty)
        // The first one is untouched and saves as before; once it quits, the folder is free.
        first.send("select 7\nquit\n")
        let done = await first.finish()
        #expect(done.status == 0, "\(done)")
        let third = try await tabdeck(args, input: "selection\n")
        #expect(third.status == 0, "\(third)")
        #expect(third.out.contains("1 selected: 7"), "\(third)")
    }

    @Test func selectAllAndTheNextStartReadNoRows() async throws {
        let config = try millionConfig()
        let trace1 = dir.file("first.trace"), trace2 = dir.file("second.trace")
        let run = try await tabdeck(["--line", "--config", config, "--state-dir", dir.state, "--trace", trace1],
                                    input: "select all\nunselect r5\nselection\nquit\n")
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.prefix(3) == ["all 1,000,000 selected", "999,999 selected (all but 1)",
                                       "999,999 selected (all but 1): except r5"], "\(run)")
        #expect(rowsRequests(trace1).isEmpty, "select all read rows: \(rowsRequests(trace1).prefix(3))")
        let next = try await tabdeck(["--line", "--config", config, "--state-dir", dir.state, "--trace", trace2],
                                     input: "selection\n")
        #expect(next.status == 0, "\(next)")
        #expect(next.out == "999,999 selected (all but 1): except r5\n", "\(next)")
        #expect(rowsRequests(trace2).isEmpty, "start-up after select all read rows: \(rowsRequests(trace2).prefix(3))")
    }

    /// The protocol sends an action its row ids in one message: an "all" selection of a
    /// million rows is refused at once, without reading them.
    @Test func anActionOnAMillionSelectedRowsIsRefusedAtOnce() async throws {
        let config = try millionConfig()
        let trace = dir.file("action.trace")
        let run = try await tabdeck(["--line", "--config", config, "--state-dir", dir.state, "--trace", trace],
                                    input: "select all\nunselect r0 r1\naction touch\n")
        #expect(run.status == 1, "\(run)")
        #expect(run.err.contains("error: action Touch on 999,998 rows: an action takes at most 100,000 rows"), "\(run)")
        #expect(rowsRequests(trace).isEmpty)
    }
}
