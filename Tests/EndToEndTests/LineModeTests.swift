import Foundation
import Testing

/// `tabdeck --line` as a user runs it: the built binary, the repository's config.json, a state folder.
@Suite(.enabled(if: Bin.built, Comment(rawValue: Bin.missing)))
struct LineModeTests {
    let dir = TempDir()

    /// What `tabs`, `sort`, `columns`, `selection` and `show` say, from JSON output lines.
    struct Snapshot: CustomStringConvertible {
        var tabs: [TabEntry]
        var sort: String
        var columns: String
        var selection: String
        var show: String
        var offset: Int?
        var description: String { "tabs \(tabs)\nsort \(sort)\ncolumns \(columns)\nselection \(selection)\nshow \(show)" }
    }
    static let snapshotCommands = ["tabs", "sort", "columns", "selection", "show"]  // `show` does not move the view

    /// Reads the snapshot from the last five JSON lines of a run.
    func snapshot(_ run: Finished) -> Snapshot? {
        let docs = run.lines.filter { !$0.isEmpty }.suffix(5).map(parseJSON)
        guard docs.count == 5, docs.allSatisfy({ $0?["ok"] as? Bool == true }) else { return nil }
        func text(_ d: [String: Any]?) -> String {
            guard let r = d?["result"], let data = try? JSONSerialization.data(withJSONObject: r, options: [.sortedKeys, .fragmentsAllowed])
            else { return "?" }
            return String(decoding: data, as: UTF8.self)
        }
        return Snapshot(tabs: tabEntries(docs[0]), sort: text(docs[1]), columns: text(docs[2]), selection: text(docs[3]),
                        show: text(docs[4]), offset: (docs[4]?["result"] as? [String: Any])?["offset"] as? Int)
    }

    @Test func customizationIsRestoredExactlyByTheNextRun() async throws {
        let commands = [
            "tab move processes to 1",
            "tab hide hello-sh",
            "section move examples to 1",
            "tab move hello-py before sdk-demo",
            "tab select people",
            "sort age desc",
            "sort city",
            "column hide note",
            "column move name to 1",
            "column width city 12",
            "goto 50",
            "select 3 5 7",
        ]
        let first = try await lineMode(dir.state, commands + Self.snapshotCommands + ["quit"], output: "json")
        #expect(first.status == 0, "\(first)")
        #expect(first.err.isEmpty, "\(first.err)")
        let docs = first.lines.filter { !$0.isEmpty }.map(parseJSON)
        #expect(docs.count == commands.count + Self.snapshotCommands.count + 1, "one JSON document per command")
        #expect(((docs.first ?? nil)?["result"] as? [String: Any])?["section"] as? String == "data")
        let before = try #require(snapshot(Finished(status: 0, out: first.lines.dropLast(2).joined(separator: "\n"), err: "")))

        let expectedTabs = [
            TabEntry(id: "hello-py", section: "examples", position: 1, hidden: false, selected: false),
            TabEntry(id: "sdk-demo", section: "examples", position: 2, hidden: false, selected: false),
            TabEntry(id: "hello-sh", section: "examples", position: nil, hidden: true, selected: false),
            TabEntry(id: "words", section: "examples", position: 3, hidden: false, selected: false),
            TabEntry(id: "processes", section: "data", position: 4, hidden: false, selected: false),
            TabEntry(id: "people", section: "data", position: 5, hidden: false, selected: true),
            TabEntry(id: "sample-db", section: "data", position: 6, hidden: false, selected: false),
            TabEntry(id: "files", section: "system", position: 7, hidden: false, selected: false),
        ]
        #expect(before.tabs == expectedTabs)
        #expect(before.sort == #"[{"column":"city","direction":"asc"},{"column":"age","direction":"desc"}]"#)
        #expect(before.columns.contains(#""hidden":true,"id":"note""#), "\(before.columns)")
        #expect(before.columns.contains(#""id":"city","sortable":true,"title":"city","type":"text","width":12"#), "\(before.columns)")
        #expect(before.columns.hasPrefix(#"[{"hidden":false,"id":"name""#), "\(before.columns)")
        #expect(before.selection == #"{"all":false,"count":3,"ids":["3","5","7"]}"#)
        #expect(before.offset == 49)

        // A new process: everything as it was.
        let second = try await lineMode(dir.state, Self.snapshotCommands, output: "json")
        #expect(second.status == 0, "\(second)")
        let after = try #require(snapshot(second))
        #expect(after.tabs == before.tabs)
        #expect(after.sort == before.sort)
        #expect(after.columns == before.columns)
        #expect(after.selection == before.selection)
        #expect(after.show == before.show, "the same rows at the same position")

        // And the text forms agree with it.
        let text = try await lineMode(dir.state, ["tabs", "sort", "selection", "show 2"])
        #expect(text.status == 0)
        let lines = text.lines
        #expect(lines.first == "[Examples]")
        #expect(lines.contains { $0.hasPrefix("  1. Hello (Python) [hello-py]") }, "\(text.out)")
        #expect(lines.contains { $0.hasPrefix("  -. Hello (bash) [hello-sh] — hidden") }, "\(text.out)")
        #expect(lines.contains { $0.hasPrefix("* 5. ◫ People [people]") }, "\(text.out)")
        #expect(lines.contains("sort: city asc, age desc"))
        #expect(lines.contains("3 selected: 3 5 7"))
        #expect(lines.contains { $0.hasPrefix("rows 50–51 of 200") }, "\(text.out)")

        // `tab reset` goes back to config order (and that is saved too).
        let reset = try await lineMode(dir.state, ["tab reset"])
        #expect(reset.status == 0 && reset.out.contains("tabs reset"), "\(reset)")
        let afterReset = try await lineMode(dir.state, ["tabs"], output: "json")
        #expect(tabEntries(parseJSON(afterReset.lines[0])).map(\.id) == ["people", "sample-db", "processes", "files", "sdk-demo", "hello-py", "hello-sh", "words"])
    }

