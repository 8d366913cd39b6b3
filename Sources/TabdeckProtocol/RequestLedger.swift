/// The requests sent on one plugin connection and not yet answered: why each was sent, and
/// when it is given up. Each connection has exactly one, kept by whoever sends on it: the
/// host's core for a tab's plugin (``Purpose`` says what the reply is for), the supervisor's
/// request tracking for clients without a core of their own (the plugin checker).
///
/// Pure bookkeeping on seconds of a monotonic clock: callers pass `now`.
///
/// - A request times out at `sent + timeout`. A `progress` notification (or a `rows/chunk`)
///   moves the deadline of every request still running to `now + timeout`, but never past
///   `sent + limit` when the request has a hard maximum (`limit`): there the caller cancels it
///   (``overLimit(now:grace:)``) instead of letting it time out.
/// - A cancelled request (`$/cancel` sent) stops running: its deadline becomes
///   `cancelled + grace`, which progress does not move. It is settled when the plugin answers
///   it, or answers a request sent after the cancel (the protocol lets a plugin drop a
///   cancelled request silently; answering a later one shows it went on). Otherwise it expires
///   as ignored.
public struct RequestLedger<Purpose: Sendable>: Sendable {
    /// One request in the ledger.
    public struct Entry: Sendable {
        /// The request's method.
        public var method: String
        /// What the request is for (what its reply feeds).
        public var purpose: Purpose
        /// Its place in the order requests were sent on this connection.
        public var sequence: Int
        /// The request's own timeout, in seconds.
        public var timeout: Double
        /// When it is given up, on the caller's clock.
        public var deadline: Double
        /// Its hard maximum, in seconds from when it was sent, and when that passes; nil: none.
        public var limit: Double?
        public var limitDeadline: Double?
        /// Set once the request was cancelled.
        public var cancel: Cancel?

        /// Whether the host still waits for the request's answer (it was not cancelled).
        public var isRunning: Bool { cancel == nil }
    }

    /// A cancelled request's settling rule: answers to requests numbered `mark` or later
    /// settle it; `grace` is how long it had.
    public struct Cancel: Equatable, Sendable {
        public var mark: Int
        public var grace: Double
    }

    /// Why a request left the ledger without an answer.
    public enum Expiry: Equatable, Sendable {
        /// No answer within `seconds` (the request's timeout, counted from when it was sent or
        /// from the last progress).
        case timedOut(seconds: Double)
        /// Cancelled `seconds` ago (the cancel grace) and neither answered nor dropped.
        case cancelIgnored(seconds: Double)
        /// Still running `seconds` after it was sent, its hard maximum (progress kept it alive):
        /// cancelled by ``overLimit(now:grace:)``, and still in the ledger for its grace.
        case limitReached(seconds: Double)
    }

    /// A request that left the ledger without an answer.
    public struct Expired: Sendable {
        public var id: RequestID
        public var method: String
        public var purpose: Purpose
        public var expiry: Expiry
    }

    public private(set) var entries: [RequestID: Entry] = [:]
    private var nextSequence = 0

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    /// Whether `id` is in the ledger (running or cancelled).
    public func contains(_ id: RequestID) -> Bool { entries[id] != nil }

    /// The purpose of `id` while the host still waits for its answer (nil once cancelled).
    public func running(_ id: RequestID) -> Purpose? {
        guard let entry = entries[id], entry.isRunning else { return nil }
        return entry.purpose
    }

    /// Starts the timer of a request; false if `id` is already in the ledger.
    /// `limit`: the request's hard maximum (progress never extends it past `now + limit`).
    public mutating func insert(_ id: RequestID, method: String, purpose: Purpose, timeout: Double, limit: Double? = nil,
                                now: Double) -> Bool {
        guard entries[id] == nil else { return false }
        let limitDeadline = limit.map { now + $0 }
        entries[id] = Entry(method: method, purpose: purpose, sequence: nextSequence, timeout: timeout,
                            deadline: min(now + timeout, limitDeadline ?? .infinity), limit: limit, limitDeadline: limitDeadline)
        nextSequence += 1
        return true
    }

