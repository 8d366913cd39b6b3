/// One report per cause: a failed check whose cause would fail later checks too makes those
/// checks meaningless. They are reported as not run, naming the check that failed, so that a
/// paging mistake is said once (as the check about it) and not again by every check that reads
/// pages, nor a filter that ignores case again by every typed filter check.
enum Cascade {
    /// Every check that reads rows and compares them with an earlier read.
    static let readers = ["sort*", "sections", "filter*", "locate", "find*", "where: *", "aggregate: *", "cell", "cancel", "children"]

    /// Check names that a failure of `failed` leaves meaningless (`*` at the end: a prefix).
    static func blocks(_ failed: String) -> [String] {
        switch failed {
        case "paging: first page":
            // The simplest page is wrong (its generation, its count, its cells): every read is.
            return ["paging: *"] + readers
        case "paging: whole table":
            // Ids repeat, or an id came back with other cells: every later read is compared with
            // this one, so each would fail again for the same cause.
            return ["paging: middle page", "paging: last page", "paging: every id"] + readers
        case "paging: middle page":
            return ["paging: last page", "paging: every id", "sort: ties across pages"]
        case "paging: every id":
            // An id used by two rows: every check that finds rows by id sees it again.
            return readers
        case "stream: whole table":
            return ["stream: again", "cancel"]
        case "sort: ties across pages":
            // Ties that change places between pages make every sorted read repeat and lose rows
            // (the refusal of a sort by a non-sortable column reads none).
            return ["sort: * asc", "sort: * desc"]
        case "filter":
            return ["filter: *"]
        case "exit at end of input":
            // Still running after its input ended: after `shutdown` too (the same wait).
            return ["shutdown"]
        default:
            break
        }
        if failed.hasPrefix("filter: ") {
            // One rule for every type (a filter matches the text of every cell, 11.3): the
            // first typed column that breaks it stands for the others.
            return ["filter: *"]
        }
        if let column = failed.wholeMatch(of: /sort: (\S+) asc/)?.1 {
            // Nulls or ties misplaced in one direction are misplaced in the other.
            return ["sort: \(column) desc"]
        }
        if failed.hasPrefix("sort: "), failed.contains(",") {
            return ["sort: *,*"]
        }
        return []
    }

    /// The failed check that makes `name` meaningless, if any.
    static func blocker(of name: String, failed: [String]) -> String? {
        failed.first { f in f != name && blocks(f).contains { matches(name, $0) } }
    }

    /// `pattern` is a name, or holds one `*` that stands for any text (`filter*`, `sort: * desc`,
    /// `sort: *,*`: a sort by several keys).
    static func matches(_ name: String, _ pattern: String) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return name == pattern }
        let prefix = pattern[..<star], suffix = pattern[pattern.index(after: star)...]
        guard name.count >= prefix.count + suffix.count, name.hasPrefix(prefix) else { return false }
        if suffix.hasPrefix(",") { return name.dropFirst(prefix.count).contains(",") }
        return name.hasSuffix(suffix)
    }
}
