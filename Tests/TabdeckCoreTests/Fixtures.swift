import TabdeckCore
import TabdeckProtocol

/// A config with two sections and four tabs, built in code.
func sampleConfig() -> WorkspaceConfig {
    WorkspaceConfig(
        file: "/w/config.json", directory: "/w",
        sections: [SectionConfig(id: "data", title: "Data"), SectionConfig(id: "sys", title: "System")],
        tabs: [
            TabConfig(id: "people", title: "People", section: "data", command: ["plug"]),
            TabConfig(id: "orders", title: "Orders", section: "data", command: ["plug"]),
            TabConfig(id: "procs", title: "Processes", section: "sys", command: ["plug"], customizable: false),
            TabConfig(id: "logs", title: "Logs", section: "sys", command: ["plug"]),
        ])
}

/// An in-memory plugin serving `count` rows with columns id (integer), name (text), sorting itself.
struct FakePlugin {
    var count: Int
    var sortable = true
    var children = false
    /// Requests seen, by method.
    var seen: [String] = []
    /// When set, `rows` requests are not answered (kept here instead).
    var holdRows = false
    var held: [(RequestID, JSONValue)] = []
    /// Rows below `count / 2` are in section "low", the others in "high" (the fake sorts all
    /// rows together: tests with sections do not sort).
    var sectioned = false
    /// Whether the sections carry their row counts.
    var sectionCounts = true
    /// Whether `open` and `rows` leave the total out (a plugin still counting, like a CSV being
    /// indexed): the test sends it later with an `invalidate`.
    var totalUnknown = false
    /// Whether the plugin declares `filter` (a case-insensitive substring of the id or name).
    var filters = false
    /// Whether the plugin declares `where` (applied with ``Where/matches(_:columns:_:)``).
    var wheres = false
    /// Whether the plugin declares `aggregate` (group counts of id and name by the protocol's
    /// rule, served as table "agg" in the natural order).
    var aggregates = false
    /// Whether the plugin declares `describe` (table "desc") and `query` (table "q": the SQL
    /// text's words, one row each).
    var describes = false
    var queries = false
    var queryWords: [String] = []
    /// The `sqlNames` of the tables it opens.
    var sqlNames: [String] = []
    /// The rows of the last aggregate table.
    var aggregateRows: [Row] = []
    /// The last `aggregate` request.
    var aggregateAsked: AggregateRequest?
    /// Answer every `rows` request with an error.
    var failRows = false
    /// Answer every `open` with an error.
    var failOpen = false
    /// The protocol version `initialize` answers.
    var protocolVersion = ProtocolVersion.current
    /// A stop or kill does not end the process at once: it exits on ``Harness/exitStopped(_:)``
    /// (a plugin still inside its grace period).
    var slowStop = false
    /// Every `rows` request gets a result of the wrong shape.
    var badRows = false
    /// Table handles belong to one process (`root@N` after the N-th `initialize`), as in a real
    /// plugin: a restarted plugin knows none of the old ones and refuses their `rows`.
    var handlesPerProcess = false
    var processes = 0
    /// Added to each row's id (unsorted tables): rows inserted at the top move the ids down.
    var idOffset = 0
    /// `children` requests answered with an error.
    var failChildren = false
    /// Whether the plugin declares and answers `locate`.
    var locates = false
    /// `locate` requests are kept unanswered until ``Harness/releaseLocates(_:)``.
    var holdLocates = false
    var heldLocates: [(RequestID, JSONValue)] = []
    /// Answers `find` (PROTOCOL.md 11.15), from a scan of its own ordered rows.
    var finds = false
    /// `find` requests are held (not answered) while set.
    var holdFinds = false
    var heldFinds: [(RequestID, JSONValue)] = []
    /// `find` fails with this message while set.
    var failFind: String?
    /// When set, `open` and `rows` send this total marked as an estimate (`totalIsEstimate`),
    /// as a SQL plugin with a planner's guess does.
    var estimate: Int?
    /// Whether the root table says `"rowIds": "unstable"` (a view paged by position).
    var unstableIDs = false
    /// How `open` and `children` describe the name column.
    var nameColumn = ColumnSpec(id: "name")
    /// `rows` answers hold at most this many rows, with `more: true` when rows were left out
    /// (a page too long for its line, PROTOCOL.md 11.3).
    var maxRowsPerReply: Int?
    /// Rows (by number) whose name is sent cut, with the whole value's size in bytes
    /// (``FakePlugin/whole(_:)``).
    var bigNames: [Int: Int] = [:]
    /// Whether the plugin declares and answers `cell`.
    var cells = false
    /// `rows` requests reaching a row at or after this one fail (as a permission error would).
    var failRowsFrom: Int?