    @Test func kill9RightAfterACommandLosesNothing() async throws {
        let live = try LiveTabdeck(["--line", "--config", Bin.config, "--state-dir", dir.state])
        let steps: [(String, String)] = [
            ("tab move hello-sh to 1", "moved hello-sh to position 1"),
            ("tab select people", "selected people"),
            ("sort balance desc", "sort: balance desc"),
            ("column hide joined", "joined \"joined\" — date, hidden"),
            ("goto 120", "row 120 of 200"),
            ("select 42 7", "2 selected"),
        ]
        for (command, answer) in steps {
            live.send(command + "\n")
            #expect(await live.waitForOutput(answer), "no \"\(answer)\" after \(command): \(live.out)")
        }
        let plugins = children(of: live.process.processIdentifier)
        #expect(plugins.count == 2, "the processes (background) and people plugins run: \(plugins)")
        live.kill(SIGKILL)
        let killed = await live.finish()
        // Its plugins see the end of their input and go away by themselves.
        var gone = false
        for _ in 0..<250 where !gone {
            gone = !plugins.contains(where: isAlive)
            if !gone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone, "plugins of a killed host are left running: \(plugins.filter(isAlive))")
        #expect(killed.status == SIGKILL, "\(killed)")  // Foundation reports the signal number

        let next = try await lineMode(dir.state, ["tabs", "sort", "columns", "selection", "show 1"], output: "json")
        #expect(next.status == 0, "\(next)")
        let docs = next.lines.filter { !$0.isEmpty }.map(parseJSON)
        let tabs = tabEntries(docs.first ?? nil)
        #expect(tabs.first == TabEntry(id: "hello-sh", section: "data", position: 1, hidden: false, selected: false))
        #expect(tabs.first { $0.selected }?.id == "people")
        let sort = docs.count > 1 ? docs[1]?["result"] as? [[String: String]] : nil
        #expect(sort == [["column": "balance", "direction": "desc"]])
        let columns = docs.count > 2 ? docs[2]?["result"] as? [[String: Any]] : nil
        #expect(columns?.first { $0["id"] as? String == "joined" }?["hidden"] as? Bool == true)
        #expect(((docs.count > 3 ? docs[3] : nil)?["result"] as? [String: Any])?["ids"] as? [String] == ["7", "42"])
        #expect(((docs.count > 4 ? docs[4] : nil)?["result"] as? [String: Any])?["offset"] as? Int == 119)
    }

    @Test func jsonOutputIsOneDocumentPerCommand() async throws {
        let commands = ["tabs", "# a comment", "", "tab select people", "columns", "sort age", "show 2", "tab select nosuch",
                        "selection", "help sort", "plugin status"]
        let run = try await lineMode(dir.state, commands, output: "json")
        #expect(run.status == 1, "one command failed: \(run)")
        let lines = run.lines.filter { !$0.isEmpty }
        let real = commands.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(lines.count == real.count, "\(run.out)")
        for (line, command) in zip(lines, real) {
            let doc = parseJSON(line)
            #expect(doc != nil, "not JSON: \(line)")
            #expect(doc?["command"] as? String == command)
            #expect(doc?["ok"] as? Bool == (command != "tab select nosuch"), "\(line)")
        }
        let failed = lines.compactMap(parseJSON).first { $0["ok"] as? Bool == false }
        #expect((failed?["error"] as? String)?.contains("no tab \"nosuch\"") == true)
        #expect(run.err.contains("error: no tab \"nosuch\""), "\(run.err)")
        let show = lines.compactMap(parseJSON).first { $0["command"] as? String == "show 2" }?["result"] as? [String: Any]
        #expect((show?["rows"] as? [Any])?.count == 2)
        #expect(show?["total"] as? Int == 200)
    }

