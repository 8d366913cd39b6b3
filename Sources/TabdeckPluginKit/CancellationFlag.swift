import Foundation

/// Set when the host cancels a request (`$/cancel`). Long handlers check it now and then
/// and throw `CancellationError` to stop early; the runner then answers -32800.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    /// True once the request was cancelled.
    public var isCancelled: Bool {
        lock.lock(); defer { lock.unlock() }
        return cancelled
    }

    /// Marks the request as cancelled.
    public func cancel() {
        lock.lock(); cancelled = true; lock.unlock()
    }

    /// Throws `CancellationError` if the request was cancelled.
    public func check() throws {
        if isCancelled { throw CancellationError() }
    }
}
