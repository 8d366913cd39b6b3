import Testing
import SeededRandom
@testable import TabdeckProtocol

@Suite struct SanitizerTests {
    @Test func controlsAndEscapesAreShownEscaped() {
        #expect(Sanitizer.clean("a\u{1B}[31mb\u{07}\n\r\tc\u{7F}\u{9B}") == "a\\e[31mb\\x07\\n\\r c\\x7f\\x9b")
    }

    @Test func bidiOverridesAreEscapedSoTextReadsAsItIs() {
        #expect(Sanitizer.clean("invoice\u{202E}fdp.exe") == "invoice\\u202efdp.exe")
        #expect(Sanitizer.clean("\u{2066}x\u{2069}\u{200F}\u{61C}") == "\\u2066x\\u2069\\u200f\\u61c")
    }

    @Test func ordinaryTextIsUntouched() {
        let text = "山田太郎 naïve ‘quotes’ — ok 👍"
        #expect(Sanitizer.clean(text) == text)
    }

    /// Every scalar the sanitizer must escape, and ordinary neighbours of each range.
    static let unsafeScalars: [Unicode.Scalar] = (0..<0x20).map { Unicode.Scalar($0)! } + (0x7F..<0xA0).map { Unicode.Scalar($0)! }
        + [0x61C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069].map { Unicode.Scalar($0)! }
    static let safeScalars: [Unicode.Scalar] = ["a", "\\", "e", "x", "u", "[", "]", ";", "\"", " ", "\u{A0}", "\u{FF}", "\u{61B}",
        "\u{61D}", "\u{200D}", "\u{2010}", "\u{2029}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{301}", "山", "👍", "\u{FFFD}"]

    /// Random strings of unsafe and safe scalars (seeded: the same cases every run).
    static func randomStrings(count: Int) -> [String] {
        var random = SplitMix(seed: 0x5A71_7153)
        return (0..<count).map { _ in
            var s = String.UnicodeScalarView()
            for _ in 0..<random.below(24) {
                let pool = random.below(2) == 0 ? unsafeScalars : safeScalars
                s.append(pool[random.below(pool.count)])
            }
            return String(s)
        }
    }

    @Test func noUnsafeScalarSurvivesAndCleaningTwiceChangesNothing() {
        for unsafe in Self.unsafeScalars {
            #expect(Sanitizer.isUnsafe(unsafe))
            let cleaned = Sanitizer.clean("a" + String(unsafe) + "b")
            #expect(!cleaned.unicodeScalars.contains(where: Sanitizer.isUnsafe), "U+\(String(unsafe.value, radix: 16))")
        }
        for safe in Self.safeScalars { #expect(!Sanitizer.isUnsafe(safe), "U+\(String(safe.value, radix: 16))") }
        for text in Self.randomStrings(count: 2000) {
            let once = Sanitizer.clean(text)
            #expect(!once.unicodeScalars.contains(where: Sanitizer.isUnsafe), "\(text.debugDescription)")
            #expect(Sanitizer.clean(once) == once, "\(text.debugDescription)")
            let lines = Sanitizer.cleanLines(text)
            #expect(!lines.unicodeScalars.contains { $0 != "\n" && Sanitizer.isUnsafe($0) }, "\(text.debugDescription)")
            #expect(lines.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count
                    == text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count)
            #expect(Sanitizer.cleanLines(lines) == lines)
            #expect(Sanitizer.clean(utf8: Array(text.utf8)) == once)
        }
    }

    @Test func terminalSafeJSONIsLosslessAndHoldsNoControl() throws {
        let texts = Self.randomStrings(count: 2000)
        for text in texts {
            let value: JSONValue = ["k" + text: .string(text), "list": [.string(text), 1, .null]]
            let safe = JSONWriter.string(value, terminalSafe: true)
            #expect(!safe.unicodeScalars.contains(where: Sanitizer.isUnsafe), "\(safe.debugDescription)")
            #expect(try JSONParser.parse(safe) == value, "\(text.debugDescription)")
            // The protocol's encoding is untouched.
            #expect(JSONWriter.string(value, terminalSafe: false) == JSONWriter.string(value))
        }
        #expect(JSONWriter.string(.string("a\u{9B}b\u{202E}c\u{7F}\u{1B}"), terminalSafe: true) == #""a\u009bb\u202ec\u007f\u001b""#)
        #expect(JSONWriter.string(.string("a\u{9B}b"), terminalSafe: false) == "\"a\u{9B}b\"")
    }

    @Test func lineModeTextKeepsItsLinesAndCleansEachOne() {
        #expect(Sanitizer.cleanLines("one\u{1B}[2J\ntwo\rthree\n") == "one\\e[2J\ntwo\\rthree\n")
        #expect(Sanitizer.cleanLines("plain\ntext") == "plain\ntext")
    }

    @Test func invalidUTF8FromAPluginIsShownByteForByte() {
        #expect(Sanitizer.clean(utf8: [0x61, 0xFF, 0x1B, 0x5B, 0xC2, 0x9B]) == "a\\xff\\e[\\x9b")
        #expect(Sanitizer.clean(utf8: [0x9B, 0x32, 0x4A, 0xE2, 0x80, 0xAE, 0xE2, 0x80]) == "\\x9b2J\\u202e\\xe2\\x80")
        #expect(Sanitizer.clean(utf8: Array("caf\u{E9} 山 👍".utf8)) == "caf\u{E9} 山 👍")
    }
}
