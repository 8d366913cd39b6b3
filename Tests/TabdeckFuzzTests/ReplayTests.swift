import Foundation
import Testing
@testable import TabdeckFuzzTargets
import TabdeckProtocol

/// Every seed and every input that ever broke a fuzz target (`Tests/Fuzz/corpus/TARGET`,
/// `Tests/Fuzz/findings/TARGET`) is replayed through the target's invariants here, so a
/// finding stays found after its fix.
@Suite struct ReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz").path

    static func inputs(_ kind: String, _ target: String) -> [String] {
        let folder = root + "/" + kind + "/" + target
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    @Test(arguments: FuzzTargets.all.map(\.name))
    func everySeedAndFindingHoldsTheInvariants(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let seeds = Self.inputs("corpus", name)
        #expect(!seeds.isEmpty, "the target \(name) has a seed corpus")
        for file in seeds + Self.inputs("findings", name) {
            let bytes = Array(try #require(FileManager.default.contents(atPath: file)))
            #expect(target.check(bytes) == nil, "\(file)")
        }
    }

    /// The checks are not vacuous: what breaks an invariant is caught.
    @Test func theChecksCatchWhatTheyMust() {
        // The line splitter's reference: `\r` dropped before `\n`, the limit counts it.
        #expect(LinesTarget.reference(Array("a\r\nbc".utf8), limit: 4) == [.line(Array("a".utf8)), .line(Array("bc".utf8))])
        #expect(LinesTarget.reference(Array("a\r\nbc".utf8), limit: 1) == [.overlong(byteCount: 2), .overlong(byteCount: 2)])
        // The differential comparison sees a different number, a number for a boolean, a missing key.
        #expect(FoundationJSON.disagreement(.int(1), NSNumber(value: 2)) != nil)
        #expect(FoundationJSON.disagreement(.bool(true), NSNumber(value: 1)) != nil)
        #expect(FoundationJSON.disagreement(.int(1), NSNumber(value: true)) != nil)
        #expect(FoundationJSON.disagreement(["a": 1], ["b": NSNumber(value: 1)]) != nil)
        #expect(FoundationJSON.disagreement(["a": [1, "x"]], ["a": [NSNumber(value: 1), "x"]]) == nil)
        // The sanitizer's list of forbidden characters is its own: ESC, C1, RLO.
        #expect(SanitizerTarget.forbidden("\u{1b}") && SanitizerTarget.forbidden("\u{85}") && SanitizerTarget.forbidden("\u{202e}"))
        #expect(!SanitizerTarget.forbidden("é"))
        // The sniffer's checks pass on a plain CSV (every seed and finding is replayed above).
        #expect(SourcesTarget.check([0] + Array("id,name\n1,ann\n".utf8)) == nil)
        // The pipe reader's checks pass on aligned columns read in pieces of 3 bytes.
        #expect(PipeTarget.check([2] + Array("NAME  QTY\nbolt    3\nnut    12\n".utf8)) == nil)
        #expect(FuzzTargets.all.map(\.name) == ["codec", "lines", "keys", "config", "command", "sanitizer", "csv", "state", "spool", "pipe", "sources", "where"])
    }
}

/// The byte scans that decide which documented difference applies.
@Suite struct DifferenceScanTests {
    @Test func numbersCommasAndDepthAreSeenOutsideStringsOnly() {
        #expect(FoundationJSON.hasLongNumber(Array("[1234567890123456]".utf8)))
        #expect(FoundationJSON.hasLongNumber(Array("[1e5]".utf8)))
        #expect(!FoundationJSON.hasLongNumber(Array(#"["1234567890123456", 12.5]"#.utf8)))
        #expect(FoundationJSON.hasTrailingComma(Array("[1, ]".utf8)))
        #expect(!FoundationJSON.hasTrailingComma(Array(#"[",]", 1]"#.utf8)))
        #expect(FoundationJSON.depth(Array(#"[[{"a":"[[["}]]"#.utf8)) == 3)
    }
}
