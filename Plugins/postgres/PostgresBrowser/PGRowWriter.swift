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
/// ``WrittenRows/maxBytes``; the page is then read the usual way. A query read ahead of a scan
/// is written as several pages of ``pageRows``. Used on the connection's event loop only, then
/// read once the query is over.
final class PGRowWriter: @unchecked Sendable {
    let kinds: [PGColumn.CellKind]
    let layout: PGPageLayout
    /// The position of the row id's text (the relation's one key column).
    let idPosition: Int
    /// Rows per page: a query read ahead of a scan holds several pages (``PGReadAhead``).
    let pageRows: Int

    /// One page's rows, and the sort-key texts of its first and last rows (for the anchors).
    struct Page: Sendable {
        var json: [UInt8] = []
        var count = 0
        var firstKey: [String?] = []
        var lastKey: [String?] = []
    }

    private(set) var gaveUp = false
    private var done: [Page] = []
    private var current = Page()
    private var lastKey: [ByteBuffer?]
    private var cells: [ByteBuffer?] = []

    init(kinds: [PGColumn.CellKind], layout: PGPageLayout, idPosition: Int, pageRows: Int) {
        self.kinds = kinds; self.layout = layout; self.idPosition = idPosition; self.pageRows = max(1, pageRows)
        lastKey = Array(repeating: nil, count: layout.keyPositions.count)
    }

    /// Forgets what was written (a query run again on a fresh connection).
    func reset() {
        done = []; current = Page(); gaveUp = false
    }

    /// The pages written, in order, once the query is over.
    var pages: [Page] {
        guard current.count > 0 else { return done }
        var last = current
        last.lastKey = lastKeyTexts
        return done + [last]
    }

    private var lastKeyTexts: [String?] { lastKey.map { $0.map { String(buffer: $0) } } }

    func read(_ row: PostgresRow) {
        if gaveUp { return }
        // Worked on in locals: every touch of a class's stored array is checked for exclusive
        // access at run time, which costs more than the writing.
        var page = current, cells = self.cells
        current = Page(); self.cells = []
        defer { current = page; self.cells = cells }
        cells.removeAll(keepingCapacity: true)
        for cell in row { cells.append(cell.bytes) }
        if page.count == pageRows {
            page.lastKey = lastKeyTexts
            done.append(page)
            page = Page()
        }
        if page.count == 0 {
            page.firstKey = layout.keyPositions.map { cells[$0].map { String(buffer: $0) } }
        } else {
            page.json.append(UInt8(ascii: ","))
        }
        for (k, p) in layout.keyPositions.enumerated() { lastKey[k] = cells[p] }
        page.json.append(contentsOf: Self.idPrefix)
        if let id = cells[idPosition] {
            _ = Self.writeText(id, limit: Int.max, into: &page.json)
        } else {
            page.json.append(contentsOf: Self.emptyString)
        }
        page.json.append(contentsOf: Self.cellsPrefix)
        for (j, kind) in kinds.enumerated() {
            if j > 0 { page.json.append(UInt8(ascii: ",")) }
            guard Self.write(cells[layout.cellStart + j], kind, into: &page.json) else { gaveUp = true; return }
        }
        page.json.append(contentsOf: Self.rowEnd)
        page.count += 1
        if page.json.count > WrittenRows.maxBytes { gaveUp = true }
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
