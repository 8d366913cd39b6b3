/// What a file holds, told from its first bytes (magic numbers first, the file name's extension
/// second), and so which plugin reads it. Pure: the caller reads the bytes and the size.
public indirect enum SourceFormat: Hashable, Sendable {
    /// Delimited text: CSV, TSV, `;` or `|` separated (the csv plugin sniffs the delimiter).
    case delimited(Delimited)
    case sqlite
    case parquet
    /// JSON lines: one object per line.
    case jsonLines
    /// A JSON document (an array of objects).
    case json
    case arrow
    case xlsx
    /// A compressed file; `inner` is what the name says is inside (`x.csv.gz`: csv), if it says.
    case compressed(Compression, inner: SourceFormat?)
    /// Not a table: what it looks like (``NotATable``).
    case notATable(NotATable)

    public enum Delimited: String, Hashable, Sendable { case csv, tsv }
    public enum Compression: String, Hashable, Sendable { case gzip, zstd, bzip2, xz }

    /// The DuckDB plugin's `format` arg for this format, if it has one (`csv|tsv|parquet|jsonl|json|arrow|xlsx`).
    public var duckdbFormat: String? {
        switch self {
        case .delimited(let d): d.rawValue
        case .parquet: "parquet"
        case .jsonLines: "jsonl"
        case .json: "json"
        case .arrow: "arrow"
        case .xlsx: "xlsx"
        case .compressed(_, let inner): inner?.duckdbFormat
        case .sqlite, .notATable: nil
        }
    }
}

/// Why a file is not a table, as the error names it: `data.bin: not a table (binary, 3.2 MB, starts 7F 45 4C 46)`.
public struct NotATable: Hashable, Sendable {
    /// What it looks like: `binary`, `text`, `empty file`, `zip archive`, ...
    public var kind: String
    public var size: Int
    /// Up to the first four bytes.
    public var first: [UInt8]

    public init(kind: String, size: Int, first: [UInt8]) { self.kind = kind; self.size = size; self.first = Array(first.prefix(4)) }

