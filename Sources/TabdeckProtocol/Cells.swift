/// Big cells (PROTOCOL.md 10.5 `cut`, 11.10 `cell`): a text cell over ``CutCell/limit`` bytes
/// may travel cut in a page, and a plugin with the `cells` capability answers its whole value
/// in parts by byte offset.
public enum CutCell {
    /// A text cell longer than this many UTF-8 bytes may be sent cut (64 KiB).
    public static let limit = 65_536
    /// The most bytes the host asks for in one `cell` request (1 MiB): a part's line stays well
    /// under the 4 MiB line limit even escaped.
    public static let partBytes = 1_048_576
    /// The largest whole value the host fetches (16 MiB); a bigger one is refused, naming its size.
    public static let maxWholeBytes = 16 * 1_048_576

    /// The end of the longest prefix of `utf8` of at most `bytes` bytes that ends at a character
    /// (Unicode scalar) boundary, as an index into `utf8`.
    public static func boundary(_ utf8: String.UTF8View, from start: String.Index, bytes: Int) -> String.Index {
        guard let end = utf8.index(start, offsetBy: max(0, bytes), limitedBy: utf8.endIndex), end < utf8.endIndex else {
            return utf8.endIndex
        }
        var i = end
        // Back off continuation bytes (10xxxxxx): the scalar starting before them is not whole.
        while i > start && (utf8[i] & 0xC0) == 0x80 { i = utf8.index(before: i) }
        return i
    }

    /// The first at most `bytes` bytes of `text`, ending at a character boundary.
    public static func prefix(_ text: String, bytes: Int) -> String {
        let u = text.utf8
        return String(text[u.startIndex..<boundary(u, from: u.startIndex, bytes: bytes)])
    }
}

extension Row {
    /// Cuts this row's text cells over `limit` bytes to their first part and records their whole
    /// size under their column's id in ``cut`` (`columns`: the column ids in cell order).
    public mutating func cutLongCells(columns: [String], limit: Int = CutCell.limit) {
        for i in cells.indices where i < columns.count {
            guard case .string(let text) = cells[i] else { continue }
            let size = text.utf8.count
            if size > limit {
                cells[i] = .string(CutCell.prefix(text, bytes: limit))
                cut[columns[i]] = size
            }
        }
    }
}

/// The `cell` request (capability `cells`): part of one cell's whole value, by byte offset.
public struct CellRequest: Hashable, Sendable {
    public var table: String
    /// The row's id.
    public var row: String
    /// The column's id.
    public var column: String
    /// Where the part starts, in UTF-8 bytes of the whole value (at a character boundary).
    public var offset: Int
    /// The most bytes wanted.
    public var length: Int

    public init(table: String, row: String, column: String, offset: Int = 0, length: Int = CutCell.partBytes) {
        self.table = table; self.row = row; self.column = column; self.offset = offset; self.length = length
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        let row: String
        switch r.value("row") {
        case .string(let s)?: row = s
        case .int(let i)?: row = String(i)
        case let v?: throw JSONFieldError(path: r.pathOf("row"), reason: "expected a string, got \(v.typeDescription)")
        case nil: throw JSONFieldError(path: r.pathOf("row"), reason: "missing (expected a string)")
        }
        let offset = try r.optionalInt("offset") ?? 0
        let length = try r.optionalInt("length") ?? CutCell.partBytes
        if offset < 0 { throw JSONFieldError(path: r.pathOf("offset"), reason: "must not be negative") }
        if length < 1 { throw JSONFieldError(path: r.pathOf("length"), reason: "must be at least 1") }
        self.init(table: try r.string("table"), row: row, column: try r.string("column"), offset: offset, length: length)
    }

    public var json: JSONValue {
        ["table": .string(table), "row": .string(row), "column": .string(column),
         "offset": .int(Int64(offset)), "length": .int(Int64(length))]
    }

    /// The answer for this request from the cell's whole text: the bytes from `offset`, at most
    /// `length` and at most `maxBytes` (so that the line stays short even when every byte
    /// needs escaping), ending at a character boundary; at least one character unless at the end.
    public func part(of text: String, maxBytes: Int = CutCell.partBytes) -> CellResult {
        let u = text.utf8
        let size = u.count
        guard offset < size, let start = u.index(u.startIndex, offsetBy: offset, limitedBy: u.endIndex) else {
            return CellResult(text: "", offset: offset, size: size)
        }
        var end = CutCell.boundary(u, from: start, bytes: min(length, maxBytes))
        if end == start {  // one character longer than asked: send it whole
            end = u.index(after: start)
            while end < u.endIndex && (u[end] & 0xC0) == 0x80 { end = u.index(after: end) }
        }
        return CellResult(text: String(text[start..<end]), offset: offset, size: size)
    }
}

/// The result of `cell`.
public struct CellResult: Hashable, Sendable {
    /// The part: the whole value's bytes from `offset`, ending at a character boundary.
    public var text: String
    /// Echo of the request's offset.
    public var offset: Int
    /// The whole value's size in UTF-8 bytes.
    public var size: Int

    public init(text: String, offset: Int, size: Int) { self.text = text; self.offset = offset; self.size = size }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        let size = try r.int("size")
        let offset = try r.int("offset")
        if size < 0 { throw JSONFieldError(path: r.pathOf("size"), reason: "must not be negative") }
        self.init(text: try r.string("text"), offset: offset, size: size)
        if offset + text.utf8.count > size {
            throw JSONFieldError(path: r.pathOf("text"), reason: "runs past the value's size (\(size) bytes)")
        }
    }

    public var json: JSONValue { ["text": .string(text), "offset": .int(Int64(offset)), "size": .int(Int64(size))] }
}
