import TabdeckProtocol

/// What is in flight, asked of the one ledger of pending requests (``PendingRequests``): the
/// page caches, the scans and the find keep no request records of their own, so no record can
/// outlive its request or miss one.
extension Workspace {
    /// The running requests to `tab`'s plugin that `key` picks out (by the key it gives their
    /// purpose), in the order they were sent (a later one wins a key twice).
    func inFlight<Key: Hashable>(_ tab: String, _ key: (RequestPurpose) -> Key?) -> [Key: RequestID] {
        var found: [Key: RequestID] = [:]
        for (id, purpose) in pending.running(tab: tab) {
            if let k = key(purpose) { found[k] = id }
        }
        return found
    }

    /// The pages of `t` (in its generation) asked of `tab`'s plugin and not answered, by page.
    func pagesInFlight(_ tab: String, _ t: TableState) -> [Int: RequestID] {
        inFlight(tab) { purpose in
            if case .rows(let table, let generation, let page) = purpose, table == t.key, generation == t.generation { page } else { nil }
        }
    }

    /// The pages of `tab`'s current table asked of its plugin and not answered, ascending.
    public func pagesAsked(tab: String) -> [Int] {
        guard let t = tabs[tab]?.table else { return [] }
        return pagesInFlight(tab, t).keys.sorted()
    }

    /// Cancels every page of table `key` still asked of `tab`'s plugin, whatever its generation.
    mutating func cancelPages(_ tab: String, table key: String, _ effects: inout [Effect]) {
        for (id, purpose) in pending.running(tab: tab) {
            if case .rows(let table, _, _) = purpose, table == key { cancel(id, &effects) }
        }
    }

    /// The pages of the child table at `path` under table `key` asked and not answered, by page.
    func childPagesInFlight(_ tab: String, table key: String, path: [String], generation: Int) -> [Int: RequestID] {
        inFlight(tab) { purpose in
            if case .childRows(let table, let p, let g, let page) = purpose, table == key, p == path, g == generation { page } else { nil }
        }
    }

    /// The pages of table `key`'s scan (export, an action on all rows) in flight, by offset.
    func scanInFlight(_ tab: String, table key: String, generation: Int) -> [Int: RequestID] {
        inFlight(tab) { purpose in
            if case .scan(let table, let g, let offset) = purpose, table == key, g == generation { offset } else { nil }
        }
    }

    /// The `find` request of find `f` (PROTOCOL.md 11.15) still awaited.
    func findRowInFlight(_ f: FindState) -> RequestID? {
        inFlight(f.tab) { purpose in
            if case .findRow(let table, let g) = purpose, table == f.table, g == f.generation { true } else { nil }
        }[true]
    }

    /// Every request find `f` waits for: its chunks, or its `find` request.
    func findRequests(_ f: FindState) -> [RequestID] {
        Array(findChunksInFlight(f.tab, table: f.table, generation: f.generation).values) + (findRowInFlight(f).map { [$0] } ?? [])
    }

    /// The chunks of the find on table `key` in flight, by first row.
    func findChunksInFlight(_ tab: String, table key: String, generation: Int) -> [Int: RequestID] {
        inFlight(tab) { purpose in
            if case .find(let table, let g, let offset) = purpose, table == key, g == generation { offset } else { nil }
        }
    }
}
