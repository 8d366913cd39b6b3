import Foundation
import SeededRandom
import Testing
@testable import CSVTable

/// The compact layout of sort keys (issue 14): bit-packed codes, chunks packed or kept
/// whole, decimals as exact scaled integers that turn into `Double`s when a cell needs it.
@Suite struct PackedKeysTests {
    @Test func codesOfEveryWidthReadBackAsWritten() {
        var rng = SplitMix(seed: 5)
        for width in 0...BitPacking.maxWidth {
            let count = 1000
            let mask = BitPacking.mask(width: width)
            let codes = (0..<count).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) & mask }
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: BitPacking.byteCount(count: count, width: width), alignment: 8)
            defer { bytes.deallocate() }
            BitPacking.write(bytes, count: count, width: width) { codes[$0] }
            let back = (0..<count).map { BitPacking.read(bytes, $0, width: width, mask: mask) }
            #expect(back == codes, "width \(width)")
        }
        #expect(BitPacking.width(ofMaxCode: 0) == 0)
        #expect(BitPacking.width(ofMaxCode: 1) == 1)
        #expect(BitPacking.width(ofMaxCode: 255) == 8)
        #expect(BitPacking.width(ofMaxCode: 256) == 9)
    }

    /// Rows of three chunks: a packed one, one with an unparseable cell (kept whole) and a
    /// short last one whose keys span the whole 64-bit range (kept whole too).
    static func rows() -> [(UInt8, UInt64)] {
        var rng = SplitMix(seed: 9)
        var rows: [(UInt8, UInt64)] = []
        for i in 0..<RowOffsets.chunkSize {
            rows.append(i % 7 == 0 ? (0, 0) : (1, (1 << 40) + UInt64.random(in: 0..<100_000, using: &rng)))
        }
        for i in 0..<RowOffsets.chunkSize {
            rows.append(i == 77 ? (2, 12345) : i % 5 == 0 ? (0, 0) : (1, UInt64.random(in: 0..<1000, using: &rng)))
        }
        for i in 0..<1000 { rows.append(i % 3 == 0 ? (0, 0) : (1, UInt64.random(in: 0...UInt64.max, using: &rng))) }
        return rows
    }

    static func packed(_ rows: [(UInt8, UInt64)]) -> PackedKeys {
        let builder = PackedKeys.Builder()
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + RowOffsets.chunkSize, rows.count)]
            builder.append(classes: chunk.map(\.0), keys: chunk.map(\.1), count: chunk.count)
            start += chunk.count
        }
        return builder.finish()
    }

    @Test func everyRowReadsBackItsClassAndKey() {
        let rows = Self.rows()
        let keys = Self.packed(rows)
        #expect(keys.count == rows.count)
        for (i, row) in rows.enumerated() where keys.entry(i) != row {
            Issue.record("row \(i): \(keys.entry(i)) instead of \(row)")
            break
        }
        // The first chunk's keys span 100,000: 17 bits a row instead of 9 bytes.
        let firstOnly = Self.packed(Array(rows.prefix(RowOffsets.chunkSize)))
        #expect(firstOnly.byteCount < RowOffsets.chunkSize * 3)
    }

    @Test func mappedKeysReplaceValuesAndKeepClasses() {
        let rows = Self.rows()
        let mapped = Self.packed(rows).mapped { ~$0 }
        for (i, row) in rows.enumerated() where mapped.entry(i) != (row.0, row.0 == 1 ? ~row.1 : row.1) {
            Issue.record("row \(i): \(mapped.entry(i)) for \(row)")
            break
        }
    }

    func scaled(_ text: String, _ scale: Int) -> ValueParser.Scaled {
        Array(text.utf8).withUnsafeBufferPointer { ValueParser.decimal($0, scale: scale) }
    }

    func double(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { ValueParser.decimal($0) }
    }

    @Test func decimalsScaleExactlyOrSayWhy() {
        #expect(scaled("1370.30", 2) == .scaled(137_030))
        #expect(scaled("1370.3", 2) == .scaled(137_030))
        #expect(scaled("-5", 2) == .scaled(-500))
        #expect(scaled("+0.5", 1) == .scaled(5))
        #expect(scaled("-0.00", 2) == .scaled(0))
        #expect(scaled("1.234", 2) == .unscaled(1.234))
        #expect(scaled("1e3", 2) == .unscaled(1000))
        #expect(scaled("90071992547409.93", 2) == .unscaled(90071992547409.93))  // past 2^53 units
        #expect(scaled("007.5", 2) == .invalid)
        #expect(scaled("1.", 2) == .invalid)
        #expect(scaled("abc", 2) == .invalid)
        #expect(scaled("", 2) == .invalid)
    }

    @Test func aScaledDecimalTurnsIntoTheDoubleItsTextParsesTo() {
        var rng = SplitMix(seed: 3)
        for _ in 0..<20_000 {
            let scale = Int.random(in: 0...6, using: &rng)
            let digits = Int.random(in: 0...scale, using: &rng)
            // Below 2^53 units at every scale up to 6.
            var text = (Bool.random(using: &rng) ? "-" : "") + String(Int64.random(in: 0...999_999_999, using: &rng))
            if digits > 0 { text += "." + String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }) }
            guard case .scaled(let v) = scaled(text, scale) else { Issue.record("\(text) at scale \(scale) did not scale"); continue }
            let d = double(text)!
            #expect(ValueParser.scaledAsDouble(v, scale: scale) == d || (d == 0 && v == 0), "\(text) at scale \(scale)")
        }
    }

    /// A decimal column whose cells have two digits after the point until one has three,
    /// in the second chunk: the keys switch to `Double`s there and the order stays right.
    @Test(arguments: [5, RowOffsets.chunkSize + 100, 2 * RowOffsets.chunkSize + 10])
    func aDecimalWithMoreDigitsSwitchesTheColumnToDoublesAndTheOrderHolds(at position: Int) throws {
        var rng = SplitMix(seed: UInt64(position))
        var lines = ["row,amount"]
        let rows = 2 * RowOffsets.chunkSize + 20
        for r in 0..<rows {
            if r == position { lines.append("\(r),0.125"); continue }
            switch Int.random(in: 0..<20, using: &rng) {
            case 0: lines.append("\(r),")
            case 1: lines.append("\(r),n/a")
            default:
                let cents = Int64.random(in: -100_000...100_000, using: &rng)
                lines.append("\(r)," + String(format: "%.2f", Double(cents) / 100))
            }
        }
        let (t, _f) = try table(lines.joined(separator: "\n") + "\n")
        _ = _f
        let offsets = try t.index.waitComplete(isCancelled: { false })
        for descending in [false, true] {
            let keys = try ColumnKeys(column: 1, type: .decimal, scale: 2, file: t.file, scanner: t.scanner,
                                      offsets: offsets, isCancelled: { false })
            let order = try Sorter(specs: [Sorter.Spec(keys: keys, descending: descending)], isCancelled: { false })
                .sortedOrder(count: offsets.count).map(Int.init)
            #expect(order == referenceOrder(t.allStrings(), types: [.integer, .decimal], keys: [CSVSortKey(column: 1, descending: descending)]),
                    "descending: \(descending)")
            // Once switched, keys are the `Double`s' (0.125 sits between 0.12 and 0.13).
            let (cls, key) = (keys.rowClass(position), keys.key(position))
            #expect(cls == 1 && key == ColumnKeys.key(double: 0.125))
        }
    }

    /// Keys of the sample's columns take a fraction of the 9 bytes a row they took before.
    @Test func keysOfTypicalColumnsTakeAFewBytesARow() throws {
        var rng = SplitMix(seed: 11)
        let names = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
        var lines = ["name,amount,day"]
        let rows = 3 * RowOffsets.chunkSize
        for _ in 0..<rows {
            let cents = Int64.random(in: 0...99_999_999, using: &rng)
            lines.append("\(names.randomElement(using: &rng)!),\(cents / 100).\(String(format: "%02d", cents % 100)),2024-0\(Int.random(in: 1...9, using: &rng))-1\(Int.random(in: 0...9, using: &rng))")
        }
        let (t, _f) = try table(lines.joined(separator: "\n") + "\n")
        _ = _f
        #expect(t.columns.map(\.type) == [.text, .decimal, .date])
        #expect(t.columns[1].sortScale == 2)
        let offsets = try t.index.waitComplete(isCancelled: { false })
        let bytes = try (0..<3).map { c in
            try ColumnKeys(column: c, type: t.columns[c].type, scale: t.columns[c].sortScale, file: t.file, scanner: t.scanner,
                           offsets: offsets, isCancelled: { false }).memoryFootprint
        }
        #expect(bytes[0] < rows * 1, "ranks of 5 names: 3 bits a row, \(bytes[0]) bytes")
        #expect(bytes[1] < rows * 4, "cents up to 10^8: 27 bits a row, \(bytes[1]) bytes")
        #expect(bytes[2] < rows * 5, "dates of one year: 35 bits a row, \(bytes[2]) bytes")
    }
}
