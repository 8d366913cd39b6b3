import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// A plugin's table, served from memory: rows are made on demand from their index.
struct FakeTable {
    var columns: [ColumnSpec]
    var total: Int
    var row: @Sendable (Int) -> Row
    /// Row offsets whose `rows` requests are not answered (they stay placeholders).
    var hold: @Sendable (Int) -> Bool = { _ in false }
    var children = false
    /// The table's sections (the rows say which one they are in).
    var sections: [SectionSpec] = []
    /// Whether `open` and `rows` leave the total out (a table still being counted).
    var totalUnknown = false
    /// The table's actions (answered by `act`, SceneEditing.swift) and whether its rows move.
    var actions: [ActionSpec] = []
    var movable = false
    /// Rows of child tables (`children` of row R answers table `child-R`); a child table not
    /// listed serves this table's rows.
    var childRows: [String: [Row]] = [:]
    /// Columns of child tables (by table, as `childRows`); a child table not listed has this
    /// table's columns.
    var childColumns: [String: [ColumnSpec]] = [:]
    /// Methods whose requests are not answered (work that takes long: `open`, `children`, `action`).
    var holdMethods: Set<String> = []
    /// The plugin filters (rows whose text contains the filter, case-insensitive).
    var filter = false
    /// The sections sent with each `rows` result, for its filter (nil: none sent).
    var rowsSections: (@Sendable (String?) -> [SectionSpec]?)?
    /// `open` and `rows` send `total` marked as an estimate (`totalIsEstimate`).
    var totalIsEstimate = false
    /// The table's ids are positions (`"rowIds": "unstable"`).
    var rowIDs = RowIDStability.stable
    /// The answer to `aggregate` and the rows of its table (the plugin declares `aggregate`).
    var groups: (result: AggregateResult, rows: [Row])?
    /// The answer to `describe` and the rows of its table (the plugin declares `describe`).
    var statistics: (result: DescribeResult, rows: [Row])?

    /// People: name, age, status, city; `count` rows.
    static func people(count: Int = 1_000_000, nameWidth: ColumnWidth? = .flexible(min: 8, ideal: 12, max: 20)) -> FakeTable {
        FakeTable(columns: [
            ColumnSpec(id: "name", title: "Name", width: nameWidth),
            ColumnSpec(id: "age", title: "Age", type: .integer, width: .fixed(5)),
            ColumnSpec(id: "status", title: "Status", type: .enumeration(["todo", "doing", "done"])),
            ColumnSpec(id: "city", title: "City"),
        ], total: count, row: { i in
            Row(id: "p\(i)", cells: [.string("name\(i)"), .int(Int64(20 + i % 50)), .string(["todo", "doing", "done"][i % 3]),
                                     .string(["Lyon", "Oslo", "Kyoto", "Lima"][i % 4])])
        })
    }
}

extension PluginCapabilities {
    /// The capabilities with a change made.
    func with(_ change: (inout PluginCapabilities) -> Void) -> PluginCapabilities {
        var c = self
        change(&c)
        return c
    }
}

/// A config with two sections, glyphs, and the given extra tabs.
func config(tabs: [TabConfig]? = nil) -> WorkspaceConfig {
    WorkspaceConfig(
        file: "/w/config.json", directory: "/w",
        sections: [SectionConfig(id: "data", title: "Data"), SectionConfig(id: "sys", title: "System")],
        tabs: tabs ?? [
            TabConfig(id: "people", title: "People", glyph: "◆", section: "data", command: ["plug"]),
            TabConfig(id: "orders", title: "Orders", glyph: "$", section: "data", command: ["plug"]),
            TabConfig(id: "procs", title: "Processes", glyph: "⚙", section: "sys", command: ["plug"]),
            TabConfig(id: "logs", title: "Logs", glyph: "≡", section: "sys", command: ["plug"]),
        ])
}

/// Drives a workspace like the runtime would, with in-memory plugins answering at once.
struct Scene {
    var ws: Workspace
    var tables: [String: FakeTable]
    var failures: [String] = []
    var outputs: [String] = []
    /// The store writes the core asked for (`saveLayout`, `resetLayout`, `saveView`), in order.
    var saved: [Effect] = []
    /// Notifications the host sent to plugins: tab, method, params (`$/cancel`, `close`).
    var sent: [(tab: String, method: String, params: JSONValue)] = []
    /// Requests the host sent: tab, id, method.
    var requested: [(tab: String, id: RequestID, method: String)] = []
    /// Requests the fake plugins held (not answered yet).
    var held: [(tab: String, id: RequestID, method: String, params: JSONValue)] = []
    var now = 0.0
    /// The params of the `action` and `move` requests the plugins got, in order.
    var edits: [JSONValue] = []
    /// What the core put on the clipboard (``Effect/clipboard(_:)``), in order.
    var clipboard: [String] = []

