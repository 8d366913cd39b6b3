import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
import TabdeckSpool
import TabdeckSupervisor
@testable import TabdeckApp

/// A plugin without a process: answers `initialize`, `open` and `rows` of a one-column table of
/// `count` rows (`r0`, `r1`, ...; cell `n` = i) on a queue of its own, as a reader thread would.
/// It sorts by `n` when `sorts`; it always pages.
final class FakePlugin: PluginEndpoint, @unchecked Sendable {
    let tab: String
    let sorts: Bool
    let count = 5
    /// Requests of this method are refused by `send` (as a full or closed pipe would).
    var refuse: String?
    private let onEvent: EndpointEvents
    private let replies = DispatchQueue(label: "tabdeck.test.fake-plugin")
    private let lock = NSLock()
    private var running = false
    private var messages: [Message] = []

    init(tab: String, sorts: Bool, onEvent: @escaping EndpointEvents) {
        self.tab = tab
        self.sorts = sorts
        self.onEvent = onEvent
    }

    /// Every message the plugin was sent, in order.
    var received: [Message] { lock.withLock { messages } }

    /// The `rows` requests it was sent: id and parameters.
    var rowsRequests: [(id: RequestID, request: RowsRequest)] {
        received.compactMap { message in
            guard case .request(let id, Method.rows, let params) = message, let request = try? RowsRequest(params) else { return nil }
            return (id, request)
        }
    }

    var isRunning: Bool { lock.withLock { running } }

    func start(_ spec: PluginSpec) throws(SupervisorError) {
        let started = lock.withLock { () -> Bool in
            defer { running = true }
            return !running
        }
        if !started { throw .alreadyRunning(tab: tab) }
    }

    func send(_ message: Message) throws(SupervisorError) {
        let taken = lock.withLock { () -> Bool in
            if running { messages.append(message) }
            return running
        }
        if !taken { throw .notRunning(tab: tab) }
        guard case .request(let id, let method, let params) = message else { return }
        if method == refuse { throw .notRunning(tab: tab) }
        let answer = self.answer(id: id, method: method, params: params)
        replies.async { [tab, onEvent] in onEvent(.plugin(.message(tab: tab, answer))) }
    }

    func stop() { end() }
    func kill() { end() }
    func close() {}

    private func end() {
        guard lock.withLock({ () -> Bool in defer { running = false }; return running }) else { return }
        replies.async { [tab, onEvent] in onEvent(.plugin(.exited(tab: tab, .exited(0), pending: []))) }
    }

    private func answer(id: RequestID, method: String, params: JSONValue) -> Message {
        switch method {
        case Method.initialize:
            let caps = PluginCapabilities(sort: sorts, multiSort: sorts, paging: true)
            return .response(id: id, result: InitializeResult(name: "fake", version: "1", capabilities: caps).json)
        case Method.open:
            return .response(id: id, result: TableDescription(table: "root", columns: [ColumnSpec(id: "n", type: .integer)],
                                                              total: count).json)
        case Method.rows:
            guard let request = try? RowsRequest(params) else {
                return .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "bad rows params"))
            }
            var order = Array(0..<count)
            if request.sort.first?.direction == .descending { order.reverse() }
            let page = order.dropFirst(request.offset).prefix(request.limit)
            return .response(id: id, result: RowsResult(generation: request.generation, offset: request.offset,
                                                        rows: page.map { Row(id: "r\($0)", cells: [.int(Int64($0))]) },
                                                        total: count).json)
        default:
            return .failure(id: id, error: RPCError(code: RPCError.methodNotFound, message: "no \(method)"))
        }
    }
}

/// The runtime reaches a tab's plugin only through the tab's endpoint: a fake endpoint stands
/// in for the plugin process, and the spool stands in front of it through the same interface.
@Suite(hangGuard) struct EndpointTests {
    let dir = TempDir()

    /// A host whose tab `fake` is an endpoint made by `make` (never a process).
    func host(_ make: @escaping @Sendable (Runtime) -> (String) -> any PluginEndpoint) async throws -> Host {
        let h = try Host(dir, tabs: [TabSpec(id: "fake", command: ["/nonexistent/not-a-plugin"])], output: .json)
        _ = await h.on { runtime in runtime.makeEndpoint = make(runtime) }
        return h
    }

    @Test func everyMessageOfTheCoreGoesToTheTabsEndpoint() async throws {
        let made = Box<FakePlugin>()
        let h = try await host { runtime in
            { tab in made.set(FakePlugin(tab: tab, sorts: true, onEvent: runtime.endpointEvents)) }
        }
        let natural = await h.run("show 2")
        #expect(natural.rows.map(\.id) == ["r0", "r1"], "\(natural)")
        #expect((await h.run("sort n desc")).ok)
        let sorted = await h.run("show 2")
        #expect(sorted.rows.map(\.id) == ["r4", "r3"], "\(sorted)")
        let fake = try #require(made.value)
        let methods = fake.received.compactMap { message -> String? in
            if case .request(_, let method, _) = message { return method } else { return nil }
        }
        #expect(methods.prefix(2) == [Method.initialize, Method.open], "\(methods)")
        // A plugin that sorts gets the sorted page itself: nothing answers in its place.
        #expect(fake.rowsRequests.contains { $0.request.sort == [SortKey("n", .descending)] }, "\(fake.rowsRequests)")
        #expect(await h.on { $0.supervisor.isRunning("fake") } == false, "no process was started")
        await h.shutdown()
        #expect(!fake.isRunning, "quit stops the plugin through its endpoint")
    }

    @Test func aRequestThatCannotBeSentFailsItsCommandInsteadOfHangingIt() async throws {
        let h = try await host { runtime in
            { tab in
                let fake = FakePlugin(tab: tab, sorts: true, onEvent: runtime.endpointEvents)
                fake.refuse = Method.rows
                return fake
            }
        }
        let show = await h.run("show 2")
        #expect(!show.ok)
        #expect(show.err.contains("could not send \"rows\" to the plugin"), "\(show)")
        #expect((await h.run("columns")).ok, "the session goes on")
        await h.shutdown()
    }

    @Test func theSpoolAnswersThroughTheSameInterface() async throws {
        let made = Box<FakePlugin>()
        let folder = dir.file("state/spool")
        let h = try await host { runtime in
            { tab in
                SpooledEndpoint(tab: tab, folder: folder, trace: nil, onEvent: runtime.endpointEvents) { events in
                    made.set(FakePlugin(tab: tab, sorts: false, onEvent: events))
                }
            }
        }
        #expect((await h.run("sort n desc")).ok)
        let sorted = await h.run("show 2")
        #expect(sorted.rows.map(\.id) == ["r4", "r3"], "\(sorted)")
        let fake = try #require(made.value)
        // The plugin only ever sees the spool's own natural-order pages; the core's sorted
        // pages are answered by the spool in its name.
        #expect(!fake.rowsRequests.isEmpty)
        #expect(fake.rowsRequests.allSatisfy { $0.id.description.contains("spool-") && $0.request.sort.isEmpty },
                "\(fake.rowsRequests)")
        await h.shutdown()
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty, "no spool left after quit")
    }
}

/// A value set once from another thread.
final class Box<T: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    var value: T? { lock.withLock { stored } }
    func set(_ value: T) -> T {
        lock.withLock { stored = value }
        return value
    }
}
