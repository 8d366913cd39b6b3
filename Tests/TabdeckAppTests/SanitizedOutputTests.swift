import Foundation
import Testing
import TabdeckTime
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckApp
@testable import TabdeckTerminal

/// Issue #10, point 6: every string a plugin controls is made safe before it reaches any
/// output. A fake plugin puts one nasty string into every field it controls (name, version,
/// table, titles, column ids and titles, enumeration values, sections, actions, row ids,
/// cells, details, breadcrumbs, badge, status, progress, log, errors, stderr); every command's
/// text and JSON output (through the runtime's real output edge) and the screens at 40, 80 and
/// 120 columns are then searched for raw control and bidi characters.
@Suite struct SanitizedOutputTests {
    /// The nasty strings: one per kind of trick.
    static let nasty: [String] = [
        "\u{1B}[31mred\u{1B}[0m",          // SGR
        "\u{1B}[2J\u{1B}[H",              // clear screen, cursor home
        "\u{1B}]0;pwned\u{07}",           // OSC window title, BEL-terminated
        "\u{1B}]8;;http://x\u{1B}\\link", // OSC 8 hyperlink, ST-terminated
        "ding\u{07}",                     // BEL
        "over\rwrite",                    // CR
        "nul\u{0}byte",                   // NUL
        "line\nFORGED line",              // LF: a forged output line
        "c1\u{9B}2Jcsi",                  // C1 CSI
        "\u{9D}0;osc\u{9C}",              // C1 OSC ... ST
        "invoice\u{202E}fdp.exe",         // RTL override
        "\u{2066}isolate\u{2069}\u{200F}\u{61C}", // LRI … PDI, RLM, ALM
        "del\u{7F}ete",                   // DEL
    ]

    @Test(arguments: nasty)
    func noRawControlReachesAnyOutput(_ x: String) throws {
        var scene = HostileScene(x)
        let dir = TempDir()
        let text = try OutputEdge(dir, .text)
        let json = try OutputEdge(dir, .json)
        var leaves: [String] = []  // every string read back from the JSON output

        scene.startAll()
        for line in HostileScene.commands {
            let before = (scene.outputs.count, scene.failures.count)
            scene.run(line)
            let outcome: Runtime.Outcome
            if scene.failures.count > before.1 {
                outcome = .failure(scene.failures.last!)
            } else {
                try #require(scene.outputs.count > before.0, "\(line): no result")
                let out = scene.outputs.last!
                // Made safe where the text is made: the core's own text holds no unsafe
                // character but the line breaks it puts there.
                for l in out.text.split(separator: "\n", omittingEmptySubsequences: false) {
                    #expect(unsafe(String(l)).isEmpty, "\(line): core text \(String(reflecting: String(l)))")
                }
                outcome = .success(out)
            }
            // The text edge.
            let (stdout, stderr) = text.report(outcome, line)
            for l in stdout + stderr {
                #expect(unsafe(l).isEmpty, "\(line): printed \(String(reflecting: l))")
                #expect(!l.trimmingCharacters(in: .whitespaces).hasPrefix("FORGED"), "\(line): a plugin forged a line: \(l)")
            }
            // The JSON edge: one safe line per command, read back to the same values.
            let (jsonOut, _) = json.report(outcome, line)
            try #require(jsonOut.count == 1, "\(line): \(jsonOut)")
            #expect(unsafe(jsonOut[0]).isEmpty && !jsonOut[0].contains("\n"), "\(line): JSON \(String(reflecting: jsonOut[0]))")
            let parsed = try JSONParser.parse(jsonOut[0])
            switch outcome {
            case .success(let out): #expect(JSONWriter.string(parsed["result"]!) == JSONWriter.string(out.json), "\(line)")
            case .failure(let message): #expect(parsed["error"] == .string(message), "\(line)")
            }
            leaves += strings(in: parsed)
            // The screens, after every command, in the table, the detail view and with the
            // outcome shown as full screen shows it.
            var ui = UIState()
            switch outcome {
            case .success(let out) where out.text.contains("\n"): ui.mode = .output(text.lastStdout, scroll: 0)
            case .success: ui.message = .init(text.lastStdout)
            case .failure: ui.message = .init(text.lastStderr, isError: true)
            }
            for width in [40, 80, 120] {
                scene.checkScreen(width, ui: ui, line)
                scene.checkScreen(width, ui: UIState(mode: .detail(scroll: 0)), line)
            }
        }
        // The edge guard alone: a result whose text nobody cleaned still prints safe (its line
        // breaks are kept: only cleaning where the text is made, checked above, stops a
        // plugin's `\n` from starting a line of its own).
        let raw = CommandOutput(text: "raw \(x)\nsecond \(x)", json: ["raw": .string(x)])
        for l in text.report(.success(raw), "raw").out + text.report(.failure(x), "raw").err {
            #expect(unsafe(l).isEmpty, "edge: \(String(reflecting: l))")
        }
        let rawJSON = json.report(.success(raw), "raw").out
        #expect(rawJSON.count == 1 && unsafe(rawJSON[0]).isEmpty)
        #expect(try JSONParser.parse(rawJSON[0])["result"] == ["raw": .string(x)])
        // Lossless: the plugin's own strings came back from the JSON output.
        #expect(leaves.contains(where: { $0.contains(x) }), "no plugin string in the JSON output")

        // `plugin log`: the log file (written by the runtime's edge) and its tail.
        text.runtime.currentLine = "plugin log people"
        text.runtime.perform(.log(tab: "people", "[\(x)] \(x)log"))
        text.runtime.perform(.showLog(tab: "people"))
        for l in text.written.flatMap({ $0.split(separator: "\n") }) {
            #expect(unsafe(String(l)).isEmpty, "plugin log: \(String(reflecting: l))")
        }
        #expect(text.lastStdout.contains(Sanitizer.clean(x) + "log"))
    }

