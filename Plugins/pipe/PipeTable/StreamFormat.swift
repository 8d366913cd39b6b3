/// How the lines of a piped table are written, recognised from its first line.
public enum StreamFormat: Equatable, Sendable {
    /// Delimited text with RFC 4180 quoting: comma, semicolon, pipe or tab.
    case delimited(UInt8)
    /// One JSON object per line.
    case jsonLines
    /// Columns aligned with spaces under a header line, as `ps aux`, `df -h` or `docker ps`
    /// print them.
    case aligned

    /// The format of a stream whose first non-blank line is `line` (without its line end; a
    /// UTF-8 BOM already removed). A line starting with `{` is JSON lines; else the most frequent
    /// of tab, `,`, `;`, `|` outside quotes is the delimiter (tab wins ties, then the order
    /// given); a line with none of them is aligned columns.
    public static func sniff(firstLine line: [UInt8]) -> StreamFormat {
        var start = 0
        while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        if start < line.count, line[start] == UInt8(ascii: "{") { return .jsonLines }
        let candidates: [UInt8] = [0x09, UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "|")]
        var counts = [Int](repeating: 0, count: candidates.count)
        var quoted = false
        for byte in line {
            if byte == UInt8(ascii: "\"") { quoted.toggle(); continue }
            if quoted { continue }
            if let i = candidates.firstIndex(of: byte) { counts[i] += 1 }
        }
        var best = -1
        for i in candidates.indices where counts[i] > 0 && (best < 0 || counts[i] > counts[best]) { best = i }
        return best < 0 ? .aligned : .delimited(candidates[best])
    }

    /// A name for messages: `csv (;)`, `tsv`, `json lines`, `aligned columns`.
    public var name: String {
        switch self {
        case .delimited(0x09): "tsv"
        case .delimited(UInt8(ascii: ",")): "csv"
        case .delimited(let d): "csv (\(Character(Unicode.Scalar(d))))"
        case .jsonLines: "json lines"
        case .aligned: "aligned columns"
        }
    }
}
