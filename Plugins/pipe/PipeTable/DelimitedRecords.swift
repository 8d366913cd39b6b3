/// Splits delimited text into records as bytes arrive: RFC 4180 quoting (a quoted field may
/// hold delimiters, `""` and line breaks), `\r\n` or `\n` line ends. A record is complete once
/// its line end (outside quotes) has arrived; ``finish()`` gives the last one at the end of the
/// stream.
public struct DelimitedRecords: Sendable {
    public let delimiter: UInt8
    private var fields: [String] = []
    private var field: [UInt8] = []
    private var quoted = false
    /// A quote just closed inside a quoted field: the next byte decides (`"` escapes one).
    private var quoteClosing = false
    private var fieldStarted = false

    public init(delimiter: UInt8) { self.delimiter = delimiter }

    /// Feeds bytes; returns the records they complete, in order.
    public mutating func feed<S: Sequence>(_ bytes: S) -> [[String]] where S.Element == UInt8 {
        var records: [[String]] = []
        for byte in bytes {
            if quoted {
                if quoteClosing {
                    quoteClosing = false
                    if byte == 0x22 { field.append(0x22); continue }
                    quoted = false  // the quote ended the quoted part; this byte is outside
                } else if byte == 0x22 {
                    quoteClosing = true
                    continue
                } else {
                    field.append(byte)
                    continue
                }
            }
            switch byte {
            case 0x22 where !fieldStarted:
                quoted = true
                fieldStarted = true
            case delimiter:
                endField()
            case 0x0A:
                if field.last == 0x0D { field.removeLast() }
                endField()
                if !(fields.count == 1 && fields[0].isEmpty) { records.append(fields) }  // blank lines are no records
                fields = []
            default:
                field.append(byte)
                fieldStarted = true
            }
        }
        return records
    }

    /// The last record when the stream ended without a line end, if any.
    public mutating func finish() -> [String]? {
        if quoteClosing { quoteClosing = false; quoted = false }
        guard fieldStarted || !field.isEmpty || !fields.isEmpty else { return nil }
        if field.last == 0x0D { field.removeLast() }
        endField()
        defer { fields = [] }
        return fields.count == 1 && fields[0].isEmpty ? nil : fields
    }

    private mutating func endField() {
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        quoted = false
        quoteClosing = false
        fieldStarted = false
    }
}
