import TabdeckProtocol

/// Requests sent together: the checker sends independent `rows` requests (the pages of one
/// read, the first pages of the sort checks) in batches, as the host's read-ahead does (PROTOCOL.md
/// 4.3), so that a plugin that answers concurrently is checked in about its slowest answers.
/// A page asked for ahead is kept by what it asks (not its generation) until a check reads it.
struct RequestBatches {
    /// At most this many requests are sent together: about what the host has in flight for one
    /// tab, so that a plugin answering one at a time stays within the request timeout as it does
    /// in the host.
    static let size = 4

    /// A page sent ahead, not yet read: its id, its request, and the invalidate count then.
    struct Sent {
        var id: RequestID
        var request: RowsRequest
        var epoch: Int
    }

    private var ahead: [String: Sent] = [:]
    /// For each batch: how long each of its answers took from sending, as they came.
    private var times: [[Duration]] = []
    private var batchOf: [RequestID: Int] = [:]

    /// What a page asks, without its generation.
    static func key(_ request: RowsRequest) -> String {
        var request = request
        request.generation = 0
        return JSONWriter.string(request.json)
    }

    /// Starts a batch of these requests (already posted).
    mutating func record(_ sent: [Sent]) {
        guard !sent.isEmpty else { return }
        for s in sent {
            ahead[Self.key(s.request)] = s
            batchOf[s.id] = times.count
        }
        times.append([])
    }

    /// Starts a batch of other requests (already posted, each answered by its id): timed only.
    mutating func record(ids: [RequestID]) {
        guard !ids.isEmpty else { return }
        for id in ids { batchOf[id] = times.count }
        times.append([])
    }

    /// The page sent ahead for `request`, once, if it was sent while the table was as it is now.
    mutating func take(_ request: RowsRequest, epoch: Int) -> Sent? {
        guard let sent = ahead.removeValue(forKey: Self.key(request)) else { return nil }
        return sent.epoch == epoch ? sent : nil
    }

    /// Whether a page like `request` was sent ahead and not read yet.
    func isAhead(_ request: RowsRequest) -> Bool { ahead[Self.key(request)] != nil }

    /// Notes the answer to `id` (after `elapsed` from sending), if it was sent in a batch.
    mutating func answered(_ id: RequestID, after elapsed: Duration) {
        guard let batch = batchOf.removeValue(forKey: id) else { return }
        times[batch].append(elapsed)
    }

    /// The batches' time as answered, and about what it would have been answered concurrently:
    /// a batch answered one at a time takes the sum of its answers' work, concurrently about the
    /// longest of them (each answer's work: its time since the one before it came).
    var timing: (batches: Int, took: Duration, concurrently: Duration) {
        var took = Duration.zero, concurrently = Duration.zero, counted = 0
        for batch in times where batch.count >= 2 {
            let sorted = batch.sorted()
            var before = Duration.zero, longest = Duration.zero
            for t in sorted {
                longest = max(longest, t - before)
                before = t
            }
            took += sorted.last!
            concurrently += longest
            counted += 1
        }
        return (counted, took, concurrently)
    }
}