    /// The error for the file called `name` (as the person wrote it). One line, nothing from
    /// the file but hex digits.
    public func message(name: String) -> String {
        if size == 0 { return "\(name): not a table (empty file)" }
        let hex = first.map { b in
            let digits = String(b, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        return "\(name): not a table (\(kind), \(Recognition.sizeText(size))\(hex.isEmpty ? "" : ", starts " + hex))"
    }
}

public enum Recognition {
    /// How many bytes of the file's start ``recognize(head:size:name:)`` looks at.
    public static let headSize = 65_536

    /// The format of a file whose first bytes are `head` (up to ``headSize``), `size` bytes in
    /// all, called `name` (its extension is the second clue).
    public static func recognize(head: [UInt8], size: Int, name: String) -> SourceFormat {
        let notATable = { (kind: String) in SourceFormat.notATable(NotATable(kind: kind, size: size, first: head)) }
        if head.isEmpty { return notATable("empty file") }
        if let magic = magic(head, size: size, name: name) { return magic }
        let extensions = Self.extensions(name)
        let ext = extensions.last ?? ""
        // Binary formats whose magic is missing or cut: the extension says what was meant, and
        // the plugin names the damage.
        switch ext {
        case "parquet": return .parquet
        case "arrow", "feather", "ipc", "arrows": return .arrow
        case "sqlite", "sqlite3", "db": if !looksLikeText(head) { return .sqlite }
        default: break
        }
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) { return notATable("UTF-16 text") }
        guard looksLikeText(head) else { return notATable("binary") }
        var text = head[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        let start = text.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        switch start.first {
        case UInt8(ascii: "["): return .json
        case UInt8(ascii: "{"):
            // One object on its first line: JSON lines; an object spread over lines: a document.
            let line = start.prefix { $0 != 0x0A }
            let last = line.reversed().first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
            return last == UInt8(ascii: "}") ? .jsonLines : .json
        default: break
        }
        if let delimited = delimiter(text, ext: ext) { return .delimited(delimited) }
        switch ext {
        case "csv": return .delimited(.csv)
        case "tsv", "tab": return .delimited(.tsv)
        default: return notATable("text")
        }
    }

    /// The format a file's magic number says, if it has one.
    static func magic(_ head: [UInt8], size: Int, name: String) -> SourceFormat? {
        func starts(_ bytes: [UInt8]) -> Bool { head.starts(with: bytes) }
        func startsText(_ text: String) -> Bool { head.starts(with: Array(text.utf8)) }
        if startsText("SQLite format 3\0") { return .sqlite }
        if startsText("PAR1") { return .parquet }
        if startsText("ARROW1") { return .arrow }
        if starts([0x1F, 0x8B]) { return .compressed(.gzip, inner: inner(name)) }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return .compressed(.zstd, inner: inner(name)) }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .compressed(.xz, inner: inner(name)) }
        if head.count >= 4, startsText("BZh"), (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(head[3]) {
            return .compressed(.bzip2, inner: inner(name))
        }
        if starts([0x50, 0x4B, 0x03, 0x04]) {
            // An xlsx is a zip whose entries live under `xl/`; the names are stored as written,
            // so the first entries' headers show them.
            return contains(head, Array("xl/".utf8)) || extensions(name).last == "xlsx"
                ? .xlsx : .notATable(NotATable(kind: "zip archive", size: size, first: head))
        }
        if starts([0xD0, 0xCF, 0x11, 0xE0]) { return .notATable(NotATable(kind: "legacy Office file such as .xls; save it as .xlsx", size: size, first: head)) }
        return nil
    }

    /// What the name says is inside a compressed file (`sales.csv.gz`: csv).
    static func inner(_ name: String) -> SourceFormat? {
        let exts = extensions(name)
        guard exts.count >= 2 else { return nil }
        switch exts[exts.count - 2] {
        case "csv", "txt": return .delimited(.csv)
        case "tsv", "tab": return .delimited(.tsv)
        case "jsonl", "ndjson": return .jsonLines
        case "json": return .json
        case "parquet": return .parquet
        default: return nil
        }
    }

    /// The name's extensions, lowercased, in order (`a.CSV.gz`: `["csv", "gz"]`).
    static func extensions(_ name: String) -> [String] {
        let file = name.split(separator: "/").last.map(String.init) ?? name
        let parts = file.lowercased().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return parts.count > 1 ? Array(parts.dropFirst().filter { !$0.isEmpty }) : []
    }

    /// Text as people write it: no NUL byte, and hardly any other control bytes (tab, line
    /// breaks, form feed and ESC are fine). Bytes ≥ 0x80 count as text: Latin-1 files are text too.
    static func looksLikeText(_ head: [UInt8]) -> Bool {
        var controls = 0
        for b in head {
            if b == 0 { return false }
            if b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D && b != 0x0C && b != 0x1B { controls += 1 }
        }
        return controls * 100 <= head.count
    }

    /// The delimiter of delimited text: the most frequent of `,` tab `;` `|` outside quotes in
    /// the header line, when most of the next records have it too. nil: no delimiter.
    static func delimiter(_ text: ArraySlice<UInt8>, ext: String) -> SourceFormat.Delimited? {
        let records = Self.records(text, limit: 21)
        guard let header = records.first else { return nil }
        let candidates: [UInt8] = [0x2C, 0x09, 0x3B, 0x7C]
        let counts = candidates.map { d in header.filter { $0 == d }.count }
        guard let best = counts.max(), best > 0 else { return nil }
        // Ties: tab for .tsv/.tab, else the first of `,` tab `;` `|`.
        let tied = candidates.indices.filter { counts[$0] == best }
        let index = (ext == "tsv" || ext == "tab") && tied.contains(1) ? 1 : tied[0]
        let d = candidates[index]
        let rest = records.dropFirst()
        let having = rest.filter { $0.contains(d) }.count
        guard rest.isEmpty || having * 2 >= rest.count else { return nil }
        return d == 0x09 ? .tsv : .csv
    }

    /// The first `limit` records of delimited text, each as its bytes outside quotes (a quoted
    /// field may hold line breaks); a last record cut by the end of the head is left out
    /// unless it is the only one. Blank lines are skipped.
    static func records(_ text: ArraySlice<UInt8>, limit: Int) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var current: [UInt8] = []
        var quoted = false
        for b in text {
            if b == 0x22 { quoted.toggle(); continue }
            if quoted { continue }
            if b == 0x0A {
                if current.contains(where: { $0 != 0x0D && $0 != 0x20 }) { records.append(current) }
                current = []
                if records.count == limit { return records }
            } else {
                current.append(b)
            }
        }
        if records.isEmpty && !current.isEmpty { records.append(current) }
        return records
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// A size as people read it, in units of 1000: `512 bytes`, `1.5 KB`, `3.2 MB`.
    public static func sizeText(_ bytes: Int) -> String {
        if bytes == 1 { return "1 byte" }
        if bytes < 1000 { return "\(bytes) bytes" }
        var value = Double(bytes) / 1000
        for unit in ["KB", "MB", "GB", "TB"] {
            if value < 999.95 || unit == "TB" {
                let tenths = Int((value * 10).rounded())
                return "\(tenths / 10).\(tenths % 10) \(unit)"
            }
            value /= 1000
        }
        return "\(bytes) bytes"
    }
}
