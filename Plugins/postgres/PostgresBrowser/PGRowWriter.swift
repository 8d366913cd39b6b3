import PostgresNIO
import TabdeckPluginKit
import TabdeckProtocol

/// Writes a page's rows as JSON straight from the bytes PostgreSQL sends
/// (``TableDataSource/writtenRows(_:cancel:)``): no text cells, values or ``Row``s on the way.
///
/// Byte for byte what ``PGTable/page(offset:limit:sort:filter:where:exactTotal:cancel:)`` and
/// the kit would send for the same rows: each cell as ``PGColumn/cell(_:_:)`` reads its text,
/// written as ``JSONWriter`` writes that value. It gives up (``gaveUp``) where that path does
/// more than it does: a cell longer than the cut (``CutCell/limit``), or a page past
/// ``WrittenRows/maxBytes``; the page is then read the usual way. Used on the connection's
/// event loop only, then read once the query is over.
final class PGRowWriter: @unchecked Sendable {
    let kinds: [PGColumn.CellKind]
    let layout: PGPageLayout
    /// The position of the row id's text (the relation's one key column).
    let idPosition: Int

    private(set) var json: [UInt8] = []
    private(set) var count = 0
    private(set) var gaveUp = false
    /// The sort-key texts of the first and of the last row (for the anchors).
    private(set) var firstKey: [String?]?
    private var lastKey: [ByteBuffer?]
    private var cells: [ByteBuffer?] = []

    init(kinds: [PGColumn.CellKind], layout: PGPageLayout, idPosition: Int) {
        self.kinds = kinds; self.layout = layout; self.idPosition = idPosition
        lastKey = Array(repeating: nil, count: layout.keyPositions.count)
    }

    /// Forgets what was written (a query run again on a fresh connection).
    func reset() {
        json.removeAll(keepingCapacity: true); count = 0; gaveUp = false; firstKey = nil
    }

    /// The last row's sort-key texts.
    var lastKeyTexts: [String?] { lastKey.map { $0.map { String(buffer: $0) } } }

    func read(_ row: PostgresRow) {
        if gaveUp { return }
        // Worked on in locals: every touch of a class's stored array is checked for exclusive
        // access at run time, which costs more than the writing.
        var out = json, cells = self.cells
        json = []; self.cells = []
        defer { json = out; self.cells = cells }
        cells.removeAll(keepingCapacity: true)
        for cell in row { cells.append(cell.bytes) }
        if count == 0 { firstKey = layout.keyPositions.map { cells[$0].map { String(buffer: $0) } } }
        for (k, p) in layout.keyPositions.enumerated() { lastKey[k] = cells[p] }
        if count > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: Self.idPrefix)
        if let id = cells[idPosition] { _ = Self.writeText(id, limit: Int.max, into: &out) } else { out.append(contentsOf: Self.emptyString) }
        out.append(contentsOf: Self.cellsPrefix)
        for (j, kind) in kinds.enumerated() {
            if j > 0 { out.append(UInt8(ascii: ",")) }
            guard Self.write(cells[layout.cellStart + j], kind, into: &out) else { gaveUp = true; return }
        }
        out.append(contentsOf: Self.rowEnd)
        count += 1
        if out.count > WrittenRows.maxBytes { gaveUp = true }
    }

    private static let idPrefix = Array(#"{"id":"#.utf8), cellsPrefix = Array(#","cells":["#.utf8), rowEnd = Array("]}".utf8)
    private static let null = Array("null".utf8), yes = Array("true".utf8), no = Array("false".utf8), emptyString = Array(#""""#.utf8)

    /// One cell as ``PGColumn/cell(_:_:)`` reads it; false for a text longer than the cut.
    private static func write(_ bytes: ByteBuffer?, _ kind: PGColumn.CellKind, into out: inout [UInt8]) -> Bool {
        guard let bytes else { out.append(contentsOf: null); return true }
        switch kind {
        case .integer:
            if let value = integer(bytes) { JSONWriter.writeInteger(value, into: &out); return true }
            return writeText(bytes, limit: CutCell.limit, into: &out)
        case .bool:
            out.append(contentsOf: bytes.readableBytesView.elementsEqual(yes) ? yes : no)
            return true
        case .float:
            let value = PGColumn.cell(String(buffer: bytes), .float)
            if case .string(let s) = value, s.utf8.count > CutCell.limit { return false }
            JSONWriter.write(value, into: &out)
            return true
        case .text:
            return writeText(bytes, limit: CutCell.limit, into: &out)
        }
    }

    /// A JSON string of the text: from the bytes themselves when they are ASCII, else through
    /// `String` (which repairs bad UTF-8 as the usual path does); false when over `limit` bytes.
    private static func writeText(_ bytes: ByteBuffer, limit: Int, into out: inout [UInt8]) -> Bool {
        if bytes.readableBytes > limit { return false }
        let ascii = bytes.withUnsafeReadableBytes { raw in
            guard raw.allSatisfy({ $0 < 0x80 }) else { return false }
            JSONWriter.writeString(utf8: raw.bindMemory(to: UInt8.self), into: &out)
            return true
        }
        if ascii { return true }
        let text = String(buffer: bytes)
        if text.utf8.count > limit { return false }
        JSONWriter.writeString(text, into: &out)
        return true
    }

    /// The value `Int64(text)` reads from the bytes, nil where it reads none.
    static func integer(_ bytes: ByteBuffer) -> Int64? {
        bytes.withUnsafeReadableBytes { raw -> Int64? in
            var i = 0
            var negative = false
            if i < raw.count, raw[i] == UInt8(ascii: "-") || raw[i] == UInt8(ascii: "+") { negative = raw[i] == UInt8(ascii: "-"); i += 1 }
            guard i < raw.count else { return nil }
            var value: Int64 = 0
            while i < raw.count {
                let d = raw[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (v, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
                if o1 || o2 { return nil }
                value = v
                i += 1
            }
            return value
        }
    }
}
