import Foundation
import GRDB
import TabdeckPluginKit

/// Row counts (`COUNT(*)`), cached per table, filter and ``ChangeEpoch``, computed one at a
/// time on a background thread with its own connection, so that counting a huge table never
/// holds up a page.
final class RowCounter: @unchecked Sendable {
    struct Key: Hashable, Sendable {
        var table: String
        var filter: String?
        var epoch: Int
    }

    struct Job {
        var key: Key
        var sql: String
        var arguments: StatementArguments
        /// Counting stops after this long (a view may be slow, or endless).
        var seconds: Double
    }

    private let pool: ConnectionPool
    private let condition = NSCondition()
    private var counts: [Key: Int] = [:]
    private var failed: Set<Key> = []
    private var pending: [Job] = []
    private var running: Key?
    private var thread: Thread?
    private var stopped = false
    private var onCounted: (@Sendable (Key, Int?, Bool) -> Void)?

    init(pool: ConnectionPool) { self.pool = pool }

    /// Called on the counting thread after each count (nil when it failed), with true when no
    /// other count is queued.
    func observe(_ f: @escaping @Sendable (Key, Int?, Bool) -> Void) {
        condition.lock(); onCounted = f; condition.unlock()
    }

    /// The count if known.
    func cached(_ key: Key) -> Int? {
        condition.lock(); defer { condition.unlock() }
        return counts[key]
    }

    /// Records a count learnt otherwise (a short last page).
    func remember(_ key: Key, _ count: Int) {
        condition.lock()
        counts[key] = count
        condition.broadcast()
        condition.unlock()
    }

    /// True when counting this key failed or was given up.
    func hasFailed(_ key: Key) -> Bool {
        condition.lock(); defer { condition.unlock() }
        return failed.contains(key)
    }

    /// Queues a count unless it is known, failed, queued or running; `urgent` puts it first.
    func request(_ job: Job, urgent: Bool = false) {
        condition.lock(); defer { condition.unlock() }
        guard !stopped, counts[job.key] == nil, !failed.contains(job.key), running != job.key else { return }
        if let i = pending.firstIndex(where: { $0.key == job.key }) {
            guard urgent else { return }
            pending.remove(at: i)
        }
        if urgent { pending.insert(job, at: 0) } else { pending.append(job) }
        if thread == nil {
            let t = Thread { [self] in loop() }
            t.name = "sqlite-counter"
            thread = t
            t.start()
        }
        condition.broadcast()
    }

    /// Waits up to `timeout` seconds for the count.
    func wait(_ key: Key, timeout: Double) -> Int? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock(); defer { condition.unlock() }
        while counts[key] == nil && !failed.contains(key) && (running == key || pending.contains { $0.key == key }) {
            if !condition.wait(until: deadline) { break }
        }
        return counts[key]
    }

    /// Drops the queued jobs of older epochs (their answers could not be used).
    func dropJobs(before epoch: Int) {
        condition.lock()
        pending.removeAll { $0.key.epoch < epoch }
        counts = counts.filter { $0.key.epoch >= epoch }
        condition.unlock()
    }

    /// Ends the counting thread after the running count.
    func stop() {
        condition.lock(); stopped = true; pending.removeAll(); condition.broadcast(); condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopped { condition.wait() }
            if stopped { condition.unlock(); return }
            let job = pending.removeFirst()
            running = job.key
            condition.unlock()

            var result: Int?
            do {
                result = try pool.read(QueryGuard(seconds: job.seconds)) { db in
                    try Int.fetchOne(db, sql: job.sql, arguments: job.arguments)
                }
            } catch {
                PluginLog.warning("counting \(job.key.table): \(error)")
            }

            condition.lock()
            running = nil
            if let result { counts[job.key] = result } else { failed.insert(job.key) }
            let observer = onCounted
            let idle = pending.isEmpty
            condition.broadcast()
            condition.unlock()
            observer?(job.key, result, idle)
        }
    }
}