    /// The hostile fields do reach the outputs checked above (else that test would pass
    /// vacuously): name and version, cells, column titles, section title and footer, badge,
    /// status, progress, detail, action ids, breadcrumb and the stderr excerpt of an error.
    @Test func theHostileFieldsAreShown() {
        var scene = HostileScene("EVIL")
        scene.startAll()
        let table = scene.screenText(120)
        for field in ["EVILcell0", "EVILName", "EVILKind", "EVILSection", "EVILfooter", "EVILstatus", "EVILprogress", "EVIL"] {
            #expect(table.contains(field), "\(field) not on the screen:\n\(table)")
        }
        #expect(table.split(separator: "\n")[1].contains("People           EVIL"), "badge:\n\(table)")
        let detail = scene.screenText(120, ui: UIState(mode: .detail(scroll: 0)))
        #expect(detail.contains("EVILdetail"), "\(detail)")
        scene.run("action zzz")  // action ids are quoted in errors (titles: the menu, ScreenBuffer cleans every cell)
        #expect(scene.failures.last?.contains("EVILact") == true, "\(scene.failures)")
        scene.run("plugin status")
        let status = scene.outputs.last!.text
        #expect(status.contains("EVILname EVIL1.0"), "\(status)")
        #expect(status.contains("EVILstderr"), "\(status)")
        scene.run("open")
        let drilled = scene.screenText(120)
        #expect(drilled.contains("People > EVILCrumb"), "\(drilled)")
        scene.run("action fail")
        #expect(scene.failures.last?.contains("EVILaction failed") == true, "\(scene.failures)")
    }

