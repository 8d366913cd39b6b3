import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckApp

/// The event queue's store: notifications coalesce by kind and key within a tab, a flood leaves a
/// bounded number of events, ordered events keep their order, and the core sees the same state
/// at every response as it would have without coalescing.
@Suite struct EventLanesTests {
    @Test func aFloodOfBadgesStatusAndProgressLeavesTheLatestOfEach() {
        var lanes = EventLanes()
        for i in 0..<100_000 {
            lanes.append(.core(badge(tab: "a", i)))
            lanes.append(.core(notification("a", Method.status, ["text": .string("status \(i)")])))
            lanes.append(.core(notification("a", Method.progress, ["done": .int(Int64(i)), "total": 1_000_000])))
        }
        #expect(lanes.count == 3)
        let out = drain(&lanes)
        #expect(out.contains(badge(tab: "a", 99_999)))
        #expect(out.contains(notification("a", Method.status, ["text": "status 99999"])))
        #expect(out.contains(notification("a", Method.progress, ["done": 99_999, "total": 1_000_000])))
    }

    @Test func invalidationsMergeAndAWholeTableOneAbsorbsTheRest() {
        var lanes = EventLanes()
        lanes.append(.core(invalidate("a", "t", rows: ["1", "2"], total: 10)))
        lanes.append(.core(invalidate("a", "t", rows: ["2", "3"], total: nil)))
        lanes.append(.core(invalidate("a", "u", rows: ["9"], total: 5)))
        #expect(lanes.count == 2)
        let merged = drain(&lanes)
        #expect(merged == [invalidate("a", "t", rows: ["1", "2", "3"], total: 10), invalidate("a", "u", rows: ["9"], total: 5)])

        lanes.append(.core(invalidate("a", "t", rows: ["1"], total: 10)))
        lanes.append(.core(invalidate("a", "t", rows: nil, total: nil)))
        lanes.append(.core(invalidate("a", "t", rows: ["4"], total: 12)))
        #expect(drain(&lanes) == [invalidate("a", "t", rows: nil, total: 12)])

        // Ids beyond the limit become one whole-table invalidation.
        for i in 0...InvalidateParts.rowLimit { lanes.append(.core(invalidate("a", "t", rows: ["r\(i)"], total: nil))) }
        #expect(drain(&lanes) == [invalidate("a", "t", rows: nil, total: nil)])
    }

