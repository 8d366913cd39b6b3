import Foundation
import Testing
import TabdeckProtocol
import TabdeckSupervisor
@testable import TabdeckConformance

/// The lines of a trace file, `2026-11-22T10:00:00.123Z tab → {...}`, split up (malformed ones left out).
func traceLines(_ path: String) -> [(tab: String, mark: String, text: String)] {
    let traceLine = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (\S+) (→|←|!) (.*)/
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
        guard let m = String(line).wholeMatch(of: traceLine) else { return nil }
        return (String(m.1), String(m.2), String(m.3))
    }
}

@Suite struct TraceTests {
    @Test func tracerWritesOneLinePerMessage() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tracer = try ProtocolTracer(allTabsPath: folder + "/all.trace", perTab: ["people": folder + "/logs/people.trace"])
        tracer.sent(.request(id: .int(1), method: "initialize", params: ["protocolVersion": 1]), tab: "people")
        tracer.record(.message(tab: "people", .response(id: .int(1), result: ["protocolVersion": 1])))
        tracer.record(.stderrLine(tab: "people", line: "not protocol"))
        tracer.record(.protocolViolation(tab: "other", reason: "malformed line\r\nwith a newline"))
        tracer.record(.timedOut(tab: "other", id: .int(9), method: "rows", after: 10))
        tracer.record(.exited(tab: "other", .exited(3), pending: [.int(9)]))
        let all = traceLines(folder + "/all.trace")
        #expect(all.count == 5, "every line is well-formed and stderr is left out: \(all)")
        #expect(all[0].mark == "→" && all[0].text == #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#)
        #expect(all[1].mark == "←" && all[1].text.contains(#""result":{"protocolVersion":1}"#))
        #expect(all[2].tab == "other" && all[2].mark == "!" && all[2].text.contains("malformed line\\r\\nwith"))
        #expect(all[3].text.contains("no answer to rows (id 9) within 10 s"))
        #expect(all[4].text == "exited with status 3; unanswered: 9")
        let people = traceLines(folder + "/logs/people.trace")
        #expect(people.map(\.mark) == ["→", "←"], "the per-tab file has only its tab")
        #expect(!tracer.traces("nobody") == false, "with an all-tabs file every tab is traced")
    }

    @Test func concurrentWritersNeverInterleave() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tracer = try ProtocolTracer(allTabsPath: folder + "/all.trace")
        let big = String(repeating: "x", count: 10_000)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<50 {
                tracer.sent(.notification(method: "status", params: ["text": .string("\(worker)-\(i)-\(big)")]), tab: "t\(worker)")
            }
        }
        let lines = traceLines(folder + "/all.trace")
        #expect(lines.count == 400)
        #expect(lines.allSatisfy { $0.text.hasSuffix(#"x"}}"#) })
    }

    @Test func checkerWritesATrace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try check(["bash", "docs/examples/hello.sh"], tracePath: folder + "/check.trace")
        #expect(report.conforms)
        let lines = traceLines(folder + "/check.trace")
        #expect(lines.contains { $0.mark == "→" && $0.text.contains(#""method":"initialize""#) })
        #expect(lines.contains { $0.mark == "←" && $0.text.contains(#""protocolVersion":1"#) })
        #expect(lines.contains { $0.mark == "→" && $0.text.contains(#""method":"$/cancel""#) })
        #expect(lines.contains { $0.mark == "→" && $0.text.contains("oops") }, "the raw malformed line is traced as sent")
        #expect(lines.contains { $0.mark == "!" && $0.text == "exited with status 0" })
    }

    @Test(.enabled(if: tabdeckIsBuilt, "needs .build/debug/tabdeck (swift build)"))
    func lineModeRunWithTrace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        write(#"""
        {"tabs": [
          {"id": "hello", "title": "Hello", "command": ["python3", "\#(inRepo("docs/examples/hello.py"))"]},
          {"id": "sh", "title": "Sh", "command": ["bash", "\#(inRepo("docs/examples/hello.sh"))"], "trace": true}
        ]}
        """#, to: folder + "/config.json")
        let out = try run([tabdeckBinary, "--line", "--config", folder + "/config.json", "--state-dir", folder + "/state",
                           "--trace", folder + "/all.trace"],
                          input: "show 3\ntab select sh\nshow 2\n", in: folder)
        #expect(out.status == 0, "\(out.err)")
        #expect(out.out.contains("item 7919"), "the table was shown: \(out.out)")
        let all = traceLines(folder + "/all.trace")
        for tab in ["hello", "sh"] {
            #expect(all.contains { $0.tab == tab && $0.mark == "→" && $0.text.contains(#""method":"initialize""#) }, "\(all)")
            #expect(all.contains { $0.tab == tab && $0.mark == "←" && $0.text.contains(#""protocolVersion":1"#) })
            #expect(all.contains { $0.tab == tab && $0.mark == "→" && $0.text.contains(#""method":"rows""#) })
            #expect(all.contains { $0.tab == tab && $0.mark == "!" && $0.text.hasPrefix("exited with status") })
        }
        // "trace": true: the tab's own file in <state>/logs.
        let sh = traceLines(folder + "/state/logs/sh.trace")
        #expect(!sh.isEmpty && sh.allSatisfy { $0.tab == "sh" })
        #expect(sh.contains { $0.mark == "→" && $0.text.contains(#""method":"initialize""#) })
        #expect(!FileManager.default.fileExists(atPath: folder + "/state/logs/hello.trace"))
    }

    @Test(.enabled(if: tabdeckIsBuilt, "needs .build/debug/tabdeck (swift build)"))
    func pluginCheckCommand() throws {
        let good = try run([tabdeckBinary, "plugin", "check", "--", "bash", "docs/examples/hello.sh"])
        #expect(good.status == 0, "\(good.out)\(good.err)")
        let lines = good.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "tabdeck plugin check: bash docs/examples/hello.sh")
        #expect(lines.contains { $0.hasPrefix("✓ handshake") })
        #expect(lines.last?.wholeMatch(of: /\d+ passed, 0 failed/) != nil, "\(good.out)")

        let json = try run([tabdeckBinary, "plugin", "check", "--json", "--timeout", "5",
                            "--args", #"{"mode":"crash-on-rows"}"#, "python3", "Plugins/fixtures/broken_plugin.py"])
        #expect(json.status == 1)
        let report = try JSONParser.parse(json.out.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["conforms"] == false)
        let checks = report["checks"]?.arrayValue ?? []
        #expect(checks.contains { $0["name"] == "paging: first page" && $0["status"] == "failed" }, "\(json.out)")

        let usage = try run([tabdeckBinary, "plugin", "check", "--args", "[1]", "x"])
        #expect(usage.status == 64 || usage.status == 2, "usage errors: \(usage.status) \(usage.err)")
    }
}
