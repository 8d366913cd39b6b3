import TabdeckSources

/// The format sniffer (``Recognition``) on any file's first bytes, and the PostgreSQL URL
/// splitter (``PostgresURL``) on any text after `postgresql://`.
///
/// Invariants: the same bytes always get the same format; a file that starts with a magic
/// number is that format whatever its name; text with a NUL byte is never delimited text or
/// JSON; a not-a-table message is one line of printable text that ends with the first bytes in
/// hex; a URL's safe form has no password and is its own safe form.
enum SourcesTarget {
    static let target = FuzzTarget(
        name: "sources",
        summary: "the format sniffer and the URL splitter: stable, magic first, one clean line for not-a-table, no password kept",
        check: check)

    static let names = ["data.csv", "data.tsv", "x.parquet", "x.csv.gz", "x", "x.sqlite", "book.xlsx", "x.jsonl.zst", "a.feather", "README.md"]
    static let magics: [([UInt8], SourceFormat)] = [
        (Array("SQLite format 3\0".utf8), .sqlite), (Array("PAR1".utf8), .parquet), (Array("ARROW1".utf8), .arrow),
    ]

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        var reader = FuzzReader(bytes)
        let name = names[Int(reader.byte()) % names.count]
        let head = reader.rest
        let size = head.count + Int(reader.byte() & 3) * 1_000_000
        let format = Recognition.recognize(head: head, size: size, name: name)
        if Recognition.recognize(head: head, size: size, name: name) != format {
            return FuzzViolation("sources", "the same bytes get the same format", excerpt(bytes))
        }
        for (magic, expected) in magics {
            let again = Recognition.recognize(head: magic + head, size: size + magic.count, name: name)
            if again != expected {
                return FuzzViolation("sources", "a magic number wins over the name", "\(excerpt(magic + head)) as \(name): \(again)")
            }
        }
        switch format {
        case .delimited, .json, .jsonLines:
            if head.contains(0) { return FuzzViolation("sources", "text with NUL is binary", "\(excerpt(bytes)): \(format)") }
        case .notATable(let what):
            let message = what.message(name: name)
            if message.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return FuzzViolation("sources", "a not-a-table message is one clean line", message)
            }
            let hex = head.prefix(4).map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined(separator: " ")
            if size > 0 && !head.isEmpty && !message.hasSuffix("starts \(hex))") {
                return FuzzViolation("sources", "a not-a-table message ends with the first bytes", "\(message) for \(excerpt(head))")
            }
        default: break
        }
        let text = "postgresql://" + String(decoding: head.prefix(200), as: UTF8.self)
        guard let url = PostgresURL(text) else { return FuzzViolation("sources", "a postgresql:// text is a URL", excerpt(bytes)) }
        guard let again = PostgresURL(url.url) else { return FuzzViolation("sources", "a safe URL parses", url.url) }
        if again.password != nil || again.url != url.url {
            return FuzzViolation("sources", "a safe URL has no password and is its own safe form", "\(text) → \(url.url) → \(again.url)")
        }
        return nil
    }
}
