import TabdeckProtocol

/// Sections of a table (PROTOCOL.md §10.6): contiguous runs of rows, in the order the table
/// description lists them; a plugin that sorts keeps each section together and sorts inside it.
///
/// Where a section starts is known two ways: from the sections' `count`s (without fetching a
/// row), or from loaded rows whose `section` differs from the row before. Loaded rows win, so
/// a header is right even when counts went stale; counts fill in where a neighbour row is not
/// loaded, and drive the section index.
extension TableState {
    /// The sections in the description's order.
    public var sections: [SectionSpec] { description.sections }

    /// The first row of each section, when every section has a count; nil otherwise.
    public var sectionStarts: [Int]? {
        guard !sections.isEmpty else { return nil }
        var starts: [Int] = []
        var next = 0
        for s in sections {
            guard let count = s.count else { return nil }
            starts.append(next)
            next += count
        }
        return starts
    }

    /// The section of row `index`: the loaded row's own `section`, else from the counts.
    public func section(at index: Int) -> SectionSpec? {
        guard !sections.isEmpty, index >= 0 else { return nil }
        if let row = cache.row(at: index), let id = row.section { return sections.first { $0.id == id } }
        guard let starts = sectionStarts else { return nil }
        for i in sections.indices.reversed() where starts[i] <= index {
            return index < starts[i] + sections[i].count! ? sections[i] : nil
        }
        return nil
    }

    /// The section whose header goes right before row `index` (the row starts a section).
    public func sectionHeader(before index: Int) -> SectionSpec? {
        guard let current = section(at: index) else { return nil }
        if index == 0 { return current }
        guard let previous = section(at: index - 1) else { return nil }  // not loaded and no counts: unknown
        return previous.id == current.id ? nil : current
    }

    /// The section whose footer goes right after row `index` (the row ends a section). Only
    /// sections with a footer text have one.
    public func sectionFooter(after index: Int) -> SectionSpec? {
        guard let current = section(at: index), current.footer != nil else { return nil }
        if let total, index == total - 1 { return current }
        guard let next = section(at: index + 1) else {
            // Past the last counted row, or not loaded and no counts (unknown).
            let counted = sectionStarts.map { _ in sections.reduce(0) { $0 + ($1.count ?? 0) } }
            return counted == index + 1 ? current : nil
        }
        return next.id == current.id ? nil : current
    }

    /// How many data rows from row `first` fit in `lines` screen lines, section headers and
    /// footers taking a line each (a footer may be cut off at the bottom); at least 1. Without
    /// sections, `lines`.
    public func dataRows(from first: Int, lines: Int) -> Int {
        guard !sections.isEmpty else { return lines }
        var used = 0, count = 0, i = max(0, first)
        while total.map({ i < $0 }) ?? true {
            let needed = (sectionHeader(before: i) != nil ? 1 : 0) + 1
            if used + needed > lines { break }
            used += needed + (sectionFooter(after: i) != nil ? 1 : 0)
            count += 1
            i += 1
        }
        return max(1, count)
    }

    /// The first section whose title (or id) starts with `prefix`, ignoring case; sections
    /// with no rows (count 0) are skipped.
    public func section(matching prefix: String) -> SectionSpec? {
        let p = prefix.lowercased()
        let candidates = sections.filter { $0.count != 0 }
        return candidates.first { $0.title.lowercased().hasPrefix(p) } ?? candidates.first { $0.id.lowercased().hasPrefix(p) }
    }

    /// The first row of section `id`: from the counts, else the first loaded row of it that
    /// follows a row of another section (or is row 0); nil when not known.
    public func sectionStart(_ id: String) -> Int? {
        if let starts = sectionStarts, let i = sections.firstIndex(where: { $0.id == id }) { return starts[i] }
        for page in cache.cachedPages {
            for i in 0..<cache.pageSize {
                let index = page * cache.pageSize + i
                guard let row = cache.row(at: index), row.section == id else { continue }
                if index == 0 { return 0 }
                if let before = cache.row(at: index - 1), before.section != id { return index }
            }
        }
        return nil
    }
}

extension Workspace {
    /// `jump PREFIX`: the section whose title starts with `prefix`.
    func sectionMatching(_ t: TableState, _ prefix: String) throws(CommandError) -> SectionSpec {
        guard !t.sections.isEmpty else { throw CommandError("\(t.label) has no sections") }
        guard let s = t.section(matching: prefix) else {
            let titles = t.sections.filter { $0.count != 0 }.map(\.title)
            throw CommandError("no section of \(t.label) starts with \"\(prefix)\" (sections: \(titles.joined(separator: ", ")))",
                               suggestion: CommandParser.suggest(prefix, among: titles))
        }
        return s
    }
}

extension TableState {
    /// Takes the sections a plugin sent with rows or `invalidate` (PROTOCOL.md §10.6): their
    /// titles, footers and counts replace the description's; sections not listed stay, without
    /// a count or footer (a filter may have emptied them; their rows say otherwise).
    mutating func updateSections(_ new: [SectionSpec]) {
        guard !sections.isEmpty || !new.isEmpty else { return }
        let byID = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var updated = description.sections.map { old in byID[old.id] ?? SectionSpec(id: old.id, title: old.title) }
        // Sections new to the table go after the known ones, in the plugin's order.
        let known = Set(updated.map(\.id))
        updated += new.filter { !known.contains($0.id) }
        description.sections = updated
        if !view.isFiltered { unfilteredSections = updated }
    }

    /// After a filter the sections' counts and footers describe rows no longer shown: they go
    /// (headers then come from the rows' `section`) until the plugin sends new ones; clearing
    /// the filter brings back the whole table's.
    mutating func forgetSectionCounts() {
        description.sections = !view.isFiltered ? unfilteredSections
            : unfilteredSections.map { SectionSpec(id: $0.id, title: $0.title) }
    }
}