    /// The whole name of a big row: `size` bytes of "é" (and an "x" when odd).
    static func whole(_ size: Int) -> String { String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "x" : "") }

    /// A `rows` result with big names cut and the page shortened as configured.
    func shaped(_ value: JSONValue) -> JSONValue {
        guard !bigNames.isEmpty || maxRowsPerReply != nil, var r = try? RowsResult(value) else { return value }
        for i in r.rows.indices {
            if let n = Int(r.rows[i].id), let size = bigNames[n] {
                r.rows[i].cells[1] = .string(Self.whole(size))
                r.rows[i].cutLongCells(columns: ["id", "name"])
            }
        }
        if let most = maxRowsPerReply, r.rows.count > most {
            r.rows = Array(r.rows.prefix(most))
            r.more = true
        }
        return r.json
    }

    var sections: [SectionSpec] {
        guard sectioned else { return [] }
        let half = count / 2
        return [SectionSpec(id: "low", title: "Low", footer: "\(half) low", count: sectionCounts ? half : nil),
                SectionSpec(id: "high", title: "High", footer: "\(count - half) high", count: sectionCounts ? count - half : nil)]
    }

    func name(_ i: Int) -> String { "name\((i * 7919) % count)" }

    /// Counts the rows (under `where`) by the protocol's rules, in the natural order.
    mutating func aggregate(_ r: AggregateRequest) -> AggregateResult {
        let columns = [ColumnSpec(id: "id", type: .integer), nameColumn]
        let cells = (0..<count).map { [JSONValue.int(Int64($0)), .string(name($0))] }.filter { Where.matches($0, columns: columns, r.where) }
        let indexes = try! GroupBins.check(r, columns: columns)
        let (groups, sizes) = GroupBins.apply(GroupBins.count(cells, indexes: indexes), columns: indexes.map { columns[$0] },
                                              bins: r.group.map(\.bins))
        let natural = groups.sorted { a, b in a.count != b.count ? a.count > b.count
            : (Where.compare(a.cells[0], b.cells[0], type: columns[indexes[0]].type) ?? 0) < 0 }
        var running = 0
        aggregateRows = natural.enumerated().map { i, g in
            running += g.count
            return Row(id: "g\(i)", cells: g.cells + [.int(Int64(g.count)), .double(Double(g.count) * 100 / Double(cells.count)),
                                                      .double(Double(running) * 100 / Double(cells.count))])
        }
        let d = TableDescription(table: "agg", title: "groups", columns: indexes.map { columns[$0] } + AggregateResult.countColumns,
                                 total: natural.count)
        return AggregateResult(description: d, rows: cells.count, largest: natural.first?.count ?? 0, bins: sizes)
    }

    func rows(_ params: JSONValue) -> JSONValue {
        let r = try! RowsRequest(params)
        if !r.where.isEmpty {
            let columns = [ColumnSpec(id: "id", type: .integer), nameColumn]
            let ids = (0..<count).filter { Where.matches([.int(Int64($0)), .string(name($0))], columns: columns, r.where) }
            let page = r.offset < ids.count ? Array(ids[r.offset..<min(ids.count, r.offset + r.limit)]) : []
            let rows = page.map { Row(id: String($0), cells: [.int(Int64($0)), .string(name($0))], hasChildren: children) }
            return RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: ids.count).json
        }
        if let filter = r.filter?.lowercased(), !filter.isEmpty {
            let ids = (0..<count).filter { String($0).contains(filter) || name($0).lowercased().contains(filter) }
            let page = r.offset < ids.count ? Array(ids[r.offset..<min(ids.count, r.offset + r.limit)]) : []
            let rows = page.map { Row(id: String($0), cells: [.int(Int64($0)), .string(name($0))], hasChildren: children) }
            return RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: ids.count).json
        }
        let end = min(count, r.offset + r.limit)
        let page: [Int]
        if let key = r.sort.first {
            // Sorting materializes the table: only for small fake tables.
            precondition(count <= 100_000, "FakePlugin sorts small tables only")
            var ids = Array(0..<count)
            if key.column == "name" { ids.sort { name($0) < name($1) } }
            if key.direction == .descending { ids.reverse() }
            page = r.offset < end ? Array(ids[r.offset..<end]) : []
        } else {
            page = r.offset < end ? Array(r.offset..<end) : []
        }
        let rows = page.map { Row(id: String($0 + idOffset), cells: [.int(Int64($0)), .string(name($0))],
                                  section: sectioned ? ($0 < count / 2 ? "low" : "high") : nil, hasChildren: children) }
        if let estimate { return RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: estimate, totalIsEstimate: true).json }
        return RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: totalUnknown ? nil : count).json
    }

    mutating func answer(_ id: RequestID, _ method: String, _ params: JSONValue) -> Message? {
        seen.append(method)
        switch method {
        case Method.initialize:
            processes += 1
            return .response(id: id, result: InitializeResult(name: "fake", version: "1", protocolVersion: protocolVersion, capabilities:
                {
                    var c = PluginCapabilities(sort: sortable, multiSort: sortable, filter: filters, sections: sectioned,
                                               children: children, actions: true)
                    c.locate = locates
                    c.find = finds
                    c.cells = cells
                    c.where = wheres
                    c.aggregate = aggregates
                    c.describe = describes
                    c.query = queries
                    return c
                }()).json)
        case Method.open, Method.children:
            if method == Method.open && failOpen {
                return .failure(id: id, error: RPCError(code: -32603, message: "disk on fire"))
            }
            if method == Method.children && failChildren {
                return .failure(id: id, error: RPCError(code: -32002, message: "no such row"))
            }
            if handlesPerProcess && method == Method.children && params["table"]?.stringValue != "root@\(processes)" {
                return .failure(id: id, error: RPCError(code: -32001, message: "unknown table"))
            }
            let name = method == Method.open ? "root" : "child"
            let d = TableDescription(table: handlesPerProcess ? "\(name)@\(processes)" : name,
                                     columns: [ColumnSpec(id: "id", type: .integer), nameColumn],
                                     total: estimate ?? (totalUnknown ? nil : count), sections: sections,
                                     actions: [ActionSpec(id: "delete", confirm: true), ActionSpec(id: "touch")],
                                     totalIsEstimate: estimate != nil, rowIDs: unstableIDs ? .unstable : .stable, sqlNames: sqlNames)
            return .response(id: id, result: d.json)
        case Method.aggregate:
            let r = try! AggregateRequest(params)
            aggregateAsked = r
            return .response(id: id, result: aggregate(r).json)
        case Method.describe:
            let columns = DescribeRequest.columns
            var o: JSONObject = ["table": "desc", "title": "describe", "columns": .array(columns.map(\.json)), "total": 2]
            o["estimates"] = ["distinct"]
            return .response(id: id, result: .object(o))
        case Method.rows where params["table"] == "desc":
            let r = try! RowsRequest(params)
            let rows = [
                Row(id: "id", cells: ["id", "integer", .int(Int64(count)), 0, .int(Int64(count)), "0", .string(String(count - 1)),
                                      .double(Double(count - 1) / 2), 1.5, "1", "2", "3", "0", 1, "1 2 4 8 8 4 2 0"]),
                Row(id: "name", cells: ["name", "text", .int(Int64(count)), 0, .int(Int64(count)), "name0", "name99",
                                        .null, .null, .null, .null, .null, "name0", 1, .null]),
            ]
            return .response(id: id, result: RowsResult(generation: r.generation, offset: r.offset, rows: Array(rows.dropFirst(r.offset).prefix(r.limit)), total: 2).json)
        case Method.query:
            let sql = params["sql"]?.stringValue ?? ""
            if sql.contains("nope") {
                return .failure(id: id, error: RPCError(code: -32602, message: "Binder Error: no column nope (position 8)"))
            }
            queryWords = sql.split(separator: " ").map(String.init)
            return .response(id: id, result: TableDescription(table: "q", columns: [ColumnSpec(id: "word")], total: queryWords.count).json)
        case Method.rows where params["table"] == "q":
            let r = try! RowsRequest(params)
            let rows = queryWords.enumerated().map { Row(id: "w\($0.offset)", cells: [.string($0.element)]) }
            return .response(id: id, result: RowsResult(generation: r.generation, offset: r.offset, rows: Array(rows.dropFirst(r.offset).prefix(r.limit)), total: rows.count).json)
        case Method.rows where params["table"] == "agg":
            let r = try! RowsRequest(params)
            let page = Array(aggregateRows.dropFirst(r.offset).prefix(r.limit))
            return .response(id: id, result: RowsResult(generation: r.generation, offset: r.offset, rows: page, total: aggregateRows.count).json)
        case Method.rows:
            if holdRows { held.append((id, params)); return nil }
            if failRows { return .failure(id: id, error: RPCError(code: -32603, message: "disk on fire")) }
            if let from = failRowsFrom, let r = try? RowsRequest(params), r.offset + r.limit > from {
                return .failure(id: id, error: RPCError(code: -32603, message: "permission denied (rows \(r.offset + 1)–\(r.offset + r.limit) asked)"))
            }
            if badRows { return .response(id: id, result: ["rows": "disk on fire"]) }  // a result of the wrong shape
            if handlesPerProcess, let table = params["table"]?.stringValue, !table.hasSuffix("@\(processes)") {
                return .failure(id: id, error: RPCError(code: -32001, message: "unknown table \(table)"))
            }
            return .response(id: id, result: shaped(rows(params)))
        case Method.cell:
            let r = try! CellRequest(params)
            guard cells, let n = Int(r.row), let size = bigNames[n], r.column == "name" else {
                return .failure(id: id, error: RPCError(code: -32602, message: "no cut cell \(r.row)/\(r.column)"))
            }
            return .response(id: id, result: r.part(of: Self.whole(size)).json)
        case Method.locate:
            if holdLocates { heldLocates.append((id, params)); holdLocates = false; return nil }
            // Where the first of the rows is in the whole ordered (filtered) table.
            let r = try! LocateRequest(params)
            let all = RowsRequest(table: r.table, offset: 0, limit: count, sort: r.sort, filter: r.filter, generation: r.generation)
            let ids = rows(all.json)["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            for want in r.rows { if let i = ids.firstIndex(of: want) { return .response(id: id, result: LocateResult(row: want, offset: i).json) } }
            return .response(id: id, result: LocateResult(row: nil, offset: nil).json)
        case Method.find:
            if holdFinds { heldFinds.append((id, params)); return nil }
            if let failFind { return .failure(id: id, error: RPCError(code: -32603, message: failFind)) }
            let r = try! FindRequest(params)
            let all = RowsRequest(table: r.table, offset: 0, limit: count, sort: r.sort, filter: r.filter, generation: r.generation)
            let rows = rows(all.json)["rows"]?.arrayValue ?? []
            let text = r.text.lowercased()
            for (n, range) in r.positions(count: rows.count).enumerated() {
                for i in r.backward ? Array(range.reversed()) : Array(range) {
                    let cells = rows[i]["cells"]?.arrayValue ?? []
                    let hit = cells.contains { cell in
                        switch cell { case .int(let v): String(v).contains(text); case .string(let s): s.lowercased().contains(text); default: false }
                    }
                    if hit {
                        return .response(id: id, result: FindResult(generation: r.generation, offset: i, row: rows[i]["id"]?.stringValue,
                                                                   wrapped: n > 0).json)
                    }
                }
            }
            return .response(id: id, result: FindResult(generation: r.generation, offset: nil).json)
        case Method.action:
            return .response(id: id, result: ["message": .string("did \(params["action"]!.stringValue!) on \(params["rows"]!.arrayValue!.count)"), "invalidate": true])
        default:
            return nil
        }
    }
}