    /// `tabdeck --line ... | head -1`: once the reader is gone the session ends, quietly,
    /// instead of trapping on the write (EPIPE; SIGPIPE is ignored for the plugins' pipes).
    @Test func aReaderThatGoesAwayEndsTheSessionQuietly() throws {
        let commands = try dir.write("commands", String(repeating: "tabs\n", count: 3000))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", #""$0" --line --config "$1" --state-dir "$2" < "$3" 2> "$4" | head -c 1 > /dev/null; exit "${PIPESTATUS[0]}""#,
                             Bin.tabdeck, Bin.config, dir.state, commands, dir.file("err")]
        process.environment = childEnvironment([:])
        try process.run()
        process.waitUntilExit()
        let err = (try? String(contentsOfFile: dir.file("err"), encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 1, "\(err)")  // not 132 (SIGILL, a trap) nor 0
        #expect(!err.contains("Fatal error") && !err.contains("crashed"), "\(err)")
    }

    @Test func aFailingCommandMakesTheExitStatusNonZero() async throws {
        let ok = try await lineMode(dir.state, ["tabs", "tab select 3"])
        #expect(ok.status == 0 && ok.err.isEmpty, "\(ok)")
        #expect(ok.out.contains("selected processes"))
        let bad = try await lineMode(dir.state, ["tab select nosuch", "tabs"])
        #expect(bad.status == 1, "\(bad)")
        #expect(bad.err.hasPrefix("error: no tab \"nosuch\""), "\(bad.err)")
        #expect(bad.out.contains("[people]"), "later commands still run")
        let usage = try await lineMode(dir.state, ["goto zero"])
        #expect(usage.status == 1 && usage.err.contains("error: goto: expected a positive number"), "\(usage)")
    }

