import TabdeckProtocol

/// `filter`: for a plugin that declares `filter`, a piece of a text cell of the first page (in
/// other letter case) keeps only rows with that text in a cell, ignoring case, including the row
/// it came from, with a `total` that counts them; a text in no row gives no rows and a total of 0.
enum FilterCheck {
    static let noSuchText = "tabdeck-check: no row has this 7f3a"

    static func run(_ ctx: CheckContext) {
        ctx.check("filter", needs: .rows) { (f) throws(CheckAbort) in
            guard ctx.capabilities.filter else {
                throw CheckAbort(reason: "not run: the plugin does not declare filter (it receives filter: null only)", skip: true)
            }
            guard ctx.capabilities.paging else {
                throw CheckAbort(reason: "not run: a streaming plugin (paging: false) is not asked to filter", skip: true)
            }
            let first = try ctx.page(offset: 0, limit: 50, into: &f)
            guard let (source, text) = pickText(first.rows) else {
                throw CheckAbort(reason: "not run: no text cell of 3 or more letters in the first 50 rows", skip: true)
            }
            let limit = 1_000
            let kept = try ctx.page(offset: 0, limit: limit, filter: text, into: &f)
            let needle = text.lowercased()
            let strays = kept.rows.filter { row in !row.cells.contains { cellText($0).lowercased().contains(needle) } }
            if let stray = strays.first {
                f.fail("filter \"\(text)\" kept \(strays.count) rows without it in a cell, such as \(stray.id)")
            }
            if kept.rows.count < limit, !kept.rows.contains(where: { $0.id == source }) {
                // A live table's row may have changed or gone between the two reads: only a warning there.
                f.problem(warning: ctx.capabilities.live, "filter \"\(text)\" did not keep row \(source), whose cell it comes from")
            }
            if kept.totalSent, let total = kept.total, kept.rows.count < limit, total != kept.rows.count {
                f.fail("filter \"\(text)\": total is \(total) but \(kept.rows.count) rows came")
            }
            let none = try ctx.page(offset: 0, limit: 10, filter: noSuchText, into: &f)
            if !none.rows.isEmpty { f.fail("a filter no row contains kept \(none.rows.count) rows") }
            if none.totalSent, let total = none.total, total != 0 { f.fail("a filter no row contains: total is \(total), not 0") }
            let count = kept.rows.count == 1 ? "1 row" : "\(kept.rows.count) rows\(kept.rows.count == limit ? " (or more)" : "")"
            return "filter \"\(text)\" kept \(count), each with it; a text in no row kept none"
        }
    }

    /// A row id and three letters from the middle of one of its text cells, with the ASCII
    /// letter case flipped (filters ignore case).
    static func pickText(_ rows: [Row]) -> (String, String)? {
        for row in rows {
            for cell in row.cells {
                guard case .string(let s) = cell else { continue }
                let letters = Array(s.unicodeScalars)
                guard letters.count >= 3 else { continue }
                let start = (letters.count - 3) / 2
                let piece = letters[start..<(start + 3)]
                guard piece.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else { continue }
                let flipped = String(String.UnicodeScalarView(piece.map {
                    $0.properties.isUppercase ? Unicode.Scalar(UInt8($0.value) + 32) : Unicode.Scalar(UInt8($0.value) &- 32)
                }))
                return (row.id, flipped)
            }
        }
        return nil
    }

    /// Whether a filter's (lowercased) text matches a cell: its text contains it. A number may
    /// also match as its source wrote it, with trailing zeros (`3331.10` for 3331.1, `3.00` for 3):
    /// PROTOCOL.md 11.3 lets a plugin filter on the text it holds.
    static func matches(_ cell: JSONValue, _ needle: String) -> Bool {
        let text = cellText(cell).lowercased()
        if text.contains(needle) { return true }
        switch cell {
        case .int, .double:
            let written = text.contains(".") || text.contains("e") ? text : text + "."
            return [written + "0", written + "00", written + "000"].contains { $0.contains(needle) }
        default:
            return false
        }
    }

    /// A cell as text, as a filter sees it.
    static func cellText(_ cell: JSONValue) -> String {
        switch cell {
        case .string(let s): s
        case .null: ""
        default: JSONWriter.string(cell)
        }
    }
}