/// Drives a workspace with fake plugins answering synchronously, like a runtime would.
struct Harness {
    var ws: Workspace
    var plugins: [String: FakePlugin]
    var now = 0.0
    var effects: [Effect] = []
    var outputs: [CommandOutput] = []
    var failures: [String] = []
    /// Tabs whose plugin was asked to stop and has not exited yet (``FakePlugin/slowStop``).
    var stopping: Set<String> = []

    init(count: Int = 1000, config: WorkspaceConfig = sampleConfig(), layout: WorkspaceLayout? = nil,
         views: [TableViewKey: TableViewState] = [:]) {
        ws = Workspace(config: config, storedLayout: layout, storedViews: views)
        plugins = Dictionary(uniqueKeysWithValues: config.tabs.map { ($0.id, FakePlugin(count: count)) })
    }

    /// Runs a command line; returns its output or nil on failure.
    @discardableResult
    mutating func run(_ line: String) -> CommandOutput? {
        let before = (outputs.count, failures.count)
        feed(.command(line))
        if failures.count > before.1 { return nil }
        return outputs.count > before.0 ? outputs.last : nil
    }

    /// The last failure message.
    var lastFailure: String? { failures.last }

    mutating func feed(_ event: Event) {
        var queue = [event]
        while !queue.isEmpty {
            let e = queue.removeFirst()
            let out = ws.update(e, now: now)
            effects += out
            for effect in out {
                switch effect {
                case .send(let tab, .request(let id, let method, let params)):
                    if let reply = plugins[tab]!.answer(id, method, params) { queue.append(.plugin(tab: tab, .message(reply))) }
                case .commandDone(let o): outputs.append(o)
                case .commandFailed(let m): failures.append(m)
                case .killPlugin(let tab), .stopPlugin(let tab):
                    if plugins[tab]!.slowStop { stopping.insert(tab) } else { queue.append(.plugin(tab: tab, .exited("was killed by signal 9"))) }
                default: break
                }
            }
        }
    }

    /// The stopped plugin of `tab` (``FakePlugin/slowStop``) exits now.
    mutating func exitStopped(_ tab: String) {
        guard stopping.remove(tab) != nil else { return }
        feed(.plugin(tab: tab, .exited("exited with status 0")))
    }

    /// Answers the `locate` requests `tab`'s plugin held.
    mutating func releaseLocates(_ tab: String) {
        let held = plugins[tab]!.heldLocates
        plugins[tab]!.heldLocates = []
        for (id, params) in held {
            if let reply = plugins[tab]!.answer(id, Method.locate, params) { feed(.plugin(tab: tab, .message(reply))) }
        }
    }

    /// Effects of a given kind seen so far.
    /// The notifications of `method` sent to plugins: (tab, params).
    func notifications(_ method: String) -> [(String, JSONValue)] {
        effects.compactMap {
            if case .send(let tab, .notification(let m, let p)) = $0, m == method { return (tab, p) }
            return nil
        }
    }

    func sends(_ method: String) -> [(String, RequestID, JSONValue)] {
        effects.compactMap {
            if case .send(let tab, .request(let id, let m, let p)) = $0, m == method { return (tab, id, p) }
            return nil
        }
    }
}
