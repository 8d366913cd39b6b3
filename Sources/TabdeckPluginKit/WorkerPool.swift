import Foundation

/// A fixed set of threads running jobs in FIFO order.
final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var running = 0
    private var threads = 0

    init(threads count: Int, name: String) {
        for i in 0..<max(1, count) {
            let thread = Thread { [self] in loop() }
            thread.name = "\(name)-\(i)"
            thread.stackSize = 4 << 20
            threads += 1
            thread.start()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(job)
        condition.signal()
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

    private func loop() {
        while true {
            condition.lock()
            while head == queue.count && !stopping { condition.wait() }
            if head == queue.count { threads -= 1; condition.unlock(); return }
            let job = queue[head]
            head += 1
            if head > 64 && head * 2 > queue.count { queue.removeFirst(head); head = 0 }
            running += 1
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
