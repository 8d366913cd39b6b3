import TabdeckProtocol

/// The spool's filter (protocol 11.3, *What a filter matches*): a row passes when the text of
/// one of its cells contains the filter's text, ignoring ASCII case. A cell's text: a string as
/// sent, a number as JSON writes it, `true` or `false`, a nested value's JSON text; a null has none.
struct RowFilter {
    private let text: FilterText
    /// Whether a number's text could hold the needle (only digits, `.`, `-`, `+` and `e` do),
    /// and a `true` or `false`: cells that cannot match are not even written out.
    private let numbersMatch: Bool
    private let trueMatches: Bool
    private let falseMatches: Bool

    static let falseText = Array("false".utf8), trueText = Array("true".utf8)

    init(_ filter: String) {
        text = FilterText(filter)
        numbersMatch = text.bytes.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 }
        trueMatches = text.contains(Self.trueText)
        falseMatches = text.contains(Self.falseText)
    }

    /// The rows among `0..<count` that pass, ascending.
    func rows(base: UnsafeRawPointer?, offsets: UnsafePointer<UInt64>?, count: Int, columns: Int) -> [Int] {
        guard let base, let offsets else { return [] }
        var kept: [Int] = []
        var scratch: [UInt8] = []
        for row in 0..<count {
            var r = RecordReader(base: base, at: Int(offsets[row]))
            r.skipHeader()
            if passes(&r, columns: columns, scratch: &scratch) { kept.append(row) }
        }
        return kept
    }

    /// Whether the record that `r` reads (past its header) has a cell holding the text. Reads
    /// at most every cell; `scratch` is working space kept between rows.
    @inline(__always)
    func passes(_ r: inout RecordReader, columns: Int, scratch: inout [UInt8]) -> Bool {
        for _ in 0..<columns {
            let cell = r.cell()
            let hit: Bool
            switch cell.tag {
            case .null: hit = false
            case .no: hit = falseMatches
            case .yes: hit = trueMatches
            case .int where !numbersMatch, .double where !numbersMatch: hit = false
            case .int:
                scratch.removeAll(keepingCapacity: true)
                JSONWriter.writeInteger(Int64(bitPattern: cell.word), into: &scratch)
                hit = contains(scratch)
            case .double:
                scratch.removeAll(keepingCapacity: true)
                JSONWriter.write(.double(Double(bitPattern: cell.word)), into: &scratch)
                hit = contains(scratch)
            case .text, .json:
                hit = contains(r.bytes(cell.text))
            }
            if hit { return true }
        }
        return false
    }

    /// Whether `hay` contains the filter's text, ignoring ASCII case.
    func contains<C: RandomAccessCollection>(_ hay: C) -> Bool where C.Element == UInt8, C.Index == Int { text.contains(hay) }
}
