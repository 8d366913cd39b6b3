import Foundation
import Testing
import TabdeckTime
import TabdeckProtocol
@testable import TabdeckConformance

/// The `find` check (PROTOCOL.md 11.15): a plugin that finds rows where `rows` pages put them
/// passes; one that ignores `from`, the sort or letter case is rejected with a message naming
/// 11.15; a plugin that does not declare `find` gets no line.
@Suite struct FindCheckTests {
    static let duckdbLauncher = inRepo("Plugins/duckdb/tabdeck-duckdb")
    static let duckdbReady = FileManager.default.isExecutableFile(atPath: inRepo("Plugins/duckdb/.venv/bin/python"))

    func mutant(_ name: String, rows: Int? = nil, wholeTableLimit: Int = 5000, only: [String] = []) throws -> Report {
        var environment = ["MUTANT": name]
        if let rows { environment["MUTANT_ROWS"] = String(rows) }
        var options = CheckOptions(command: Mutation.python, environment: environment, workingDirectory: repo,
                                   wholeTableLimit: wholeTableLimit, clock: SystemClock())
        options.only = only
        return try PluginChecker(options: options).run()
    }

    @Test func aCorrectFindPasses() throws {
        let report = try mutant("find")
        #expect(report.conforms, "\(report.text)")
        #expect(report.warnings == 0, "\(report.text)")
        let find = try #require(report.result("find"), "\(report.text)")
        #expect(find.status == .passed, "\(report.text)")
        // The natural order, a sort with ties and nulls (size), a filter.
        #expect(find.summary.contains("the natural order"), "\(find.summary)")
        #expect(find.summary.contains("sort size desc"), "\(find.summary)")
        #expect(find.summary.contains("filter \""), "\(find.summary)")
        #expect(!find.summary.contains("not decidable"), "\(find.summary)")
    }

    @Test(arguments: [
        ("find-ignores-from", "from 1 forward in the natural order answered offset 0"),
        ("find-unsorted", "in sort size desc answered offset"),
        ("find-case", "answered offset null, but a scan of rows pages finds it first at offset"),
    ])
    func aWrongFindIsRejected(_ name: String, _ message: String) throws {
        let report = try mutant(name)
        let find = try #require(report.result("find"), "\(report.text)")
        #expect(find.status == .failed, "\(report.text)")
        #expect(!report.conforms)
        let failures = find.notes.filter { $0.hasPrefix("✗ ") && !$0.hasPrefix("✗ … and") }
        #expect(!failures.isEmpty && failures.allSatisfy { $0.contains("PROTOCOL.md 11.15") }, "\(report.text)")
        #expect(failures.contains { $0.contains(message) }, "find must say \"\(message)\": \(report.text)")
        #expect(find.summary.contains("11.15"), "\(find.summary)")
    }

    /// Other checks are not affected by the find mutants: only `find` fails.
    @Test func onlyTheFindCheckFailsForAFindMutant() throws {
        let report = try mutant("find-unsorted")
        #expect(report.results.filter { $0.status == .failed }.map(\.name) == ["find"], "\(report.text)")
    }

    @Test func aPluginWithoutFindGetsNoLine() throws {
        let report = try check(Mutation.python)
        #expect(report.result("find") == nil, "\(report.text)")
    }

    @Test func onlyFindRunsFindAlone() throws {
        let report = try mutant("find", only: ["find"])
        #expect(report.result("find")?.status == .passed, "\(report.text)")
        #expect(report.result("locate")?.status == .skipped, "\(report.text)")
    }

    /// A table bigger than the whole-table limit is read in sample pages: finds that land in the
    /// gaps are not decided, none is failed for it, and a wrong find is still caught.
    @Test func aBigTableIsCheckedOnItsSamplePages() throws {
        let good = try mutant("find", rows: 1000, wholeTableLimit: 100, only: ["find"])
        #expect(good.result("find")?.status == .passed, "\(good.text)")
        let bad = try mutant("find-ignores-from", rows: 1000, wholeTableLimit: 100, only: ["find"])
        #expect(bad.result("find")?.status == .failed, "\(bad.text)")
    }

    // MARK: The scan

    static func row(_ id: String, _ cells: [JSONValue]) -> Row { Row(id: id, cells: cells) }

    @Test func aRowHoldsATextByTheFilterRule() {
        #expect(FindCheck.holds(Self.row("a", ["Alpha", 3]), "LPH") == .yes)
        #expect(FindCheck.holds(Self.row("a", [.null, true]), "RUE") == .yes)
        #expect(FindCheck.holds(Self.row("a", [.null, 2048]), "204") == .yes)
        #expect(FindCheck.holds(Self.row("a", ["beta", .null]), "lph") == .no)
        // A number as its source wrote it may match (3331.10 for 3331.1): either answer is taken.
        #expect(FindCheck.holds(Self.row("a", [.double(3331.1)]), "3331.10") == .maybe)
        // Letter case folded beyond ASCII (the Kelvin sign lowers to k): either answer is taken.
        #expect(FindCheck.holds(Self.row("a", ["\u{212A}ilo"]), "kil") == .maybe)
    }

