import TabdeckProtocol

/// The host's requests to its plugins that are not answered yet: one ``RequestLedger`` per
/// tab's plugin connection, the only record of them in the host (the supervisor keeps none).
///
/// It says what each reply is for, and decides on the core's clock when a request is given
/// up: a request that reports nothing times out (`requestTimeout`, `handshakeTimeout` for
/// `initialize`); progress gives every running request of the tab its full timeout again, but
/// never past its tab's `requestLimit` from when it was sent, where it is cancelled; a
/// cancelled request that is neither answered nor dropped within `cancelGrace` gets its
/// plugin stopped. Request ids are unique across tabs (one counter).
struct PendingRequests: Sendable {
    private(set) var ledgers: [String: RequestLedger<RequestPurpose>] = [:]

    /// The purpose of a request the core still waits for (nil once answered, cancelled or forgotten).
    subscript(id: RequestID) -> PendingRequest? {
        for (tab, ledger) in ledgers {
            if let purpose = ledger.running(id) { return PendingRequest(tab: tab, purpose: purpose) }
        }
        return nil
    }

    /// Records a request sent to `tab`'s plugin.
    mutating func insert(_ id: RequestID, tab: String, method: String, purpose: RequestPurpose, timeout: Double,
                         limit: Double?, now: Double) {
        _ = ledgers[tab, default: RequestLedger()].insert(id, method: method, purpose: purpose, timeout: timeout, limit: limit, now: now)
    }

    /// The core stopped waiting for `id` and sent `$/cancel`: it has `grace` seconds to be
    /// answered or dropped. Returns the tab, nil if `id` was not running.
    mutating func cancel(_ id: RequestID, grace: Double, now: Double) -> String? {
        for tab in ledgers.keys where ledgers[tab]!.running(id) != nil {
            ledgers[tab]!.cancel(id, grace: grace, now: now)
            return tab
        }
        return nil
    }

    /// `tab`'s plugin answered `id`: the request leaves the ledger. Returns its purpose when
    /// the core still waited for it (nil: unknown, cancelled or forgotten).
    mutating func answer(_ id: RequestID, tab: String) -> PendingRequest? {
        guard let entry = ledgers[tab]?.answer(id), entry.isRunning else { return nil }
        return PendingRequest(tab: tab, purpose: entry.purpose)
    }

    /// Forgets `id` without an answer and without a cancel (its answer, if any, is ignored).
    mutating func forget(_ id: RequestID) {
        for tab in ledgers.keys where ledgers[tab]!.contains(id) { ledgers[tab]!.remove(id) }
    }

    /// `tab`'s plugin reported progress: its running requests get their full timeout again.
    mutating func progress(tab: String, now: Double) {
        ledgers[tab]?.progress(now: now)
    }

    /// The tab's plugin process is gone (or being replaced): nothing it was asked is pending.
    mutating func removeAll(tab: String) {
        ledgers[tab] = nil
    }

    /// The requests the core still waits for from `tab`, in the order they were sent.
    func running(tab: String) -> [(id: RequestID, purpose: RequestPurpose)] {
        ledgers[tab]?.running ?? []
    }

    /// Cancels the running requests whose hard maximum passed (they get `grace` to end) and
    /// returns them, by tab, in the order they were sent.
    mutating func overLimit(now: Double, grace: Double) -> [(tab: String, RequestLedger<RequestPurpose>.Expired)] {
        var over: [(tab: String, RequestLedger<RequestPurpose>.Expired)] = []
        for tab in ledgers.keys.sorted() {
            for request in ledgers[tab]!.overLimit(now: now, grace: grace) { over.append((tab, request)) }
        }
        return over
    }

    /// Removes and returns the requests whose deadline passed, by tab, in the order they were sent.
    mutating func expire(now: Double) -> [(tab: String, RequestLedger<RequestPurpose>.Expired)] {
        var expired: [(tab: String, RequestLedger<RequestPurpose>.Expired)] = []
        for tab in ledgers.keys.sorted() {
            for request in ledgers[tab]!.expire(now: now) { expired.append((tab, request)) }
        }
        return expired
    }

    /// The earliest deadline of any request.
    var earliest: Double? { ledgers.values.compactMap(\.earliest).min() }
}
