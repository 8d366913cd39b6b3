import Testing
import SeededRandom
@testable import TabdeckProtocol

/// Numbers sent as text (PROTOCOL.md 10.3, *Exact numbers*): the grammar, one exact order for
/// texts, JSON integers and doubles, and `decimals` rounding on the digits.
@Suite struct ExactNumberTests {
    func n(_ text: String) -> ExactNumber { ExactNumber(text)! }

    @Test func theGrammarPerColumnType() {
        for good in ["0", "-0", "007", "-12", "3.00", "-0.00", "1234444433332222.44434322", "NaN", "Infinity", "-Infinity"] {
            #expect(ExactNumber(good, type: .decimal)?.text == good, "\(good)")
        }
        for bad in ["", "-", "+1", " 1", "1 ", "1.", ".5", "1e5", "1,5", "0x10", "nan", "inf", "-NaN", "Infinityx", "1.2.3", "--1", "١٢"] {
            #expect(ExactNumber(bad, type: .decimal) == nil, "\(bad)")
        }
        // An integer column's texts are digits only.
        #expect(ExactNumber("123456789012345678901234567890", type: .integer) != nil)
        #expect(ExactNumber("1.5", type: .integer) == nil)
        #expect(ExactNumber("NaN", type: .integer) == nil)
        #expect(ExactNumber("1", type: .text) == nil)
        #expect(ExactNumber(cell: .string("3.00"), type: .decimal)?.text == "3.00")
        #expect(ExactNumber(cell: .bool(true), type: .decimal) == nil)
    }

    @Test func valuesPastADoublesPrecisionCompareExactly() {
        // Each pair is one double apart from nothing: the same double.
        #expect(n("1234444433332222.44434321") < n("1234444433332222.44434322"))
        #expect(n("123456789012.12345678") < n("123456789012.12345679"))
        #expect(n("123456789012345678901234567889") < n("123456789012345678901234567890"))
        #expect(n("-123456789012345678901234567890") < n("-123456789012345678901234567889"))
        #expect(n("99999999999999999999") < n("100000000000000000000"))
        #expect(n("0.000000000000000000001") > n("0"))
        #expect(n("-0.000000000000000000001") < n("-0"))
        // Past 64 bits against a JSON integer.
        #expect(ExactNumber(Int64.max) < n("9223372036854775808"))
        #expect(ExactNumber(Int64.min) > n("-9223372036854775809"))
        #expect(ExactNumber(Int64.min) == n("-9223372036854775808"))
    }

    @Test func equalValuesWrittenOtherwiseAreEqual() {
        #expect(n("3.0") == n("3.00") && n("3") == n("3.000") && n("003.10") == n("3.1"))
        #expect(n("-0") == n("0") && n("-0.00") == n("0") && n("-0") == ExactNumber(0.0) && n("0") == ExactNumber(-0.0))
        #expect(ExactNumber(Int64(3)) == n("3.00") && ExactNumber(3.0) == n("3.00") && ExactNumber(959.5) == n("959.50"))
        #expect(Set([n("3.0"), n("3.00"), ExactNumber(Int64(3)), n("-0"), n("0.0")]).count == 2)
        // As sent, all the same.
        #expect(n("3.00").text == "3.00" && n("-0").text == "-0")
    }

    @Test func theInfinitiesAndNaNOrderAsPostgreSQL() {
        let ordered = ["-Infinity", "-123456789012345678901234567890", "-1", "-0.5", "0", "0.5", "1",
                       "123456789012345678901234567890", "Infinity", "NaN"].map(n)
        for i in ordered.indices {
            for j in ordered.indices {
                #expect(ExactNumber.compare(ordered[i], ordered[j]) == (i < j ? -1 : i > j ? 1 : 0), "\(ordered[i]) \(ordered[j])")
            }
        }
        #expect(ExactNumber(Double.infinity) == n("Infinity") && ExactNumber(-Double.infinity) == n("-Infinity"))
        #expect(ExactNumber(Double.nan) == n("NaN") && ExactNumber(1e308) < n("Infinity"))
    }