    @Test func logsAreBoundedAndTheDroppedOnesCounted() {
        var lanes = EventLanes()
        let n = 10_000
        for i in 0..<n { lanes.append(.core(notification("a", Method.log, ["level": "info", "message": .string("line \(i)")]))) }
        #expect(lanes.count == EventLanes.logsPerTab + 1)
        let out = drain(&lanes)
        #expect(out.prefix(EventLanes.logsPerTab) == (0..<EventLanes.logsPerTab).map {
            notification("a", Method.log, ["level": "info", "message": .string("line \($0)")])
        }[...])
        #expect(out.last == EventLanes.droppedNote(tab: "a", count: n - EventLanes.logsPerTab))
    }

    @Test func stderrKeepsTheLastLinesOfEachSegment() {
        var lanes = EventLanes()
        for i in 0..<1000 { lanes.append(.core(.plugin(tab: "a", .stderr("e\(i)")))) }
        lanes.append(.core(response(tab: "a", id: 1)))
        for i in 1000..<1003 { lanes.append(.core(.plugin(tab: "a", .stderr("e\(i)")))) }
        let out = drain(&lanes)
        let kept = (1000 - EventLanes.stderrPerSegment..<1000).map { Event.plugin(tab: "a", .stderr("e\($0)")) }
        #expect(out == kept + [response(tab: "a", id: 1)] + (1000..<1003).map { .plugin(tab: "a", .stderr("e\($0)")) })
    }

    /// Ordered events keep their order, and notifications never cross them: the badge queued
    /// after a response stays after it.
    @Test func orderedEventsKeepTheirOrderAndNotificationsDoNotCrossThem() {
        var lanes = EventLanes()
        lanes.append(.core(badge(tab: "a", 1)))
        lanes.append(.core(response(tab: "a", id: 1)))
        lanes.append(.core(badge(tab: "a", 2)))
        lanes.append(.core(badge(tab: "a", 3)))
        lanes.append(.core(response(tab: "a", id: 2)))
        lanes.append(.core(badge(tab: "a", 4)))
        lanes.append(.resize)
        #expect(drain(&lanes) == [badge(tab: "a", 1), response(tab: "a", id: 1), badge(tab: "a", 3), response(tab: "a", id: 2),
                                  badge(tab: "a", 4)])
    }

    /// A malformed notification is never merged (the core must see it to log it) and never
    /// replaces a good one; an `invalidate` of every table is a barrier.
    @Test func malformedNotificationsAndInvalidateOfEveryTableAreOrdered() {
        var lanes = EventLanes()
        lanes.append(.core(badge(tab: "a", 1)))
        lanes.append(.core(notification("a", Method.badge, ["value": ["no": "object"]])))
        lanes.append(.core(badge(tab: "a", 2)))
        lanes.append(.core(notification("a", Method.invalidate, [:])))
        lanes.append(.core(badge(tab: "a", 3)))
        #expect(lanes.count == 5)
    }

    /// A plugin that floods notifications is slowed too: after `mergesPerTake` merges its reader
    /// waits until the taker takes one of its events.
    @Test func aTabThatKeepsMergingIsFullUntilTaken() {
        var lanes = EventLanes()
        for i in 0...EventLanes.mergesPerTake { lanes.append(.core(badge(tab: "a", i))) }
        #expect(lanes.count == 1)
        #expect(lanes.isFull(tab: "a"))
        #expect(!lanes.isFull(tab: "b"))
        _ = lanes.pop()
        #expect(!lanes.isFull(tab: "a"))
    }

    @Test func aFullTabIsFullAloneAndRoomComesBackWhenTaken() {
        var lanes = EventLanes()
        for i in 0..<EventLanes.orderedPerTab { lanes.append(.core(response(tab: "a", id: i))) }
        #expect(lanes.isFull(tab: "a"))
        #expect(!lanes.isFull(tab: "b"))
        _ = lanes.pop()
        #expect(!lanes.isFull(tab: "a"))
    }

    /// Random traffic of two tabs, taken at random moments: the core's view (badge, status,
    /// progress, cached rows and totals per table, log lines, the last stderr lines) is the same
    /// at every ordered event, and at the end, as without coalescing.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func theCoreSeesTheSameStateAtEveryResponse(seed: UInt64) {
        var rng = LCG(seed: seed)
        var lanes = EventLanes()
        var direct = CoreModel(), coalesced = CoreModel()
        var logs = 0
        for step in 0..<5000 {
            let tab = rng.next(2) == 0 ? "a" : "b"
            let table = ["t", "u", "v"][rng.next(3)]
            let event: Event
            switch rng.next(10) {
            case 0: event = badge(tab: tab, rng.next(100))
            case 1: event = notification(tab, Method.status, ["text": .string("s\(rng.next(100))")])
            case 2: event = notification(tab, Method.progress, ["done": .int(Int64(rng.next(100))), "total": 100])
            case 3, 4:
                let rows: [String]? = rng.next(5) == 0 ? nil : (0..<rng.next(4)).map { _ in "r\(rng.next(20))" }
                event = invalidate(tab, table, rows: rows, total: rng.next(3) == 0 ? rng.next(1000) : nil)
            case 5 where logs < EventLanes.logsPerTab - 4:
                logs += 1
                event = notification(tab, Method.log, ["level": "info", "message": .string("l\(step)")])
            case 6: event = .plugin(tab: tab, .stderr("e\(step)"))
            default:
                let ids = (0..<rng.next(4)).map { _ in JSONValue.string("r\(rng.next(20))") }
                event = .plugin(tab: tab, .message(.response(id: .int(Int64(step)), result: [
                    "table": .string(table), "ids": .array(ids), "total": .int(Int64(rng.next(1000))),
                ])))
            }
            direct.apply(event)
            lanes.append(.core(event))
            if rng.next(8) == 0 {
                for _ in 0..<rng.next(6) { if case .core(let e)? = lanes.pop() { coalesced.apply(e) } }
            }
        }
        while case .core(let e)? = lanes.pop() { coalesced.apply(e) }
        let difference = coalesced.firstDifference(from: direct)
        #expect(difference == nil)
        #expect(coalesced.events < direct.events)
    }
}

