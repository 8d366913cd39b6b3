import Testing
import TabdeckProtocol
@testable import TabdeckPluginKit

/// ``ColumnSummary`` against an independent computation: every value generated, sorted naively
/// and counted by hand.
struct ColumnSummaryTests {
    /// A small deterministic generator (the tests' own, not the summary's).
    struct Gen {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    func percentile(_ s: [Double], _ p: Double) -> Double {
        let pos = p * Double(s.count - 1)
        let lo = Int(pos), hi = min(lo + 1, s.count - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - Double(lo))
    }

    func whole(_ d: Double) -> String { d == d.rounded() ? String(Int64(d)) : "\(d)" }

    /// The most frequent value (the smallest of ties) and its count, by hand.
    func top<T: Hashable>(_ values: [T], _ less: (T, T) -> Bool) -> (T, Int)? {
        var counts: [T: Int] = [:]
        for v in values { counts[v, default: 0] += 1 }
        return counts.max { a, b in a.value != b.value ? a.value < b.value : less(b.key, a.key) }.map { ($0.key, $0.value) }
    }

    @Test func integersWithNullsAndTies() {
        var gen = Gen(state: 7)
        var values: [Int?] = []
        for _ in 0..<5000 { values.append(gen.next(10) == 0 ? nil : gen.next(300) - 100) }
        var summary = ColumnSummary(spec: ColumnSpec(id: "n", title: "N", type: .integer))
        for (i, v) in values.enumerated() {
            // Some numbers arrive as exact texts: the same value either way.
            summary.add(v.map { i % 3 == 0 ? .string(String($0)) : .int(Int64($0)) } ?? .null)
        }
        let xs = values.compactMap { $0 }.map(Double.init).sorted()
        let row = summary.row().cells
        #expect(row[0] == "N" && row[1] == "integer")
        #expect(row[2] == .int(Int64(xs.count)))
        #expect(row[3] == .int(Int64(values.count - xs.count)))
        #expect(row[4] == .int(Int64(Set(xs).count)))
        #expect(row[5] == .string(whole(xs.first!)) && row[6] == .string(whole(xs.last!)))
        let mean = xs.reduce(0, +) / Double(xs.count)
        let sd = (xs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(xs.count - 1)).squareRoot()
        if case .double(let m) = row[7], case .double(let s) = row[8] {
            #expect(abs(m - mean) < 1e-9 && abs(s - sd) < 1e-9)
        } else { Issue.record("mean \(row[7]) stddev \(row[8])") }
        #expect(row[9] == .string(whole(percentile(xs, 0.25))))
        #expect(row[10] == .string(whole(percentile(xs, 0.5))))
        #expect(row[11] == .string(whole(percentile(xs, 0.75))))
        let (t, tc) = top(xs, <)!
        #expect(row[12] == .string(whole(t)) && row[13] == .int(Int64(tc)))
        var bins = [Int](repeating: 0, count: 8)
        let width = (xs.last! - xs.first!) / 8
        for x in xs { bins[min(7, Int((x - xs.first!) / width))] += 1 }
        #expect(row[14] == .string(bins.map(String.init).joined(separator: " ")))
        #expect(summary.estimates.isEmpty)
    }

    @Test func nonASCIITextByBytes() {
        let words = ["Zoë", "zoe", "Ada", "Ñandú", "é", "e\u{301}", "日本", "ada", "Ω"]
        var gen = Gen(state: 11)
        var values: [String?] = []
        for _ in 0..<2000 { values.append(gen.next(8) == 0 ? nil : words[gen.next(words.count)]) }
        var summary = ColumnSummary(spec: ColumnSpec(id: "w", type: .text))
        for v in values { summary.add(v.map { .string($0) } ?? .null) }
        let texts = values.compactMap { $0 }.map { Array($0.utf8) }
        let sorted = texts.sorted { $0.lexicographicallyPrecedes($1) }
        let row = summary.row().cells
        #expect(row[2] == .int(Int64(texts.count)) && row[3] == .int(Int64(values.count - texts.count)))
        // "é" and "e\u{301}" are equal Swift strings but different bytes: two values.
        #expect(row[4] == .int(Int64(Set(texts).count)))
        #expect(row[5] == .string(String(decoding: sorted.first!, as: UTF8.self)))
        #expect(row[6] == .string(String(decoding: sorted.last!, as: UTF8.self)))
        let (t, tc) = top(texts) { $0.lexicographicallyPrecedes($1) }!
        #expect(row[12] == .string(String(decoding: t, as: UTF8.self)) && row[13] == .int(Int64(tc)))
        #expect(row[7] == .null && row[9] == .null && row[14] == .null)
    }

