import TabdeckCore
import TabdeckProtocol

/// How the event queue stores an event of a plugin: whether a newer one may replace it, merge
/// into it, or must keep its own place (``EventLanes``).
enum Coalescing: Equatable {
    /// The latest one wins: a newer notification of the same key replaces the queued one.
    case latest(LatestKey)
    /// An `invalidate` of one table: merges into the queued one of the same table.
    case invalidate(InvalidateParts)
    /// A `log` notification: kept in order, at most ``EventLanes/logsPerTab`` queued per tab.
    case log
    /// A stderr line: only the last ``EventLanes/stderrPerSegment`` of a segment are kept.
    case stderr
    /// Everything else (responses, `rows/chunk`, exits, timeouts, malformed or unknown
    /// notifications): kept, in order.
    case ordered

    /// The notifications whose latest value is all the core keeps.
    enum LatestKey: Hashable { case badge, status, progress }

    /// How the queue treats `event`, and the tab it belongs to (nil: not a plugin's event).
    /// Only notifications the core decodes without error coalesce, so a malformed one still
    /// reaches the core (which logs it) and never replaces a good one.
    static func classify(_ event: Event) -> (tab: String, how: Coalescing)? {
        guard case .plugin(let tab, let pluginEvent) = event else { return nil }
        switch pluginEvent {
        case .stderr: return (tab, .stderr)
        case .message(.notification(let method, let params)):
            guard let decoded = try? PluginNotification.decode(method: method, params: params) else { return (tab, .ordered) }
            switch decoded {
            case .badge: return (tab, .latest(.badge))
            case .status: return (tab, .latest(.status))
            case .progress: return (tab, .latest(.progress))
            case .log: return (tab, .log)
            case .invalidate(let table?, let rows, let total, nil):
                return (tab, .invalidate(InvalidateParts(table: table, rows: rows, total: total)))
            case .invalidate:
                return (tab, .ordered)  // every table, or new sections: a barrier, not merged
            }
        default:
            return (tab, .ordered)
        }
    }
}

/// An `invalidate` of one table, as it merges: the union of the row ids (nil: every row, which
/// absorbs the rest), and the latest `total` given.
struct InvalidateParts: Equatable {
    var table: String
    private(set) var rows: [String]?
    var total: Int?
    /// The ids in `rows`, so that a merge costs what it adds, not what is queued.
    private var seen: Set<String>
    /// Row ids merged beyond this many become "every row" (one refetch of what is visible, instead
    /// of an id list that grows without bound).
    static let rowLimit = 10_000

    init(table: String, rows: [String]?, total: Int?) {
        self.table = table
        self.total = total
        var unique = Set<String>()
        self.rows = rows?.filter { unique.insert($0).inserted }  // the core takes them as a set
        seen = unique
    }

    /// Merges a newer invalidation of the same table into this one.
    mutating func merge(_ newer: InvalidateParts) {
        if let t = newer.total { total = t }
        guard rows != nil, let new = newer.rows else { rows = nil; seen = []; return }
        for id in new where seen.insert(id).inserted { rows!.append(id) }
        if seen.count > Self.rowLimit { rows = nil; seen = [] }
    }

    /// The notification the core sees.
    func event(tab: String) -> Event {
        var params: JSONObject = ["table": .string(table)]
        if let rows { params["rows"] = .array(rows.map { .string($0) }) }
        if let total { params["total"] = .int(Int64(total)) }
        return .plugin(tab: tab, .message(.notification(method: Method.invalidate, params: .object(params))))
    }
}

