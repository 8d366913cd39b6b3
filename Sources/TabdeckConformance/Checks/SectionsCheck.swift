import TabdeckProtocol

/// `sections`: for a table that lists sections, every row names a listed section, the rows of
/// each section are contiguous and come in the order the description lists the sections (in the
/// natural order and under a sort), and each section's `count` is the number of rows naming it
/// (PROTOCOL.md 10.6).
enum SectionsCheck {
    static let rule = "(PROTOCOL.md 10.6)"

    static func run(_ ctx: CheckContext) {
        if ctx.skipReason(.rows) != nil {
            ctx.check("sections", needs: .rows) { _ in "" }
            return
        }
        guard let table = ctx.table, !table.sections.isEmpty else {
            ctx.record(CheckResult(name: "sections", status: .skipped, summary: "not run: the table lists no sections"))
            return
        }
        ctx.check("sections", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            var scratch = Findings()
            let natural = try ctx.naturalOrder(into: &scratch)
            scratch.failures.forEach { f.fail($0) }
            guard natural.complete else {
                // Sample pages: contiguity can only be judged inside each run of adjacent positions.
                verify(natural.rows, positions: natural.positions, sections: table.sections, order: "the natural order", counts: false, into: &f)
                return "\(table.sections.count) sections; sample pages only: contiguity checked within them"
            }
            verify(natural.rows, positions: natural.positions, sections: table.sections, order: "the natural order", counts: true, into: &f)
            var orders = ["natural order"]
            // The first sortable column descending, then every other sort order the sort checks
            // read whole (as they read it, not again): sections stay together in each.
            let epoch = ctx.session.invalidateCount
            var sorts = ctx.sortedReads.filter { $0.epoch == epoch }.map { (sort: $0.sort, read: $0.read) }
            if ctx.capabilities.sort, let column = table.columns.first(where: \.sortable) {
                let first = [SortKey(column.id, .descending)]
                let read: TableRead
                if let kept = sorts.first(where: { $0.sort == first })?.read { read = kept } else { read = try ctx.read(sort: first, into: &f) }
                sorts.removeAll { $0.sort == first }
                sorts.insert((first, read), at: 0)
            }
            for (sort, read) in sorts {
                verify(read.rows, positions: read.positions, sections: table.sections,
                       order: "the sort by " + sort.map { "\($0.column) \($0.direction.rawValue)" }.joined(separator: ", "),
                       counts: false, into: &f)
            }
            if !sorts.isEmpty { orders.append("\(sorts.count) sort orders") }
            if ctx.capabilities.filter, let (_, text) = FilterCheck.pickText(natural.rows) {
                try filtered(ctx, text, table: table, into: &f)
                orders.append("filtered by \"\(text)\"")
            }
            guard f.failures.isEmpty else { return "\(table.sections.count) sections: the rows do not match them (\(orders.joined(separator: ", ")))" }
            return "\(table.sections.count) sections, contiguous and in the listed order (\(orders.joined(separator: ", "))); counts match"
        }
    }

    /// Under a filter, sections a result sends again (10.6) count the rows the filter kept.
    static func filtered(_ ctx: CheckContext, _ text: String, table: TableDescription, into f: inout Findings) throws(CheckAbort) {
        let limit = CheckContext.readPageSize
        let page = try ctx.page(offset: 0, limit: limit, filter: text, into: &f)
        guard let sent = page.sections, page.rows.count < limit else { return }
        var kept: [String: Int] = [:]
        for row in page.rows { kept[row.section ?? "", default: 0] += 1 }
        for section in sent {
            if let count = section.count, count != kept[section.id, default: 0] {
                f.fail("under filter \"\(text)\", the result's section \(section.id) says count \(count), but \(kept[section.id, default: 0]) of the rows kept name it: sections sent with a result count its rows \(rule)")
            }
        }
    }

    /// Checks rows (at increasing table positions) against the listed sections.
    static func verify(_ rows: [Row], positions: [Int], sections: [SectionSpec], order: String, counts: Bool,
                       into f: inout Findings) {
        let rank = Dictionary(sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        var unknown = 0, unnamed = 0
        var closed = Set<String>()
        var reported = 0
        var seen: [String: Int] = [:]
        for i in rows.indices {
            let row = rows[i]
            guard let section = row.section else {
                if unnamed == 0 { f.fail("row \(row.id) (position \(positions[i])) names no section, but the table has sections: every row SHOULD carry section \(rule)") }
                unnamed += 1
                continue
            }
            seen[section, default: 0] += 1
            guard let r = rank[section] else {
                // A fact about the row, whatever the order it was read in: said once.
                if unknown == 0 { f.fail("row \(row.id) names section \(section), which the table does not list \(rule)") }
                unknown += 1
                continue
            }
            guard i > 0, positions[i - 1] == positions[i] - 1, let previous = rows[i - 1].section, previous != section,
                  let p = rank[previous] else { continue }
            closed.insert(previous)
            if closed.contains(section) || r < p, reported < 3 {
                reported += 1
                let why = closed.contains(section)
                    ? "its rows are not contiguous: section \(section) appears again after rows of section \(previous)"
                    : "section \(section) comes after section \(previous), but the table lists it before"
                f.fail("in \(order), row \(row.id) (position \(positions[i])): \(why); sections are contiguous, in the listed order \(rule)")
            }
        }
        if unknown > 1 { f.fail("… \(unknown - 1) more rows name a section the table does not list") }
        if unnamed > 1 { f.fail("… \(unnamed - 1) more rows name no section") }
        guard counts else { return }
        for section in sections {
            guard let count = section.count else { continue }
            let actual = seen[section.id, default: 0]
            if actual != count {
                f.fail("section \(section.id) says count \(count), but \(actual) rows name it \(rule)")
            }
        }
    }
}