    /// Both log writers of the host: the runtime's own lines (`Runtime.appendLog`) show
    /// controls escaped; a tab's log read back holds no raw control.
    @Test func runtimeLogLinesAreStoredSafe() throws {
        let dir = TempDir()
        let edge = try OutputEdge(dir, .text)
        for x in Self.nasty { edge.runtime.appendLog("people", "tabdeck: handshake done: \(x) \(x)") }
        let stored = dir.read("state-text/logs/people.log")
        let lines = stored.split(separator: "\n")
        #expect(lines.count == Self.nasty.count)
        for l in lines { #expect(unsafe(String(l)).isEmpty, "\(String(reflecting: l))") }
        #expect(stored.contains("\\e]0;pwned\\x07"))
        #expect(stored.contains("invoice\\u202efdp.exe"))
        #expect(stored.contains("line\\nFORGED line"))
    }
}

/// Unsafe scalars of `s`: what must never reach a terminal.
func unsafe(_ s: String) -> [Unicode.Scalar] { s.unicodeScalars.filter(Sanitizer.isUnsafe) }

/// Every string (keys and values) in a JSON value.
func strings(in value: JSONValue) -> [String] {
    switch value {
    case .string(let s): return [s]
    case .array(let items): return items.flatMap(strings(in:))
    case .object(let o): return o.flatMap { [$0.0] + strings(in: $0.1) }
    default: return []
    }
}

/// A runtime used only for its output edge (`report`, `appendLog`, `showLog`): no plugin is
/// started; what it writes is kept.
final class OutputEdge {
    let runtime: Runtime
    var written: [String] = []
    var errors: [String] = []
    var lastStdout: String { written.last ?? "" }
    var lastStderr: String { errors.last ?? "" }

    init(_ dir: TempDir, _ format: OutputFormat) throws {
        let config = try writeConfig(dir, [TabSpec(id: "people", command: ["true"]), TabSpec(id: "orders", command: ["true"])])
        runtime = try Runtime(configPath: config, stateDirectory: dir.file("state-\(format.rawValue)"), output: format, clock: ManualClock())
        runtime.write = { [unowned self] in written.append($0) }
        runtime.writeError = { [unowned self] in errors.append($0) }
    }

    /// What `report` printed for one command: stdout and stderr lines.
    func report(_ outcome: Runtime.Outcome, _ line: String) -> (out: [String], err: [String]) {
        let before = (written.count, errors.count)
        runtime.currentLine = line
        runtime.report(outcome)
        return (written[before.0...].flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) },
                errors[before.1...].flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) })
    }
}

/// A workspace whose plugins put `x` into every field they control, answering at once.
struct HostileScene {
    let x: String
    var ws: Workspace
    var outputs: [CommandOutput] = []
    var failures: [String] = []

    /// Line-mode commands run in order: every command that shows plugin text, and failures that
    /// quote it (suggestions list column, action and section names).
    static let commands = [
        "tabs", "tab select people", "columns", "show", "show 2", "goto 2", "sort", "sort n desc", "sort zzz",
        "sort clear", "select all", "selection", "select none", "find cell", "action", "action go", "action fail",
        "action zzz", "jump zzz", "jump s", "open", "columns", "show", "back", "page next", "filter abc",
        "column hide n", "column show n", "plugin status", "plugin status people", "tab select orders", "plugin status orders",
        "tab select people", "help", "tabs",
    ]

    init(_ x: String) {
        self.x = x
        let config = WorkspaceConfig(
            file: "/w/config.json", directory: "/w",
            sections: [SectionConfig(id: "data", title: "Data")],
            tabs: [TabConfig(id: "people", title: "People", section: "data", command: ["plug"]),
                   TabConfig(id: "orders", title: "Orders", section: "data", command: ["plug"])])
        ws = Workspace(config: config, storedLayout: nil, storedViews: [:])
    }

    /// Opens both tabs, sends every notification and ends the second plugin with a stderr
    /// excerpt (its error names the plugin's words).
    mutating func startAll() {
        feed(.viewport(rows: 10))
        run("tab select orders")
        run("columns")
        feed(.plugin(tab: "orders", .stderr(x + "stderr")))
        feed(.plugin(tab: "orders", .exited("exited with status 3")))
        run("tab select people")
        run("columns")
        let progress: JSONValue = ["done": 1, "total": 2, "message": .string(x + "progress")]
        let notifications: [(String, JSONValue)] = [
            (Method.badge, ["value": .string(x)]), (Method.status, ["text": .string(x + "status")]), (Method.progress, progress),
            (Method.log, ["level": .string(x), "message": .string(x + "log")]),
        ]
        for (method, params) in notifications {
            feed(.plugin(tab: "people", .message(.notification(method: method, params: params))))
        }
        feed(.plugin(tab: "people", .stderr(x + "stderr")))
        feed(.plugin(tab: "people", .message(.failure(id: nil, error: RPCError(code: -32603, message: x + "orphan error")))))
        feed(.refresh)  // loads the visible rows, as full screen does
    }

