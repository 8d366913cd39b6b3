import TabdeckProtocol

/// The requests sent to one plugin and not yet answered, with their deadlines: the one ledger
/// of pending requests of a plugin connection.
///
/// Pure bookkeeping on seconds of the supervisor's `MonotonicClock`: callers pass `now`.
///
/// - A request times out at `sent + timeout`. A `progress` notification (or a `rows/chunk`)
///   moves the deadline of every request still running to `now + timeout`: work that keeps
///   reporting progress is never cut off by a fixed limit.
/// - A cancelled request (`$/cancel` seen going out) stops running: its deadline becomes
///   `cancelled + grace`, which progress does not move. It is settled when the plugin answers
///   it, or answers a request sent after the cancel (the protocol lets a plugin drop a
///   cancelled request silently; answering a later one shows it went on). Otherwise it expires
///   as ignored.
struct Deadlines {
    struct Entry: Equatable {
        var method: String
        var sequence: Int
        /// The request's own timeout, in seconds.
        var timeout: Double
        var deadline: Double
        /// Set once the request was cancelled: the sequence number the next request sent gets
        /// (an answer to a request at or after it settles this one) and the cancel grace.
        var cancel: Cancel?
    }

    /// A cancelled request's settling rule: answers to requests numbered `mark` or later
    /// settle it; `grace` is how long it had.
    struct Cancel: Equatable {
        var mark: Int
        var grace: Double
    }

    /// Why a request left the ledger without an answer.
    enum Expiry: Equatable {
        /// No answer within `seconds` (the request's timeout, counted from when it was sent or
        /// from the last progress).
        case timedOut(seconds: Double)
        /// Cancelled `seconds` ago (the cancel grace) and neither answered nor dropped.
        case cancelIgnored(seconds: Double)
    }

    private(set) var entries: [RequestID: Entry] = [:]
    private var nextSequence = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Whether `id` is in the ledger (running or cancelled).
    func contains(_ id: RequestID) -> Bool { entries[id] != nil }

    /// Starts the timer of a request; false if `id` is already in the ledger.
    mutating func insert(_ id: RequestID, method: String, timeout: Double, now: Double) -> Bool {
        guard entries[id] == nil else { return false }
        entries[id] = Entry(method: method, sequence: nextSequence, timeout: timeout, deadline: now + timeout)
        nextSequence += 1
        return true
    }

    /// The host cancelled `id`: from now on it has `grace` seconds to be answered or dropped,
    /// and progress no longer extends it. False if `id` is not running (unknown, answered,
    /// or already cancelled).
    @discardableResult
    mutating func cancel(_ id: RequestID, grace: Double, now: Double) -> Bool {
        guard var entry = entries[id], entry.cancel == nil else { return false }
        entry.cancel = Cancel(mark: nextSequence, grace: grace)
        entry.deadline = now + grace
        entries[id] = entry
        return true
    }

    /// The plugin answered `id`: forgets it and returns its entry (nil if it was not in the
    /// ledger). A cancelled request answered later than a request sent after its cancel is
    /// settled too.
    @discardableResult
    mutating func answer(_ id: RequestID) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if entry.cancel == nil {
            for (other, pending) in entries {
                if let cancel = pending.cancel, cancel.mark <= entry.sequence { entries[other] = nil }
            }
        }
        return entry
    }

    /// Forgets a request without an answer; nil if it was not in the ledger.
    @discardableResult
    mutating func remove(_ id: RequestID) -> Entry? {
        entries.removeValue(forKey: id)
    }

    /// The plugin showed progress: every running request gets its full timeout again;
    /// cancelled ones keep their cancel deadline.
    mutating func progress(now: Double) {
        for (id, entry) in entries where entry.cancel == nil {
            entries[id]!.deadline = now + entry.timeout
        }
    }

    /// Removes and returns the requests whose deadline has passed, in the order they were sent.
    mutating func expire(now: Double) -> [(id: RequestID, method: String, expiry: Expiry)] {
        let expired = entries.filter { $0.value.deadline <= now }.sorted { $0.value.sequence < $1.value.sequence }
        for (id, _) in expired { entries[id] = nil }
        return expired.map { id, entry in
            let expiry: Expiry = entry.cancel.map { .cancelIgnored(seconds: $0.grace) } ?? .timedOut(seconds: entry.timeout)
            return (id: id, method: entry.method, expiry: expiry)
        }
    }

    /// The earliest deadline, if any request is in the ledger.
    var earliest: Double? { entries.values.map(\.deadline).min() }

    /// The running (not cancelled) request ids in the order they were sent.
    var pendingIDs: [RequestID] {
        entries.filter { $0.value.cancel == nil }.sorted { $0.value.sequence < $1.value.sequence }.map(\.key)
    }

    /// Forgets everything; returns the running requests, in the order they were sent.
    mutating func removeAll() -> [RequestID] {
        defer { entries.removeAll() }
        return pendingIDs
    }
}
