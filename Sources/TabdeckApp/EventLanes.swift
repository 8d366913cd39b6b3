import TabdeckCore
import TabdeckProtocol

/// The bounded store behind ``EventQueue`` (not thread-safe: the queue's lock guards it).
///
/// One FIFO of slots for every event; per tab, a lane that says what of that tab is queued.
/// A tab's queued events are cut into **segments** by its ordered events (responses,
/// `rows/chunk`, exits, ...): notifications coalesce only within the newest segment, so none
/// ever crosses an ordered event, and the core sees every response after the same notifications
/// it would have seen without coalescing (only older values it would have overwritten are
/// skipped). Within a segment:
/// - `badge`, `status` and `progress`: the latest replaces the queued one (the core keeps only
///   the latest);
/// - `invalidate` of a table: merges into the queued one of that table (row ids united, a
///   whole-table invalidation absorbs the rest, the latest `total` wins), for up to
///   ``invalidateTablesPerSegment`` tables;
/// - stderr lines: only the last ``stderrPerSegment`` stay (the core keeps the last 5; every
///   line is in the tab's log file already).
///
/// `log` notifications stay in order, at most ``logsPerTab`` per tab; beyond that they are
/// dropped and counted, and the core gets one `log` line saying how many.
///
/// Ordered events are never dropped: ``isFull(tab:)`` says when a tab has ``orderedPerTab`` of
/// them queued, or had ``mergesPerTake`` notifications merged or dropped since the taker last took
/// one of its events, and the plugin's reader thread then waits (``EventQueue``): a plugin that
/// writes faster than the host takes is slowed through its pipe instead of spending the
/// machine's cores on notifications nobody will see.
struct EventLanes {
    /// Ordered events of one tab queued before its reader thread waits.
    static let orderedPerTab = 64
    /// `log` notifications of one tab queued before more are dropped (and counted).
    static let logsPerTab = 64
    /// Stderr lines kept per segment (more than the 5 the core shows).
    static let stderrPerSegment = 16
    /// Tables whose `invalidate`s merge within one segment; more become ordered events.
    static let invalidateTablesPerSegment = 16
    /// Notifications of one tab merged (or dropped) between two takes before its reader waits.
    static let mergesPerTake = 256

    private final class Slot {
        var event: HostEvent
        let tab: String?
        let kind: Kind
        /// Dropped log lines counted in a ``Kind/droppedLogs`` slot.
        var count = 0
        /// The merged parts of an ``Kind/invalidate`` slot.
        var parts: InvalidateParts?

        init(_ event: HostEvent, tab: String?, kind: Kind) { self.event = event; self.tab = tab; self.kind = kind }
    }

    private enum Kind: Hashable {
        case ordered, log, stderr, latest(Coalescing.LatestKey), invalidate(String), droppedLogs
    }

    private struct Lane {
        var ordered = 0
        /// Notifications merged or dropped since the taker last took one of this tab's events.
        var merged = 0
        var logs = 0
        /// The newest segment's coalescing slots, by kind.
        var segment: [Kind: Slot] = [:]
        /// The newest segment's stderr slots, oldest first.
        var stderr: [Slot] = []
        var invalidateTables = 0
    }

    /// Taken slots are set to nil at once, so a consumed page of rows is freed immediately.
    private var items: [Slot?] = []
    private var head = 0
    private var lanes: [String: Lane] = [:]

    /// Events queued (slots, after coalescing).
    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

    /// Whether `tab`'s reader should wait: ``orderedPerTab`` ordered events queued, or
    /// ``mergesPerTake`` notifications merged since the taker last took one of its events.
    func isFull(tab: String) -> Bool {
        guard let lane = lanes[tab] else { return false }
        return lane.ordered >= Self.orderedPerTab || lane.merged >= Self.mergesPerTake
    }

