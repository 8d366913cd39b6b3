import SeededRandom
import TabdeckProtocol
import Testing

/// The byte path of `replacingScalar` (an ASCII scalar) against the scalar-by-scalar rule.
@Suite struct ScalarTextTests {
    /// The rule itself: every scalar equal to `scalar` replaced, the others kept.
    func reference(_ text: String, _ scalar: Unicode.Scalar, _ replacement: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if s == scalar { out.append(contentsOf: replacement.unicodeScalars) } else { out.append(s) }
        }
        return String(out)
    }

    @Test func anASCIIScalarIsReplacedAsTheScalarRuleSays() {
        let pieces = ["\"", "\"\u{031B}", "\r\n", "\n", "'", ",", "é", "🙂", "明", "a", "\\", "\u{0}", " "]
        var random = SplitMix(seed: 23)
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            for (scalar, replacement) in [("\"", "\"\""), ("'", "'\\''"), ("\n", "\\n"), ("é", "e")] as [(Unicode.Scalar, String)] {
                #expect(text.replacingScalar(scalar, with: replacement) == reference(text, scalar, replacement), "\(Array(text.unicodeScalars))")
            }
        }
    }
}