    @Test(arguments: [
        ("invalid JSON", "{\n  \"tabs\": [\n    {\"id\": \"a\", \"command\": [\"x\"]},\n  ]\n}\n", ":4:3: invalid JSON"),
        ("duplicate id", #"{"tabs":[{"id":"a","command":["x"]},{"id":"a","command":["y"]}]}"#, #": tabs[1].id: duplicate tab id "a""#),
        ("unknown key", #"{"tabs":[{"id":"a","command":["x"],"colour":"red"}]}"#, #": tabs[0].colour: unknown key "colour""#),
        ("missing command", #"{"tabs":[{"id":"a"},{"id":"b"}]}"#, ": tabs[0].command: missing"),
        ("unknown section", #"{"sections":[{"id":"s"}],"tabs":[{"id":"a","command":["x"],"section":"t"}]}"#,
         #": tabs[0].section: unknown section "t""#),
        ("wrong type", #"{"tabs":[{"id":"a","command":"x"}]}"#, ": tabs[0].command:"),
    ])
    func badConfigExitsWith2AndNamesFileAndPath(name: String, content: String, expected: String) async throws {
        let path = try dir.write("bad.json", content)
        let run = try await tabdeck(["--line", "--config", path, "--state-dir", dir.state], input: "tabs\n")
        #expect(run.status == 2, "\(name): \(run)")
        #expect(run.err.contains(path + expected), "\(name): \(run.err)")
        #expect(run.out.isEmpty)
    }

    @Test func aCorruptDatabaseIsMovedAsideAndTheUserIsTold() async throws {
        try FileManager.default.createDirectory(atPath: dir.state, withIntermediateDirectories: true)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        try garbage.write(to: URL(fileURLWithPath: dir.state + "/tabdeck.sqlite"))
        let run = try await lineMode(dir.state, ["tab hide hello-sh", "tabs"])
        #expect(run.status == 0, "\(run)")
        #expect(run.out.contains("hid hello-sh"))
        let moved = try #require(run.err.range(of: #"moved to (\S+) and a fresh one started"#, options: .regularExpression)
            .map { String(run.err[$0].dropFirst("moved to ".count).prefix { $0 != " " }) }, "\(run.err)")
        #expect(moved.hasPrefix(dir.state + "/tabdeck.sqlite"), "\(moved)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == garbage, "the old file is kept, unchanged")
        // The fresh database works and keeps what the run changed.
        let next = try await lineMode(dir.state, ["tabs"])
        #expect(next.status == 0 && next.err.isEmpty, "\(next)")
        #expect(next.out.contains("[hello-sh] — hidden"))
    }

    @Test func environmentVariablesNameTheConfigAndTheStateFolder() async throws {
        let cwd = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
        let env = ["TABDECK_CONFIG": Bin.config, "TABDECK_STATE_DIR": dir.state, "XDG_CONFIG_HOME": dir.file("xdg"),
                   "XDG_STATE_HOME": dir.file("xdg-state")]
        let run = try await tabdeck(["--line"], input: "tab hide hello-sh\ntabs\n", env: env, cwd: cwd)
        #expect(run.status == 0, "\(run)")
        #expect(run.out.contains("[people]"))
        #expect(FileManager.default.fileExists(atPath: dir.state + "/tabdeck.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("xdg-state")))
        // --state-dir wins over the variable.
        let other = dir.file("other-state")
        let run2 = try await tabdeck(["--line", "--state-dir", other], input: "tabs\n", env: env, cwd: cwd)
        #expect(run2.status == 0 && !run2.out.contains("hidden"), "\(run2)")
        #expect(FileManager.default.fileExists(atPath: other + "/tabdeck.sqlite"))
        // Without a config anywhere: a clear error, status 2.
        let none = try await tabdeck(["--line"], input: "tabs\n", env: ["XDG_CONFIG_HOME": dir.file("xdg"),
                                                                        "TABDECK_STATE_DIR": dir.state], cwd: cwd)
        #expect(none.status == 2, "\(none)")
        #expect(none.err.contains("no config file found") && none.err.contains("TABDECK_CONFIG"), "\(none.err)")
    }

    @Test func helpAndSuggestions() async throws {
        let run = try await lineMode(dir.state, ["help", "help sort", "sotr age", "tab mvoe people to 2", "sort age decs",
                                                 "tab select peopel"])
        #expect(run.status == 1)
        #expect(run.out.contains("tab move TAB to N | before TAB | after TAB | to section SECTION"), "\(run.out)")
        #expect(run.out.contains("export FILE [--format csv|json]"))
        #expect(run.out.contains("sort [COL [asc|desc] | clear]\n    show the sort order"), "\(run.out)")
        let errors = run.err.split(separator: "\n").map(String.init)
        #expect(errors == [
            #"error: unknown command "sotr" (did you mean "sort"?)"#,
            #"error: unknown tab command "mvoe" (did you mean "move"?)"#,
            #"error: sort direction must be asc or desc, not "decs" (did you mean "desc"?)"#,
            #"error: no tab "peopel" (did you mean "people"?)"#,
        ], "\(run.err)")
    }

    @Test(.enabled(if: Bin.tmux != nil, "tmux is not installed"))
    func interactivePromptInTmux() async throws {
        let tmux = try #require(Bin.tmux)
        let socket = dir.file("tmux.sock")  // a server of our own, its socket removed with the folder
        let session = "e2e"
        defer { _ = try? tool(tmux, ["-S", socket, "kill-server"]) }
        let command = "\(Bin.tabdeck) --line --config \(Bin.config) --state-dir \(dir.state)"
        let started = try tool(tmux, ["-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command])
        #expect(started.status == 0, "\(started.out)")
        func screen() -> String { (try? tool(tmux, ["-S", socket, "capture-pane", "-p", "-t", session]).out) ?? "" }
        func waitFor(_ text: String) async -> Bool {
            for _ in 0..<500 {
                if screen().contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
        #expect(await waitFor("tabdeck>"), "no prompt: \(screen())")
        try tool(tmux, ["-S", socket, "send-keys", "-t", session, "tabs", "Enter"])
        #expect(await waitFor("[hello-sh]"), "no tab list: \(screen())")
        let shown = screen()
        #expect(shown.contains("* 1. ◫ People [people]"), "\(shown)")
        #expect(shown.contains("[Examples]"))
        try tool(tmux, ["-S", socket, "send-keys", "-t", session, "quit", "Enter"])
        var ended = false
        for _ in 0..<500 {
            if (try tool(tmux, ["-S", socket, "has-session", "-t", session])).status != 0 { ended = true; break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(ended, "the session did not end after quit: \(screen())")
        #expect((try? String(contentsOfFile: dir.state + "/history", encoding: .utf8))?.contains("tabs") == true,
                "the prompt's history is kept in the state folder")
    }
}
