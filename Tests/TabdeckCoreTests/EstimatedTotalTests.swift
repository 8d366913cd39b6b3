import Testing
import TabdeckCore
import TabdeckProtocol

/// A total marked `totalIsEstimate` (PROTOCOL.md 10.1, 11.3) is shown as `≈ 3,000,000` and
/// said so in JSON, until an exact count replaces it.
@Suite struct EstimatedTotalTests {
    func harness(count: Int = 1000, estimate: Int = 3_000_000) -> Harness {
        var h = Harness(count: count)
        h.plugins["people"]!.estimate = estimate
        h.feed(.viewport(rows: 10))
        return h
    }

    func table(_ h: Harness) -> TableState { h.ws.tabs["people"]!.table! }

    @Test func anEstimateIsShownAsOneAndSaidSoInJSON() {
        var h = harness()
        let show = h.run("show 3")
        #expect(show?.text.split(separator: "\n").last == "rows 1–3 of ≈ 3,000,000")
        #expect(show?.json["totalIsEstimate"] == .bool(true))
        #expect(show?.json["total"] == .int(3_000_000))
        let position = h.run("goto 2")
        #expect(position?.text == "row 2 of ≈ 3,000,000")
        #expect(position?.json["totalIsEstimate"] == .bool(true))
        #expect(h.run("filter")?.text == "no filter (≈ 3,000,000 rows)")
        #expect(table(h).totalText == "≈ 3,000,000")
    }

    @Test func aRowsResultWithoutTheFlagMakesTheCountExact() {
        var h = harness()
        h.run("show 3")
        h.plugins["people"]!.estimate = nil
        h.run("goto 500")  // page 5 comes with the exact total
        let position = h.run("goto 500")
        #expect(position?.text == "row 500 of 1,000")
        #expect(position?.json["totalIsEstimate"] == nil)
        #expect(table(h).totalIsEstimate == false)
    }

    @Test func anInvalidateWithOnlyACountMakesItExactAndFetchesNothing() {
        var h = harness()
        h.feed(.refresh)
        let asked = h.sends(Method.rows).count
        h.notify("people", Method.invalidate, ["table": "root", "rows": [], "total": 1000])
        h.feed(.refresh)
        #expect(table(h).totalText == "1,000")
        #expect(h.sends(Method.rows).count == asked, "\"rows\": [] says no row changed: the pages stay")
    }

    @Test func aShortPageEndsATableWhoseCountIsOnlyEstimated() {
        var h = harness(count: 150, estimate: 3_000_000)
        h.run("goto 120")  // page 2 (rows 101–150) is short; page 3, empty, still says ≈ 3,000,000
        #expect(table(h).totalText == "150")
        #expect(h.run("goto 200") == nil)
        #expect(h.lastFailure == "row 200 is past the end (150 rows)")
    }
}
