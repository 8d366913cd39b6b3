import Foundation

/// A fixed set of threads running jobs in FIFO order, with one ordering rule per key.
///
/// A job may name a key (the table it is about). A *barrier* job for a key (a `close`) starts
/// only after every earlier job with that key has finished, and later jobs with that key start
/// only after the barrier has finished, so "close t2, then rows t2" always sees t2 closed and a
/// close never pulls a table from under a page being read. Jobs about other tables, and jobs
/// without a key, are not held back.
final class WorkerPool: @unchecked Sendable {
    private struct Job {
        let key: String?
        let barrier: Bool
        let work: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var head = 0
    private var stopping = false
    private var running = 0
    private var threads = 0
    /// Running jobs by key, and the keys whose barrier is running.
    private var runningKeys: [String: Int] = [:]
    private var runningBarriers: Set<String> = []
    /// Barriers queued or running: while zero, the head of the queue is always the next job.
    private var barriers = 0

    init(threads count: Int, name: String) {
        for i in 0..<max(1, count) {
            let thread = Thread { [self] in loop() }
            thread.name = "\(name)-\(i)"
            thread.stackSize = 4 << 20
            threads += 1
            thread.start()
        }
    }

    /// Queues a job. `key` names what it is about; a `barrier` job runs alone for its key.
    func submit(key: String? = nil, barrier: Bool = false, _ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(Job(key: key, barrier: barrier && key != nil, work: work))
        if barrier && key != nil { barriers += 1 }
        condition.broadcast()
        condition.unlock()
    }

    /// Lets the threads end once the queue is empty.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until no job is queued or running, at most `timeout` seconds. True if idle.
    func waitIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock(); defer { condition.unlock() }
        while running > 0 || head < queue.count {
            if !condition.wait(until: deadline) { return running == 0 && head == queue.count }
        }
        return true
    }

    /// The index of the first queued job allowed to start now (the lock is held).
    private func nextRunnable() -> Int? {
        guard head < queue.count else { return nil }
        if barriers == 0 { return head }
        var earlierKeys: Set<String> = []
        var earlierBarriers: Set<String> = []
        for index in head..<queue.count {
            let job = queue[index]
            guard let key = job.key else { return index }
            if job.barrier {
                if !earlierKeys.contains(key) && runningKeys[key, default: 0] == 0 { return index }
                earlierBarriers.insert(key)
            } else if !earlierBarriers.contains(key) && !runningBarriers.contains(key) {
                return index
            }
            earlierKeys.insert(key)
        }
        return nil
    }

    private func loop() {
        while true {
            condition.lock()
            var picked = nextRunnable()
            while picked == nil {
                if stopping && head == queue.count { threads -= 1; condition.unlock(); return }
                condition.wait()
                picked = nextRunnable()
            }
            let index = picked!
            let job = queue[index]
            if index == head {
                head += 1
            } else {
                queue.remove(at: index)
            }
            if head > 64 && head * 2 > queue.count { queue.removeFirst(head); head = 0 }
            running += 1
            if let key = job.key {
                runningKeys[key, default: 0] += 1
                if job.barrier { runningBarriers.insert(key) }
            }
            condition.unlock()
            job.work()
            condition.lock()
            running -= 1
            if let key = job.key {
                let left = runningKeys[key, default: 1] - 1
                runningKeys[key] = left == 0 ? nil : left
                if job.barrier { runningBarriers.remove(key); barriers -= 1 }
            }
            condition.broadcast()
            condition.unlock()
        }
    }
}
