/// How a file is split into fields.
public struct CSVDialect: Equatable, Sendable {
    public var delimiter: UInt8

    public init(delimiter: UInt8) { self.delimiter = delimiter }

    /// Reads a delimiter given as text: one ASCII character, or `\t` / `tab`.
    public static func delimiter(from text: String) throws(CSVError) -> UInt8 {
        switch text {
        case "\\t", "tab", "\t": return Byte.tab
        default:
            let bytes = Array(text.utf8)
            guard bytes.count == 1, bytes[0] != Byte.quote, bytes[0] != Byte.newline, bytes[0] != Byte.cr, bytes[0] < 0x80 else {
                throw CSVError("delimiter must be one ASCII character other than a quote or a line break, got \"\(text)\"")
            }
            return bytes[0]
        }
    }

    /// Guesses the delimiter from the header line: the candidate (`,` tab `;` `|`) seen most
    /// often outside quotes. Ties and a line without any go to tab for `.tsv`/`.tab` files
    /// and to comma otherwise.
    static func sniff(_ line: UnsafeBufferPointer<UInt8>, path: String) -> UInt8 {
        let lower = path.lowercased()
        let tabFirst = lower.hasSuffix(".tsv") || lower.hasSuffix(".tab")
        let candidates: [UInt8] = tabFirst ? [Byte.tab, Byte.comma, Byte.semicolon, Byte.pipe]
                                           : [Byte.comma, Byte.tab, Byte.semicolon, Byte.pipe]
        var counts = [Int](repeating: 0, count: 256)
        var inQuotes = false
        for b in line {
            if b == Byte.quote { inQuotes.toggle(); continue }
            if b == Byte.newline && !inQuotes { break }
            if !inQuotes { counts[Int(b)] += 1 }
        }
        var best = candidates[0], bestCount = 0
        for c in candidates where counts[Int(c)] > bestCount { best = c; bestCount = counts[Int(c)] }
        return best
    }
}
