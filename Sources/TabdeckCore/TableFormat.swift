import TabdeckProtocol

/// Rows as text in the formats `export` writes and `copy` puts on the clipboard: pure, shared
/// by the export file writer (at the edge) and the core's `copy`.
public enum TableFormat {
    /// One CSV record (RFC 4180, no line break): a field holding `,` `"` CR or LF is quoted with
    /// its quotes doubled. Strings are written as they are; other cells as ``CellText`` writes
    /// them (a decimal column with its digits); a header row's cells are the column ids.
    public static func csvRecord(_ cells: [JSONValue], columns: [ColumnSpec], header: Bool = false) -> String {
        var out: [UInt8] = []
        appendCSVRecord(cells, columns: columns, header: header, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``csvRecord(_:columns:header:)`` appended to `out` as UTF-8 (the export file's writer).
    public static func appendCSVRecord(_ cells: [JSONValue], columns: [ColumnSpec], header: Bool = false, into out: inout [UInt8]) {
        for (i, cell) in cells.enumerated() {
            if i > 0 { out.append(comma) }
            switch cell {
            case .string(let s): appendCSVField(s, into: &out)
            default: appendCSVField(!header && i < columns.count ? CellText.of(cell, in: columns[i]) : CellText.of(cell), into: &out)
            }
        }
    }

    /// `text` as one CSV field, quoted when it must be, appended to `out`. Byte by byte: the four bytes that make a field quoted
    /// are ASCII, and an ASCII byte in UTF-8 is always that scalar (never part of another), so
    /// this is the scalar-by-scalar rule of ``Swift/String/replacingScalar(_:with:)``.
    public static func appendCSVField(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == comma || $0 == quote || $0 == 0x0A || $0 == 0x0D }) else {
                out.append(contentsOf: bytes)
                return
            }
            out.append(quote)
            for b in bytes {
                out.append(b)
                if b == quote { out.append(quote) }
            }
            out.append(quote)
        }
    }

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")

    /// One TSV line: each cell as the screen shows it (``CellText``: a tab in a cell becomes a
    /// space and a line break the visible `\n`, so a cell never breaks the line or the columns).
    public static func tsvLine(_ cells: [JSONValue], columns: [ColumnSpec]) -> String {
        cells.enumerated().map { i, cell in i < columns.count ? CellText.of(cell, in: columns[i]) : CellText.of(cell) }
            .joined(separator: "\t")
    }

    /// The row as a JSON object keyed by column id (one line; every control character escaped).
    public static func jsonObject(_ cells: [JSONValue], columns: [ColumnSpec]) -> String {
        var object = JSONObject()
        for (i, c) in columns.enumerated() { object[c.id] = i < cells.count ? cells[i] : .null }
        return JSONWriter.string(.object(object), terminalSafe: true)
    }

    /// Text that may reach a clipboard, and from it a terminal: every control character but tab
    /// and line feed in its visible form (``Sanitizer``), so pasting it runs nothing.
    public static func clipboardSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { Sanitizer.isUnsafe($0) && $0 != "\t" && $0 != "\n" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if Sanitizer.isUnsafe(scalar) && scalar != "\t" && scalar != "\n" {
                out += Sanitizer.clean(String(scalar))
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