// MARK: Helpers

func notification(_ tab: String, _ method: String, _ params: JSONObject) -> Event {
    .plugin(tab: tab, .message(.notification(method: method, params: .object(params))))
}

func invalidate(_ tab: String, _ table: String, rows: [String]?, total: Int?) -> Event {
    var params: JSONObject = ["table": .string(table)]
    if let rows { params["rows"] = .array(rows.map { .string($0) }) }
    if let total { params["total"] = .int(Int64(total)) }
    return notification(tab, Method.invalidate, params)
}

private func drain(_ lanes: inout EventLanes) -> [Event] {
    var out: [Event] = []
    while let e = lanes.pop() { if case .core(let c) = e { out.append(c) } }
    return out
}

/// A small deterministic generator (the test target has no other).
struct LCG {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// What the core keeps of a plugin's events, applied as the core applies them (Update.swift),
/// per tab (the core keeps each tab's state apart, so only the order within a tab matters).
struct CoreModel {
    struct TabView: Equatable {
        var badge: JSONValue?
        var status: JSONValue?
        var progress: JSONValue?
        var cached: [String: Set<String>] = [:]
        var total: [String: Int] = [:]
        var logs: [String] = []
        var stderr: [String] = []
    }
    var tabs: [String: TabView] = [:]
    /// The tab's state at each of its ordered events (responses), as the core sees it then.
    var snapshots: [String: [TabView]] = [:]
    var events = 0

    mutating func apply(_ event: Event) {
        events += 1
        guard case .plugin(let tab, let pluginEvent) = event else { return }
        var view = tabs[tab] ?? TabView()
        defer { tabs[tab] = view }
        switch pluginEvent {
        case .stderr(let line): view.stderr = Array((view.stderr + [line]).suffix(5))
        case .message(.notification(let method, let params)):
            switch try? PluginNotification.decode(method: method, params: params) {
            case .badge?: view.badge = params
            case .status?: view.status = params
            case .progress?: view.progress = params
            case .log?: view.logs.append("\(params)")
            case .invalidate(let table?, let rows, let total, _)?:
                if let rows { view.cached[table]?.subtract(rows) } else { view.cached[table] = [] }
                if let total { view.total[table] = total }
            default: break
            }
        case .message(.response(_, let result)):
            snapshots[tab, default: []].append(view)
            guard case .string(let table)? = result["table"], case .array(let ids)? = result["ids"],
                  case .int(let total)? = result["total"] else { return }
            for case .string(let id) in ids { view.cached[table, default: []].insert(id) }
            view.total[table] = Int(total)
        default: break
        }
    }

    /// The first difference from `other`, nil if none (short, unlike comparing the whole values).
    func firstDifference(from other: CoreModel) -> String? {
        for tab in Set(snapshots.keys).union(other.snapshots.keys).sorted() {
            let mine = snapshots[tab] ?? [], theirs = other.snapshots[tab] ?? []
            if mine.count != theirs.count { return "tab \(tab): \(mine.count) ordered events, not \(theirs.count)" }
            if let i = mine.indices.first(where: { mine[$0] != theirs[$0] }) {
                return "tab \(tab), ordered event \(i): \(mine[i]) instead of \(theirs[i])"
            }
        }
        return tabs == other.tabs ? nil : "the final states differ"
    }
}
