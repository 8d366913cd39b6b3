import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckConformance

/// Every plugin we ship passes the conformance checker (warnings allowed).
@Suite struct ShippedPluginTests {
    func expectConforms(_ report: Report, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(report.conforms, "\(report.text)", sourceLocation: sourceLocation)
        #expect(report.failed == 0, sourceLocation: sourceLocation)
        #expect(report.result("shutdown")?.status == .passed, sourceLocation: sourceLocation)
        #expect(report.result("errors: malformed line")?.status == .passed, sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: csvIsBuilt, "needs .build/debug/tabdeck-csv (swift build)"))
    func csvPlugin() throws {
        let report = try check([csvBinary], args: ["path": .string(inRepo("Plugins/csv/sample/people.csv"))])
        expectConforms(report)
        // Only what CSV does not declare (sections, children, actions) or send (invalidate) is not run.
        #expect(report.results.filter { $0.status == .skipped }.map(\.name) == ["sections", "children", "actions", "invalidate"], "\(report.text)")
        #expect(report.result("sort: name desc")?.status == .passed, "CSV sorts text by Unicode scalars")
    }

    @Test func processesPlugin() throws {
        let report = try check(["python3", "Plugins/processes/processes.py"])
        expectConforms(report)
        #expect(report.plugin?.capabilities.contains("live") == true)
    }

    @Test func pythonSDKExample() throws {
        let report = try check(["python3", "Plugins/sdk/python/example_plugin.py"])
        expectConforms(report)
        // The SDK sorts text in the protocol's order (UTF-8 bytes): no warning.
        #expect(report.result("sort: name asc")?.status == .passed, "\(report.text)")
        #expect(report.warnings == 0, "\(report.text)")
        #expect(report.result("sort: non-sortable columns")?.status == .passed)
    }

    /// The SDK's example with sections: every part of the protocol at once, every check run.
    @Test func pythonSDKExampleUsesEveryFeature() throws {
        let report = try check(["python3", "Plugins/sdk/python/example_plugin.py"], args: ["sections": true])
        expectConforms(report)
        for name in ["sections", "children", "close", "actions", "filter", "filter: integer column age", "filter: decimal column score",
                     "filter: date column joined", "sort: ties across pages", "cancel"] {
            #expect(report.result(name)?.status == .passed, "\(name): \(report.text)")
        }
        #expect(report.skipped == 0, "\(report.text)")
    }

    /// The Swift kit's example: every part of the protocol, every check run and passed, no warning.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: inRepo(".build/debug/tabdeck-kit-example")), "needs swift build"))
    func swiftKitExampleUsesEveryFeature() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try check([inRepo(".build/debug/tabdeck-kit-example")], tracePath: folder + "/check.trace")
        expectConforms(report)
        #expect(report.skipped == 0 && report.warnings == 0, "\(report.text)")
        #expect(report.result("sections")?.summary.contains("filtered by") == true, "\(report.text)")
        #expect(report.result("locate")?.status == .passed, "\(report.text)")
        // Used, not only declared: the trace shows progress while sorting, and locate answered with a row.
        let lines = traceLines(folder + "/check.trace")
        #expect(lines.contains { $0.mark == "←" && $0.text.contains(#""method":"progress""#) && $0.text.contains("reading sort keys") })
        let locates = lines.filter { $0.mark == "→" && $0.text.contains(#""method":"locate""#) }
        #expect(locates.count >= 2, "locate asked in the natural and a sorted order")
        #expect(lines.contains { $0.mark == "←" && $0.text.contains(#""row":"f"#) && $0.text.contains(#""offset":"#) }, "a locate answer with a row")
    }

    /// The files and sqlite plugins filter every cell's text, numbers and dates too (PROTOCOL.md 11.3).
    @Test func filesPlugin() throws {
        let report = try check(["python3", "Plugins/files/files.py"], args: ["path": .string(inRepo("docs"))])
        expectConforms(report)
        #expect(report.result("filter: integer column size")?.status == .passed, "\(report.text)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: inRepo(".build/debug/tabdeck-sqlite")), "needs swift build"))
    func sqlitePlugin() throws {
        let report = try check([inRepo(".build/debug/tabdeck-sqlite")], args: ["path": .string(inRepo("Plugins/sqlite/sample/sample.sqlite"))])
        expectConforms(report)
        #expect(report.result("filter: integer column rows")?.status == .passed, "\(report.text)")
    }

    @Test func helloPython() throws {
        let report = try check(["python3", "docs/examples/hello.py"])
        expectConforms(report)
        #expect(report.warnings == 0, "\(report.text)")
        // 10,000 rows: more than the whole-table limit, so the sorts are checked on samples.
        #expect(report.result("sort: price desc")?.summary.contains("sample pages") == true)
    }

    @Test func helloBash() throws {
        let report = try check(["bash", "docs/examples/hello.sh"])
        expectConforms(report)
        #expect(report.warnings == 0, "\(report.text)")
        #expect(report.result("sort")?.status == .skipped, "hello.sh does not declare sort")
    }
}