    init(config: WorkspaceConfig = config(), tables: [String: FakeTable] = [:], layout: WorkspaceLayout? = nil,
         views: [TableViewKey: TableViewState] = [:]) {
        ws = Workspace(config: config, storedLayout: layout, storedViews: views)
        self.tables = tables
    }

    /// Tells the core how many rows the screen shows at this size.
    mutating func resize(_ width: Int, _ height: Int) {
        feed(.viewport(rows: WorkspaceRenderer.tableRows(workspace: ws, size: (width, height))))
    }

    /// Runs a command line.
    mutating func run(_ line: String) {
        feed(.command(line))
    }

    /// A notification from a tab's plugin.
    mutating func notify(_ tab: String, _ method: String, _ params: JSONValue) {
        feed(.plugin(tab: tab, .message(.notification(method: method, params: params))))
    }

    mutating func feed(_ event: Event) {
        var queue = [event]
        while !queue.isEmpty {
            let e = queue.removeFirst()
            for effect in ws.update(e, now: now) {
                switch effect {
                case .send(let tab, .request(let id, let method, let params)):
                    requested.append((tab, id, method))
                    if let reply = answer(tab, method, params) {
                        queue.append(.plugin(tab: tab, .message(Self.message(id, reply))))
                    } else {
                        held.append((tab, id, method, params))
                    }
                case .send(let tab, .notification(let method, let params)): sent.append((tab, method, params))
                case .commandDone(let o): outputs.append(o.text)
                case .commandFailed(let m): failures.append(m)
                case .saveLayout, .resetLayout, .saveView: saved.append(effect)
                case .clipboard(let text): clipboard.append(text)
                default: break
                }
            }
        }
    }

    /// Answers the held requests the fake plugins now answer (after `hold` changed).
    mutating func releaseHeld() {
        let waiting = held
        held = []
        for h in waiting {
            if let reply = answer(h.tab, h.method, h.params) {
                feed(.plugin(tab: h.tab, .message(Self.message(h.id, reply))))
            } else {
                held.append(h)
            }
        }
    }

    mutating func answer(_ tab: String, _ method: String, _ params: JSONValue) -> JSONValue? {
        let table = tables[tab] ?? FakeTable.people(count: 3)
        if table.holdMethods.contains(method) { return nil }
        switch method {
        case Method.initialize:
            return InitializeResult(name: "fake", version: "1", capabilities:
                PluginCapabilities(sort: true, multiSort: true, filter: table.filter, sections: !table.sections.isEmpty,
                                   children: table.children, actions: !table.actions.isEmpty, move: table.movable)
                .with { $0.aggregate = table.groups != nil; $0.describe = table.statistics != nil }).json
        case Method.aggregate:
            return table.groups?.result.json
        case Method.describe:
            return table.statistics?.result.json
        case Method.open:
            return TableDescription(table: "root", columns: table.columns, total: table.totalUnknown ? nil : table.total,
                                    sections: table.sections, actions: table.actions, movable: table.movable,
                                    totalIsEstimate: table.totalIsEstimate, rowIDs: table.rowIDs).json
        case Method.action, Method.move:
            edits.append(params)
            return edit(tab, method, params)
        case Method.children:
            let row = params["row"]?.stringValue ?? "?"
            return TableDescription(table: "child-" + row, title: row, columns: table.childColumns["child-" + row] ?? table.columns,
                                    total: table.childRows["child-" + row]?.count ?? table.total).json
        case Method.rows:
            let r = try! RowsRequest(params)
            if table.hold(r.offset) { return nil }
            if let groups = table.groups, r.table == groups.result.description.table {
                let page = Array(groups.rows.dropFirst(r.offset).prefix(r.limit))
                return RowsResult(generation: r.generation, offset: r.offset, rows: page, total: groups.rows.count).json
            }
            if let statistics = table.statistics, r.table == statistics.result.description.table {
                let page = Array(statistics.rows.dropFirst(r.offset).prefix(r.limit))
                return RowsResult(generation: r.generation, offset: r.offset, rows: page, total: statistics.rows.count).json
            }
            if let rows = table.childRows[r.table] {
                let page = r.offset < rows.count ? Array(rows[r.offset..<min(rows.count, r.offset + r.limit)]) : []
                return RowsResult(generation: r.generation, offset: r.offset, rows: page, total: rows.count).json
            }
            if let f = r.filter?.lowercased(), table.filter {
                let all = (0..<table.total).map(table.row).filter { row in
                    row.cells.contains { CellText.of($0).lowercased().contains(f) }
                }
                let rows = Array(all.dropFirst(r.offset).prefix(r.limit))
                return RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: all.count,
                                  sections: table.rowsSections?(r.filter)).json
            }
            let end = min(table.total, r.offset + r.limit)
            let rows = r.offset < end ? (r.offset..<end).map(table.row) : []
            return RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: table.totalUnknown ? nil : table.total,
                              sections: table.rowsSections?(r.filter), totalIsEstimate: table.totalIsEstimate).json
        default:
            return nil
        }
    }

    /// The screen as text lines.
    func screen(_ width: Int, _ height: Int, ui: UIState = UIState()) -> [String] {
        TestBackend.lines(frame(width, height, ui: ui))
    }

    func frame(_ width: Int, _ height: Int, ui: UIState = UIState()) -> ScreenBuffer {
        WorkspaceRenderer.render(workspace: ws, size: (width, height), ui: ui)
    }
}

