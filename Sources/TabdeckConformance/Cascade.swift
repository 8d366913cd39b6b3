/// One report per cause: a failed check whose cause would fail later checks too makes those
/// checks meaningless. They are reported as not run, naming the check that failed, so that a
/// paging mistake is said once (as the check about it) and not again by every check that reads
/// pages, nor a filter that ignores case again by every typed filter check.
enum Cascade {
    /// Check names that a failure of `failed` leaves meaningless (`*` at the end: a prefix).
    static func blocks(_ failed: String) -> [String] {
        switch failed {
        case "paging: first page":
            // The simplest page is wrong (its generation, its count, its cells): every read is.
            return ["paging: *", "sort*", "sections", "filter*", "locate", "find*", "where: *", "aggregate: *", "cell", "cancel", "children"]
        case "paging: whole table":
            return ["paging: middle page", "paging: last page", "paging: every id", "sort: ties across pages"]
        case "paging: middle page":
            return ["paging: last page", "paging: every id", "sort: ties across pages"]
        case "filter":
            return ["filter: *"]
        default:
            return []
        }
    }

    /// The failed check that makes `name` meaningless, if any.
    static func blocker(of name: String, failed: [String]) -> String? {
        failed.first { f in
            f != name && blocks(f).contains { $0.hasSuffix("*") ? name.hasPrefix($0.dropLast()) : name == $0 }
        }
    }
}