    @Test func aDoubleComparesByItsExactValue() {
        #expect(ExactNumber(0.1).text == "0.1000000000000000055511151231257827021181583404541015625")
        #expect(ExactNumber(1e22).text == "10000000000000000000000")
        #expect(ExactNumber(-2.5).text == "-2.5" && ExactNumber(-0.0).text == "-0")
        let tiny = ExactNumber(5e-324).text
        #expect(tiny.count == 1076 && tiny.hasPrefix("0." + String(repeating: "0", count: 323) + "4940656458412465")
                && tiny.hasSuffix("533447265625"))
        #expect(ExactNumber(1.7976931348623157e308).text.hasPrefix("179769313486231570814527423731")
                && ExactNumber(1.7976931348623157e308).text.count == 309)
        // 0.1 as a double is a little above 0.1, below 0.10000000000000001.
        #expect(n("0.1") < ExactNumber(0.1) && ExactNumber(0.1) < n("0.10000000000000001"))
        // 2^53 + 1 is no double: the double 2^53 is below it.
        #expect(ExactNumber(9_007_199_254_740_992.0) < n("9007199254740993"))
        #expect(ExactNumber(9_007_199_254_740_992.0) < ExactNumber(9_007_199_254_740_993 as Int64))
    }

    @Test func theBytesAreComparedInPlaceAndApproximatedMonotonically() {
        func bytes(_ s: String, _ body: (UnsafeRawBufferPointer) -> Void) { Array(s.utf8).withUnsafeBytes(body) }
        bytes("1234444433332222.44434322") { a in
            bytes("1234444433332222.44434321") { b in
                #expect(ExactNumber.compare(a, b) == 1)
                #expect(ExactNumber.approximation(a) == ExactNumber.approximation(b))
            }
            bytes("abc") { b in #expect(ExactNumber.compare(a, b) == nil) }
        }
        bytes("NaN") { a in #expect(ExactNumber.approximation(a) == .infinity) }
        bytes("-Infinity") { a in #expect(ExactNumber.approximation(a) == -.infinity) }
        // Whenever two approximations differ, the texts differ the same way.
        var random = SplitMix(seed: 23)
        func text() -> String {
            let digits = (0..<(1 + random.below(25))).map { _ in String(random.below(10)) }.joined()
            let fraction = random.below(2) == 0 ? "" : "." + (0..<(1 + random.below(25))).map { _ in String(random.below(10)) }.joined()
            return (random.below(2) == 0 ? "-" : "") + digits + fraction
        }
        for _ in 0..<2000 {
            let x = text(), y = text()
            bytes(x) { a in
                bytes(y) { b in
                    let (p, q) = (ExactNumber.approximation(a)!, ExactNumber.approximation(b)!)
                    if p < q { #expect(ExactNumber.compare(a, b) == -1, "\(x) \(y)") }
                    if p > q { #expect(ExactNumber.compare(a, b) == 1, "\(x) \(y)") }
                }
            }
        }
    }

    @Test func decimalsRoundTheTextHalfAwayFromZero() {
        #expect(n("2.675").rounded(toDecimals: 2) == "2.68")
        #expect(n("0.005").rounded(toDecimals: 2) == "0.01")
        #expect(n("-0.005").rounded(toDecimals: 2) == "-0.01")
        #expect(n("999.995").rounded(toDecimals: 2) == "1000.00")
        #expect(n("-999.995").rounded(toDecimals: 2) == "-1000.00")
        #expect(n("0.004999").rounded(toDecimals: 2) == "0.00")
        #expect(n("3").rounded(toDecimals: 2) == "3.00")
        #expect(n("959.5").rounded(toDecimals: 2) == "959.50")
        #expect(n("3.00").rounded(toDecimals: 2) == "3.00")
        #expect(n("2.5").rounded(toDecimals: 0) == "3" && n("-2.5").rounded(toDecimals: 0) == "-3" && n("9.5").rounded(toDecimals: 0) == "10")
        #expect(n("1234444433332222.44434322").rounded(toDecimals: 2) == "1234444433332222.44")
        #expect(n("123456789012.12345678").rounded(toDecimals: 4) == "123456789012.1235")
        #expect(n("123456789012345678901234567890").rounded(toDecimals: 1) == "123456789012345678901234567890.0")
        // A zero keeps the sign it was sent with; a value rounded to zero loses it.
        #expect(n("-0").rounded(toDecimals: 2) == "-0.00")
        #expect(n("-0.001").rounded(toDecimals: 2) == "0.00")
        #expect(n("NaN").rounded(toDecimals: 2) == "NaN" && n("-Infinity").rounded(toDecimals: 2) == "-Infinity")
    }
}