/// Prints a screen as a Swift array literal, for writing expectations.
func literal(_ lines: [String]) {
    print("[")
    for l in lines { print("    \"" + l.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\",") }
    print("]")
}

/// Prints a screen framed by bars, for writing expectations.
func dump(_ lines: [String]) {
    print("---")
    for l in lines { print("|" + l + "|") }
}

/// The full-screen UI component over a scene: inputs go through ``ScreenModel/update``, its core
/// events into the scene's workspace (plugins answer at once), results back into the model, as
/// the shell does; `lines` renders with the model's own state, at its size.
struct ScreenScene {
    var scene: Scene
    var model: ScreenModel
    /// Prompts the model asked the shell to open (their typed text).
    var prompts: [String] = []
    var redraws = 0
    /// Redraws of the workspace under the open prompt (a resize at `:`).
    var promptRedraws = 0
    /// The mouse reporting the model asked for (in order), and Ctrl-Z suspends.
    var mouseModes: [Bool] = []
    var suspends = 0
    /// Times the model said the held bytes are keys (a lone Esc), and frames due by time alone.
    var heldKeysResolved = 0
    var framesDue = 0
    /// The shell's clock for mouse reports (virtual: SceneMouse.swift moves it).
    var clock = 100.0

    init(_ scene: Scene = Scene(tables: ["people": .people()]), width: Int, height: Int) {
        self.scene = scene
        self.model = ScreenModel(width: width, height: height)
        apply(model.update(.resize(width: width, height: height), workspace: self.scene.ws))
        self.scene.feed(.refresh)
    }

    mutating func input(_ input: ScreenInput) {
        apply(model.update(input, workspace: scene.ws))
    }

    mutating func press(_ keys: Key...) {
        for key in keys { input(.key(key)) }
    }

    /// Types the characters as keys.
    mutating func type(_ text: String) {
        for c in text { input(.key(.char(c))) }
    }

    mutating func apply(_ effects: [ScreenEffect]) {
        for effect in effects {
            switch effect {
            case .core(let event):
                let (outputs, failures) = (scene.outputs.count, scene.failures.count)
                scene.feed(event)
                scene.feed(.refresh)
                for text in scene.outputs[outputs...] where !text.isEmpty { apply(model.update(.output(text, isError: false), workspace: scene.ws)) }
                for text in scene.failures[failures...] { apply(model.update(.output(text, isError: true), workspace: scene.ws)) }
                apply(model.update(.coreChanged, workspace: scene.ws))
            case .prompt(let typed): prompts.append(typed)
            case .redraw: redraws += 1
            case .redrawPrompt: promptRedraws += 1
            case .quit: break
            case .mouseReporting(let on): mouseModes.append(on)
            case .suspend: suspends += 1
            case .resolveHeldKeys: heldKeysResolved += 1
            case .frameDue: framesDue += 1
            }
        }
    }

    /// The screen as the model shows it now.
    var lines: [String] {
        TestBackend.lines(WorkspaceRenderer.render(workspace: scene.ws, size: model.size, ui: model.ui))
    }
}
