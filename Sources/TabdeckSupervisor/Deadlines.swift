import TabdeckProtocol

/// The requests sent to one plugin and not yet answered, with their deadlines.
///
/// Pure bookkeeping, no clock of its own: callers pass `now`. A request times out at
/// `sent + timeout`; a `progress` notification moves every deadline to `now + timeout`,
/// but never past `sent + hardTimeout`.
struct Deadlines {
    typealias Instant = ContinuousClock.Instant

    struct Entry: Equatable {
        var method: String
        var sequence: Int
        var timeout: Duration
        var hardDeadline: Instant
        var deadline: Instant
    }

    private(set) var entries: [RequestID: Entry] = [:]
    private var nextSequence = 0

    var isEmpty: Bool { entries.isEmpty }

    func contains(_ id: RequestID) -> Bool { entries[id] != nil }

    /// Starts the timer of a request; false if `id` is already pending.
    mutating func insert(_ id: RequestID, method: String, timeout: Duration, hardTimeout: Duration, now: Instant) -> Bool {
        guard entries[id] == nil else { return false }
        let hard = now + hardTimeout
        entries[id] = Entry(method: method, sequence: nextSequence, timeout: timeout, hardDeadline: hard, deadline: min(now + timeout, hard))
        nextSequence += 1
        return true
    }

    /// Forgets a request (answered or cancelled); nil if it was not pending.
    @discardableResult
    mutating func remove(_ id: RequestID) -> Entry? {
        entries.removeValue(forKey: id)
    }

    /// The plugin showed progress: every pending request gets its full timeout again, capped by its hard deadline.
    mutating func progress(now: Instant) {
        for id in entries.keys {
            entries[id]!.deadline = min(now + entries[id]!.timeout, entries[id]!.hardDeadline)
        }
    }

    /// Removes and returns the requests whose deadline has passed, in the order they were sent.
    mutating func expire(now: Instant) -> [(id: RequestID, method: String)] {
        let expired = entries.filter { $0.value.deadline <= now }.sorted { $0.value.sequence < $1.value.sequence }
        for (id, _) in expired { entries[id] = nil }
        return expired.map { (id: $0.key, method: $0.value.method) }
    }

    /// The earliest deadline, if any request is pending.
    var earliest: Instant? { entries.values.map(\.deadline).min() }

    /// The pending ids in the order they were sent.
    var pendingIDs: [RequestID] {
        entries.sorted { $0.value.sequence < $1.value.sequence }.map(\.key)
    }

    /// Forgets everything; returns what was pending, in the order it was sent.
    mutating func removeAll() -> [RequestID] {
        defer { entries.removeAll() }
        return pendingIDs
    }
}
