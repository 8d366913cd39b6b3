import TabdeckProtocol

/// How the spool stores one row: a few compact bytes, read back without JSON.
///
/// A record is a flags byte (1: `hasChildren`, 2: a section follows, 4: a detail follows), the
/// id, the section and the detail as texts, then exactly one cell per column of the table
/// (missing cells are stored as null, extra ones dropped). A cell is a tag byte, then for an
/// integer or a decimal 8 bytes (little-endian; a decimal as its IEEE 754 bits), for a text or
/// a nested value (an array or an object, kept as its JSON text) a length and the UTF-8 bytes.
/// A length is LEB128 (one byte below 128).
enum RowRecord {
    enum Tag: UInt8 { case null, no, yes, int, double, text, json }

    static let hasChildren: UInt8 = 1, hasSection: UInt8 = 2, hasDetail: UInt8 = 4

    /// Appends the record of `row`, with `columns` cells, to `out`.
    static func append(_ row: Row, columns: Int, to out: inout [UInt8]) {
        var flags: UInt8 = row.hasChildren ? hasChildren : 0
        if row.section != nil { flags |= hasSection }
        if row.detail != nil { flags |= hasDetail }
        out.append(flags)
        appendText(row.id, to: &out)
        if let section = row.section { appendText(section, to: &out) }
        if let detail = row.detail { appendText(detail, to: &out) }
        for i in 0..<columns {
            guard i < row.cells.count else { out.append(Tag.null.rawValue); continue }
            switch row.cells[i] {
            case .null: out.append(Tag.null.rawValue)
            case .bool(let b): out.append(b ? Tag.yes.rawValue : Tag.no.rawValue)
            case .int(let v): out.append(Tag.int.rawValue); appendWord(UInt64(bitPattern: v), to: &out)
            case .double(let d): out.append(Tag.double.rawValue); appendWord(d.bitPattern, to: &out)
            case .string(let s): out.append(Tag.text.rawValue); appendText(s, to: &out)
            case .array, .object:
                out.append(Tag.json.rawValue)
                appendText(JSONWriter.string(row.cells[i]), to: &out)
            }
        }
    }

    private static func appendWord(_ w: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: w.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func appendLength(_ n: Int, to out: inout [UInt8]) {
        var n = UInt(n)
        while n >= 0x80 { out.append(UInt8(n & 0x7F) | 0x80); n >>= 7 }
        out.append(UInt8(n))
    }

    private static func appendText(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            appendLength(bytes.count, to: &out)
            out.append(contentsOf: bytes)
        }
    }

    /// The row at `offset` of the mapped records at `base`, as the wire's row object.
    static func row(_ base: UnsafeRawPointer, at offset: Int, columns: Int) -> JSONValue {
        var r = RecordReader(base: base, at: offset)
        let header = r.header()
        var o: JSONObject = ["id": .string(r.string(header.id))]
        var cells: [JSONValue] = []
        cells.reserveCapacity(columns)
        for _ in 0..<columns {
            let cell = r.cell()
            switch cell.tag {
            case .null: cells.append(.null)
            case .no: cells.append(.bool(false))
            case .yes: cells.append(.bool(true))
            case .int: cells.append(.int(Int64(bitPattern: cell.word)))
            case .double: cells.append(.double(Double(bitPattern: cell.word)))
            case .text: cells.append(.string(r.string(cell.text)))
            case .json:
                let text = r.bytes(cell.text).assumingMemoryBound(to: UInt8.self)
                cells.append((try? JSONParser.parse(text)) ?? .string(r.string(cell.text)))
            }
        }
        o["cells"] = .array(cells)
        if let section = header.section { o["section"] = .string(r.string(section)) }
        if let detail = header.detail { o["detail"] = .string(r.string(detail)) }
        if header.flags & hasChildren != 0 { o["hasChildren"] = .bool(true) }
        return .object(o)
    }
}

/// Where a text lies in the mapped records: its offset and its length in bytes.
struct TextSpan: Hashable {
    var offset: Int
    var count: Int
}

/// One cell as read from a record: its tag, its 8 bytes (integer, decimal) or its text.
struct RecordCell {
    var tag: RowRecord.Tag
    var word: UInt64 = 0
    var text = TextSpan(offset: 0, count: 0)
}

/// Reads one record's fields in order from the mapped records.
struct RecordReader {
    let base: UnsafeRawPointer
    var at: Int

    struct Header {
        var flags: UInt8
        var id: TextSpan
        var section: TextSpan?
        var detail: TextSpan?
    }

    @inline(__always) mutating func byte() -> UInt8 {
        let b = base.load(fromByteOffset: at, as: UInt8.self)
        at += 1
        return b
    }

    @inline(__always) mutating func length() -> Int {
        var b = byte()
        if b < 0x80 { return Int(b) }
        var n = Int(b & 0x7F), shift = 7
        repeat {
            b = byte()
            n |= Int(b & 0x7F) << shift
            shift += 7
        } while b >= 0x80
        return n
    }

    @inline(__always) mutating func span() -> TextSpan {
        let n = length()
        defer { at += n }
        return TextSpan(offset: at, count: n)
    }

    /// The flags, id, section and detail; `at` is then at the first cell.
    mutating func header() -> Header {
        let flags = byte()
        let id = span()
        let section = flags & RowRecord.hasSection != 0 ? span() : nil
        let detail = flags & RowRecord.hasDetail != 0 ? span() : nil
        return Header(flags: flags, id: id, section: section, detail: detail)
    }

    /// Skips the header.
    @inline(__always) mutating func skipHeader() {
        let flags = byte()
        at += length()
        if flags & RowRecord.hasSection != 0 { at += length() }
        if flags & RowRecord.hasDetail != 0 { at += length() }
    }

    /// The next cell.
    @inline(__always) mutating func cell() -> RecordCell {
        let tag = RowRecord.Tag(rawValue: byte()) ?? .null
        switch tag {
        case .int, .double:
            let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            at += 8
            return RecordCell(tag: tag, word: w)
        case .text, .json:
            return RecordCell(tag: tag, text: span())
        case .null, .no, .yes:
            return RecordCell(tag: tag)
        }
    }

    func bytes(_ span: TextSpan) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + span.offset, count: span.count)
    }

    func string(_ span: TextSpan) -> String {
        String(decoding: bytes(span), as: UTF8.self)
    }
}
