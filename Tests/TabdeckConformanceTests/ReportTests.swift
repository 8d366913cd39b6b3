import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckConformance

@Suite struct ReportTests {
    let report = Report(command: ["python3", "my plugin.py"], results: [
        CheckResult(name: "handshake", status: .passed, summary: "demo 1.0, protocol 1", duration: .milliseconds(12)),
        CheckResult(name: "sort: name asc", status: .warning, summary: "in order (case-insensitive)",
                    notes: ["! not in the reference order"], duration: .microseconds(400)),
        CheckResult(name: "cancel", status: .failed, summary: "no answer", duration: .seconds(2)),
        CheckResult(name: "shutdown", status: .skipped, summary: "not run: the plugin exited"),
    ])

    @Test func summaryLineFormat() {
        #expect(report.summaryLine == "1 passed, 1 failed, 1 warnings")
        let clean = Report(command: ["x"], results: [CheckResult(name: "a", status: .passed, summary: "")])
        #expect(clean.summaryLine == "1 passed, 0 failed")
        #expect(clean.conforms)
        #expect(!report.conforms)
        #expect(!Report(command: ["x"]).conforms, "nothing ran: nothing conforms")
    }

    @Test func textHasOneLinePerCheckAndTheSummaryLast() {
        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "tabdeck plugin check: python3 'my plugin.py'")
        #expect(lines.contains { $0.hasPrefix("✓ handshake") && $0.contains("12 ms") })
        #expect(lines.contains { $0.hasPrefix("! sort: name asc") && $0.contains("0.4 ms") })
        #expect(lines.contains { $0.hasPrefix("✗ cancel") && $0.contains("2.00 s") })
        #expect(lines.contains { $0.hasPrefix("- shutdown") && $0.contains("not run") })
        #expect(lines.contains("    ! not in the reference order"))
        #expect(lines.last == "1 passed, 1 failed, 1 warnings")
        #expect(lines.last?.wholeMatch(of: /\d+ passed, \d+ failed(, \d+ warnings)?/) != nil)
    }

    @Test func json() throws {
        let text = JSONWriter.string(report.json)
        let value = try JSONParser.parse(text)
        #expect(value["conforms"] == false)
        #expect(value["passed"] == 1)
        #expect(value["failed"] == 1)
        #expect(value["warnings"] == 1)
        #expect(value["skipped"] == 1)
        let checks = value["checks"]?.arrayValue ?? []
        #expect(checks.count == 4)
        #expect(checks[0]["name"] == "handshake")
        #expect(checks[0]["status"] == "passed")
        #expect(checks[0]["ms"]?.doubleValue == 12)
        #expect(checks[1]["notes"]?.arrayValue?.count == 1)
    }
}

@Suite struct ValidationTests {
    func tableFindings(_ json: String) -> Findings {
        var f = Findings()
        _ = Validate.table(try! JSONParser.parse(json), capabilities: PluginCapabilities(), into: &f)
        return f
    }

    @Test func aGoodTableDescription() {
        let f = tableFindings(#"{"table":"root","title":"t","columns":[{"id":"a","type":"integer","width":5,"align":"right"},{"id":"s","type":"enum","values":["x","y"],"width":{"min":2,"ideal":4,"max":8},"sortable":false},{"id":"d","type":"date"}],"total":null,"extra":1}"#)
        #expect(f.failures.isEmpty && f.warnings.isEmpty, "\(f.failures) \(f.warnings)")
    }

    @Test func badColumns() {
        let f = tableFindings(#"{"table":"root","columns":[{"id":"a","type":"number"},{"id":"a"},{"id":"e","type":"enum"},{"id":"w","width":{"min":9,"max":3}},{"id":"z","width":0,"align":"middle"}],"total":-1}"#)
        let all = f.failures.joined(separator: "\n")
        #expect(all.contains("unknown type"))
        #expect(all.contains("used twice"))
        #expect(all.contains("an enum needs values"))
        #expect(all.contains("width.min 9 is larger than width.max 3"))
        #expect(all.contains("width 0 must be at least 1"))
        #expect(all.contains("align"))
        #expect(all.contains("total"))
    }

    @Test func noColumns() {
        #expect(tableFindings(#"{"table":"root","columns":[]}"#).failures.count == 1)
        #expect(!tableFindings(#"{"columns":[{"id":"a"}]}"#).failures.isEmpty, "the handle is required")
    }

    @Test func rowsAnswers() throws {
        let table = try TableDescription(JSONParser.parse(#"{"table":"root","columns":[{"id":"n","type":"integer"},{"id":"s","type":"enum","values":["x"]}]}"#))
        let request = RowsRequest(table: "root", offset: 10, limit: 2, generation: 7)
        var f = Findings()
        var warnings: [String: String] = [:]
        let good = try JSONParser.parse(#"{"generation":7,"offset":10,"rows":[{"id":1,"cells":[1,"x"]},{"id":"2","cells":[null,null]}],"total":12}"#)
        #expect(Validate.rowsResult(good, request: request, table: table, capabilities: PluginCapabilities(), into: &f, warnings: &warnings) != nil)
        #expect(f.failures.isEmpty && warnings.isEmpty, "\(f.failures) \(warnings)")

        let bad = try JSONParser.parse(#"{"generation":6,"offset":0,"rows":[{"id":"a","cells":[1]},{"id":"a","cells":["one","y"]},{"cells":[[1],2]}]}"#)
        _ = Validate.rowsResult(bad, request: request, table: table, capabilities: PluginCapabilities(), into: &f, warnings: &warnings)
        let all = f.failures.joined(separator: "\n")
        #expect(all.contains("generation is 6, it must echo the request's 7"))
        #expect(all.contains("offset is 0"))
        #expect(all.contains("3 rows for a limit of 2"))
        #expect(all.contains("1 cells for 2 columns"))
        #expect(all.contains("id a appears twice"))
        #expect(all.contains("has no id"))
        #expect(all.contains("a cell must be a string, number, boolean or null"))
        #expect(warnings["cells n"]?.contains("expected an integer") == true, "\(warnings)")
        #expect(warnings["cells s"]?.contains("not one of the enum's values") == true, "\(warnings)")
    }
}