    @Test func datesByInstant() {
        var gen = Gen(state: 3)
        var days: [Int] = []
        var summary = ColumnSummary(spec: ColumnSpec(id: "d", type: .date))
        for _ in 0..<1000 {
            let d = gen.next(3650) - 1000
            days.append(d)
            summary.add(.string(SummaryTexts.dateText(Double(d) * 86_400_000, dateOnly: true)))
        }
        summary.add(.null)
        let ts = days.map { Double($0) * 86_400_000 }.sorted()
        let row = summary.row().cells
        #expect(row[2] == 1000 && row[3] == 1 && row[4] == .int(Int64(Set(days).count)))
        #expect(row[10] == .string(SummaryTexts.dateText(percentile(ts, 0.5), dateOnly: true)))
        #expect(row[5] == .string(SummaryTexts.dateText(ts.first!, dateOnly: true)))
        #expect(SummaryTexts.dateText(0, dateOnly: true) == "1970-01-01")
        #expect(SummaryTexts.dateText(-1, dateOnly: true) == "1969-12-31T23:59:59.999Z")
        #expect(SummaryTexts.dateText(951_782_400_000, dateOnly: false) == "2000-02-29T00:00:00Z")
    }

    @Test func pastTheCapsTheEstimatesAreFlagged() {
        var summary = ColumnSummary(spec: ColumnSpec(id: "n", type: .integer), limits: .init(distinct: 50, numbers: 100))
        var table = TableSummary(columns: [ColumnSpec(id: "n", type: .integer)], limits: .init(distinct: 50, numbers: 100))
        var gen = Gen(state: 5)
        var xs: [Double] = []
        for _ in 0..<20_000 {
            let v = gen.next(1000)
            xs.append(Double(v))
            summary.add(.int(Int64(v))); table.add([.int(Int64(v))])
        }
        xs.sort()
        #expect(summary.estimates == ["distinct", "top", "topCount", "p25", "median", "p75", "histogram"])
        #expect(table.estimates == ["distinct", "p25", "median", "p75", "top", "topCount", "histogram"])
        let row = summary.row().cells
        #expect(row[2] == 20_000 && row[5] == "0" && row[6] == "999")  // exact still
        guard case .int(let distinct) = row[4], case .string(let median) = row[10], let m = Double(median),
              case .string(let hist) = row[14] else { Issue.record("\(row)"); return }
        #expect(abs(Double(distinct) - 1000) < 50)  // HyperLogLog: ~1 % error
        #expect(abs(m - percentile(xs, 0.5)) < 150)  // a sample of 100
        let bins = hist.split(separator: " ").compactMap { Int($0) }
        #expect(bins.count == 8 && abs(bins.reduce(0, +) - 20_000) <= 8)
    }

    @Test func canonicalNumbersHashAlike() {
        #expect(SummaryKey.canonical(ExactNumber("-0.50")!) == "-0.5")
        #expect(SummaryKey.canonical(ExactNumber("007")!) == "7")
        #expect(SummaryKey.canonical(ExactNumber("-0.0")!) == "0")
        #expect(SummaryKey(.string("3.0"), ColumnSpec(id: "x", type: .decimal)) == SummaryKey(.int(3), ColumnSpec(id: "x", type: .decimal)))
    }
}