    /// Queues an event, coalescing it with what its tab has queued.
    mutating func append(_ event: HostEvent) {
        guard case .core(let core) = event, let (tab, how) = Coalescing.classify(core) else {
            items.append(Slot(event, tab: nil, kind: .ordered))
            return
        }
        var lane = lanes.removeValue(forKey: tab) ?? Lane()  // uniquely held while it changes
        defer { lanes[tab] = lane }
        switch how {
        case .latest(let key):
            if let slot = lane.segment[.latest(key)] { slot.event = event; lane.merged += 1; return }
            let slot = Slot(event, tab: tab, kind: .latest(key))
            lane.segment[.latest(key)] = slot
            items.append(slot)
        case .invalidate(let parts):
            if let slot = lane.segment[.invalidate(parts.table)] { slot.parts?.merge(parts); lane.merged += 1; return }
            guard lane.invalidateTables < Self.invalidateTablesPerSegment else {
                appendOrdered(event, tab: tab, &lane)
                return
            }
            let slot = Slot(event, tab: tab, kind: .invalidate(parts.table))
            slot.parts = parts
            lane.segment[.invalidate(parts.table)] = slot
            lane.invalidateTables += 1
            items.append(slot)
        case .ordered:
            appendOrdered(event, tab: tab, &lane)
        case .log:
            if lane.logs < Self.logsPerTab {
                lane.logs += 1
                items.append(Slot(event, tab: tab, kind: .log))
            } else if let slot = lane.segment[.droppedLogs] {
                slot.count += 1
                lane.merged += 1
            } else {
                let slot = Slot(event, tab: tab, kind: .droppedLogs)
                slot.count = 1
                lane.merged += 1
                lane.segment[.droppedLogs] = slot
                items.append(slot)
            }
        case .stderr:
            if lane.stderr.count < Self.stderrPerSegment {
                let slot = Slot(event, tab: tab, kind: .stderr)
                lane.stderr.append(slot)
                items.append(slot)
            } else {
                // Drop the oldest line of the segment: the slots keep their places, the lines move up.
                for i in lane.stderr.indices.dropLast() { lane.stderr[i].event = lane.stderr[i + 1].event }
                lane.stderr[lane.stderr.count - 1].event = event
            }
        }
    }

    /// An ordered event starts a new segment: nothing queued before it coalesces with what follows.
    private mutating func appendOrdered(_ event: HostEvent, tab: String, _ lane: inout Lane) {
        lane.ordered += 1
        lane.segment = [:]
        lane.stderr = []
        lane.invalidateTables = 0
        items.append(Slot(event, tab: tab, kind: .ordered))
    }

    /// Removes and returns the oldest queued event (nil: none).
    mutating func pop() -> HostEvent? {
        guard head < items.count, let slot = items[head] else { return nil }
        items[head] = nil
        head += 1
        if head > 1024 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        guard let tab = slot.tab else { return slot.event }
        var lane = lanes.removeValue(forKey: tab) ?? Lane()
        lane.merged = 0
        switch slot.kind {
        case .ordered: lane.ordered -= 1
        case .log: lane.logs -= 1
        case .stderr: if let i = lane.stderr.firstIndex(where: { $0 === slot }) { lane.stderr.remove(at: i) }
        case .latest, .invalidate, .droppedLogs:
            if lane.segment[slot.kind] === slot {
                lane.segment[slot.kind] = nil
                if case .invalidate = slot.kind { lane.invalidateTables -= 1 }
            }
        }
        lanes[tab] = lane
        switch slot.kind {
        case .invalidate: return .core(slot.parts!.event(tab: tab))
        case .droppedLogs: return .core(Self.droppedNote(tab: tab, count: slot.count))
        default: return slot.event
        }
    }

    /// The `log` line that stands for `count` dropped ones.
    static func droppedNote(tab: String, count: Int) -> Event {
        let message = "tabdeck: \(count) log line\(count == 1 ? " was" : "s were") dropped: the plugin wrote them "
            + "faster than the host could take them (at most \(logsPerTab) wait)"
        return .plugin(tab: tab, .message(.notification(method: Method.log, params: [
            "level": "warning", "message": .string(message),
        ])))
    }
}