    static func view(_ texts: [String?], complete: Bool = true) -> FindCheck.View {
        let rows = texts.enumerated().map { row("r\($0.offset)", [$0.element.map(JSONValue.string) ?? .null]) }
        return FindCheck.View(name: "the natural order", sort: [], filter: nil,
                              rows: Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($0.offset, $0.element) }),
                              count: rows.count, ordered: rows, positions: Array(rows.indices))
    }

    func verify(_ answer: FindResult, _ request: FindRequest, _ view: FindCheck.View) -> [String] {
        var f = Findings()
        _ = FindCheck.verify(answer, request, view, count: view.count!, into: &f)
        return f.failures
    }

    @Test func answersAreComparedWithTheScan() {
        let v = Self.view(["x", "ab", "x", "AB", "x"])
        let r = FindRequest(table: "root", text: "aB", from: 2, generation: 4)
        #expect(verify(FindResult(generation: 4, offset: 3, row: "r3"), r, v).isEmpty)
        #expect(verify(FindResult(generation: 4, offset: 1, row: "r1"), r, v).first?.contains("finds it first at offset 3") == true)
        #expect(verify(FindResult(generation: 4, offset: 3, row: "r1"), r, v).first?.contains("rows put row r3 at offset 3") == true)
        #expect(verify(FindResult(generation: 5, offset: 3, row: "r3"), r, v).first?.contains("echo the request's 4") == true)
        #expect(verify(FindResult(generation: 4, offset: nil), r, v).first?.contains("answered offset null") == true)
        var wrap = r; wrap.from = 4; wrap.wrap = true
        #expect(verify(FindResult(generation: 4, offset: 1, row: "r1", wrapped: true), wrap, v).isEmpty)
        #expect(verify(FindResult(generation: 4, offset: 1, row: "r1"), wrap, v).first?.contains("expected true") == true)
        var back = r; back.backward = true; back.from = 9
        #expect(verify(FindResult(generation: 4, offset: 3, row: "r3"), back, v).isEmpty)
        var past = r; past.from = 9
        #expect(verify(FindResult(generation: 4, offset: nil), past, v).isEmpty)
        #expect(verify(FindResult(generation: 4, offset: 1, row: "r1"), past, v).first?.contains("not among the positions") == true)
        past.wrap = true  // from past the end with wrap: starting over at row 0 may be said either way
        #expect(verify(FindResult(generation: 4, offset: 1, row: "r1", wrapped: true), past, v).isEmpty)
        #expect(verify(FindResult(generation: 4, offset: 1, row: "r1", wrapped: false), past, v).isEmpty)
    }

    @Test func positionsNotReadAreNotDecided() {
        var v = Self.view(["x", "x", "ab", "x"])
        v.rows[1] = nil  // a gap between sample pages
        var f = Findings()
        let r = FindRequest(table: "root", text: "ab", from: 0, generation: 1)
        #expect(FindCheck.verify(FindResult(generation: 1, offset: 2, row: "r2"), r, v, count: 4, into: &f) == false)
        #expect(FindCheck.verify(FindResult(generation: 1, offset: 0, row: "r0"), r, v, count: 4, into: &f) == true)
        #expect(f.failures.count == 1 && f.failures[0].contains("PROTOCOL.md 11.15"))
    }

    // MARK: The DuckDB plugin

    @Test(.enabled(if: duckdbReady, "needs Plugins/duckdb/.venv (Scripts/setup)"))
    func theDuckDBPluginPasses() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var csv = "name,size,day\n"
        for i in 0..<120 {
            let name = ["Alpha", "bravo", "CHARLIE", "delta"][i % 4] + "-\(i % 9)"
            csv += "\(i % 17 == 0 ? "" : name),\(i % 7 == 0 ? "" : String(i % 5)),2024-01-\(String(format: "%02d", 1 + i % 28))\n"
        }
        let path = write(csv, to: folder + "/people.csv")
        var options = CheckOptions(command: [Self.duckdbLauncher], args: ["path": .string(path)], timeout: .seconds(30),
                                   handshakeTimeout: .seconds(20), workingDirectory: repo, clock: SystemClock())
        options.only = ["find"]
        let report = try PluginChecker(options: options).run()
        let find = try #require(report.result("find"), "\(report.text)")
        #expect(find.status == .passed, "\(report.text)")
        #expect(find.summary.contains("sort ") && find.summary.contains("filter \""), "\(find.summary)")
    }
}