    mutating func run(_ line: String) { feed(.command(line)) }

    mutating func feed(_ event: Event) {
        var queue = [event]
        while !queue.isEmpty {
            for effect in ws.update(queue.removeFirst(), now: 0) {
                switch effect {
                case .send(let tab, .request(let id, let method, let params)):
                    if let reply = answer(id, method, params) { queue.append(.plugin(tab: tab, .message(reply))) }
                case .commandDone(let o): outputs.append(o)
                case .commandFailed(let m): failures.append(m)
                case .showLog: outputs.append(CommandOutput(text: "", json: .null))
                case .killPlugin(let tab), .stopPlugin(let tab): queue.append(.plugin(tab: tab, .exited("was killed by signal 9")))
                default: break
                }
            }
        }
    }

    var columns: [ColumnSpec] {
        [ColumnSpec(id: "n", title: x + "Name"), ColumnSpec(id: x + "kind", title: x + "Kind", type: .enumeration([x + "e", "plain"])),
         ColumnSpec(id: "obj", title: x), ColumnSpec(id: "num", title: "Num", type: .integer)]
    }

    func answer(_ id: RequestID, _ method: String, _ params: JSONValue) -> Message? {
        switch method {
        case Method.initialize:
            return .response(id: id, result: InitializeResult(name: x + "name", version: x + "1.0", capabilities:
                PluginCapabilities(sort: true, sections: true, children: true, actions: true)).json)
        case Method.open, Method.children:
            let child = method == Method.children
            return .response(id: id, result: TableDescription(
                table: x + (child ? "child" : "root"), title: child ? x + "Crumb" : x + "Title", columns: columns, total: 3,
                sections: [SectionSpec(id: x + "s", title: "S" + x + "Section", footer: x + "footer", count: 3)],
                actions: [ActionSpec(id: "go", title: x + "Go"), ActionSpec(id: "fail", title: x + "Fail"),
                          ActionSpec(id: x + "act", title: x + "Act")]).json)
        case Method.rows:
            let r = try! RowsRequest(params)
            let rows = (r.offset..<min(3, r.offset + r.limit)).map { i in
                Row(id: x + "r\(i)", cells: [.string(x + "cell\(i)"), .string(x + "e"), .object([x: .array([.string(x)])]), .int(Int64(i))],
                    section: x + "s", detail: x + "detail", hasChildren: true)
            }
            return .response(id: id, result: RowsResult(generation: r.generation, offset: r.offset, rows: rows, total: 3).json)
        case Method.action:
            if params["action"] == "fail" {
                return .failure(id: id, error: RPCError(code: -32003, message: x + "action failed", data: .string(x)))
            }
            return .response(id: id, result: ["message": .string(x + "done"), "invalidate": true])
        default:
            return nil
        }
    }

    func screenText(_ width: Int, ui: UIState = UIState()) -> String {
        TestBackend.text(WorkspaceRenderer.render(workspace: ws, size: (width, 24), ui: ui))
    }

    /// Renders the workspace at `width` × 24 and checks the cells and the bytes sent to the
    /// terminal (with the writer's own CSI sequences taken out) for unsafe characters.
    func checkScreen(_ width: Int, ui: UIState, _ line: String) {
        let frame = WorkspaceRenderer.render(workspace: ws, size: (width, 24), ui: ui)
        for (y, row) in TestBackend.lines(frame).enumerated() {
            #expect(unsafe(row).isEmpty, "\(line) at \(width) columns, row \(y): \(String(reflecting: row))")
        }
        let bytes = ANSIWriter(colors: true).bytes(for: Diff.full(frame))
        let shown = String(decoding: bytes, as: UTF8.self)
            .replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "")
        #expect(unsafe(shown).isEmpty, "\(line) at \(width) columns: terminal bytes \(String(reflecting: shown))")
    }
}
