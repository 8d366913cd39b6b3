/// What one check found: failures (the plugin does not conform), warnings (it works with
/// the host, but something should change), and notes (facts worth showing).
struct Findings: Sendable {
    var failures: [String] = []
    var warnings: [String] = []
    var notes: [String] = []
    /// Named causes of the failures (`unstable ties`), whose effects (rows lost, ids repeated)
    /// follow: a later check that found only causes an earlier check reported is not counted
    /// again (``CheckContext/check``).
    var causes: Set<String> = []

    /// A failure; one already found (the same text, from another read) is not added again.
    mutating func fail(_ text: String) { if !failures.contains(text) { failures.append(text) } }
    /// A failure with a named cause, which later checks may find again.
    mutating func fail(_ text: String, cause: String) { fail(text); causes.insert(cause) }
    /// A warning; one already found is not added again.
    mutating func warn(_ text: String) { if !warnings.contains(text) { warnings.append(text) } }
    mutating func note(_ text: String) { notes.append(text) }
    /// A failure, or only a warning when `warning` (a live table's data may have changed meanwhile).
    mutating func problem(warning: Bool, _ text: String) { if warning { warn(text) } else { fail(text) } }

    mutating func merge(_ other: Findings) {
        other.failures.forEach { fail($0) }
        other.warnings.forEach { warn($0) }
        causes.formUnion(other.causes)
        notes += other.notes
    }

    var status: CheckStatus { failures.isEmpty ? (warnings.isEmpty ? .passed : .warning) : .failed }

    /// Failures and warnings, then notes, each at most `limit` times per kind (with a count of the rest).
    func lines(limit: Int = 8) -> [String] {
        func capped(_ items: [String], _ prefix: String) -> [String] {
            var out = items.prefix(limit).map { prefix + $0 }
            if items.count > limit { out.append("\(prefix)… and \(items.count - limit) more") }
            return out
        }
        return capped(failures, "✗ ") + capped(warnings, "! ") + capped(notes, "")
    }
}

/// Ends a check early: the plugin's answer makes the rest of it meaningless.
struct CheckAbort: Error, Sendable {
    var reason: String
    /// Skip instead of fail (the check cannot run, through no new fault of the plugin).
    var skip = false
    /// Notes to show under the line (stderr of a crashed plugin, ...).
    var notes: [String] = []
}