    /// The host cancelled `id`: from now on it has `grace` seconds to be answered or dropped,
    /// and progress no longer extends it. False if `id` is not running (unknown, answered,
    /// or already cancelled).
    @discardableResult
    public mutating func cancel(_ id: RequestID, grace: Double, now: Double) -> Bool {
        guard var entry = entries[id], entry.cancel == nil else { return false }
        entry.cancel = Cancel(mark: nextSequence, grace: grace)
        entry.deadline = now + grace
        entries[id] = entry
        return true
    }

    /// The plugin answered `id`: forgets it and returns its entry (nil if it was not in the
    /// ledger; a cancelled entry's answer is not for the host). A cancelled request answered
    /// later than a request sent after its cancel is settled too.
    @discardableResult
    public mutating func answer(_ id: RequestID) -> Entry? {
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
    public mutating func remove(_ id: RequestID) -> Entry? {
        entries.removeValue(forKey: id)
    }

    /// The plugin showed progress: every running request gets its full timeout again, up to
    /// its hard maximum; cancelled ones keep their cancel deadline.
    public mutating func progress(now: Double) {
        for (id, entry) in entries where entry.cancel == nil {
            entries[id]!.deadline = min(now + entry.timeout, entry.limitDeadline ?? .infinity)
        }
    }

    /// Cancels the running requests whose hard maximum has passed (each then has `grace`
    /// seconds to be answered or dropped, as after ``cancel(_:grace:now:)``) and returns them,
    /// in the order they were sent, with the expiry ``Expiry/limitReached(seconds:)``. Call it
    /// before ``expire(now:)``, so that a request at its maximum is cancelled, not timed out.
    public mutating func overLimit(now: Double, grace: Double) -> [Expired] {
        let over = entries.filter { $0.value.cancel == nil && ($0.value.limitDeadline.map { $0 <= now } ?? false) }
            .sorted { $0.value.sequence < $1.value.sequence }
        return over.map { id, entry in
            cancel(id, grace: grace, now: now)
            return Expired(id: id, method: entry.method, purpose: entry.purpose, expiry: .limitReached(seconds: entry.limit!))
        }
    }

    /// Removes and returns the requests whose deadline has passed, in the order they were sent.
    public mutating func expire(now: Double) -> [Expired] {
        let expired = entries.filter { $0.value.deadline <= now }.sorted { $0.value.sequence < $1.value.sequence }
        for (id, _) in expired { entries[id] = nil }
        return expired.map { id, entry in
            let expiry: Expiry = entry.cancel.map { .cancelIgnored(seconds: $0.grace) } ?? .timedOut(seconds: entry.timeout)
            return Expired(id: id, method: entry.method, purpose: entry.purpose, expiry: expiry)
        }
    }

    /// The earliest deadline, if any request is in the ledger.
    public var earliest: Double? { entries.values.map(\.deadline).min() }

    /// The running (not cancelled) requests in the order they were sent.
    public var running: [(id: RequestID, purpose: Purpose)] {
        entries.filter { $0.value.cancel == nil }.sorted { $0.value.sequence < $1.value.sequence }.map { ($0.key, $0.value.purpose) }
    }

    /// The running (not cancelled) request ids in the order they were sent.
    public var pendingIDs: [RequestID] { running.map(\.id) }

    /// Forgets everything; returns the running requests, in the order they were sent.
    public mutating func removeAll() -> [RequestID] {
        defer { entries.removeAll() }
        return pendingIDs
    }
}

extension RequestLedger where Purpose == Void {
    /// Starts the timer of a request whose purpose the caller does not track.
    public mutating func insert(_ id: RequestID, method: String, timeout: Double, now: Double) -> Bool {
        insert(id, method: method, purpose: (), timeout: timeout, now: now)
    }
}
