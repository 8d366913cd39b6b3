import Foundation
import Testing

/// `tabdeck [OPTIONS] SOURCE...` as people run it: files, folders and URLs on the command line,
/// no config, commands from `-e` and `--commands`, from a folder of their own.
@Suite(.enabled(if: Bin.built, Comment(rawValue: Bin.missing)))
struct OpenSourcesTests {
    let dir = TempDir()

    /// A folder with no config.json, and an empty XDG config home: no config is found.
    var env: [String: String] { ["XDG_CONFIG_HOME": dir.file("xdg"), "HOME": dir.path] }

    func people() throws -> String {
        try dir.write("people.csv", "id,name,age\n1,Ann,31\n2,Bob,45\n3,Cy,27\n4,Di,38\n")
    }

    /// Runs `tabdeck ARGS --state-dir STATE --output json` in `dir` with nothing on stdin.
    func run(_ args: [String], json: Bool = true) async throws -> Finished {
        try await tabdeck(args + ["--state-dir", dir.state] + (json ? ["--output", "json"] : []), input: "", env: env, cwd: dir.path)
    }

    /// The `result` of the JSON line of `command`.
    func result(_ run: Finished, _ command: String) -> [String: Any]? {
        run.lines.compactMap(parseJSON).last { $0["command"] as? String == command }?["result"] as? [String: Any]
    }

    func cells(_ show: [String: Any]?, _ column: String) -> [String] {
        ((show?["rows"] as? [[String: Any]]) ?? []).map { row in
            let cell = (row["cells"] as? [String: Any])?[column]
            return cell.map { "\($0)" } ?? "?"
        }
    }

    @Test func aCSVOpensWithNoConfigAndScriptsRunInOrder() async throws {
        _ = try people()
        let first = try await run(["people.csv", "-e", "sort age desc", "-e", "show 3"])
        #expect(first.status == 0, "\(first)")
        let show = result(first, "show 3")
        #expect(cells(show, "name") == ["Bob", "Di", "Ann"], "\(first)")
        #expect(show?["table"] as? String == "people.csv")

        let more = try await run(["./people.csv", "-e", "column hide id", "-e", "filter i", "-e", "select 4"])
        #expect(more.status == 0, "\(more)")

        // The same file again, named another way (absolute, through a link): its view comes back.
        try FileManager.default.createSymbolicLink(atPath: dir.file("alias.csv"), withDestinationPath: dir.file("people.csv"))
        let again = try await run([dir.file("alias.csv"), "-e", "sort", "-e", "filter", "-e", "selection", "-e", "show", "-e", "tabs"])
        #expect(again.status == 0, "\(again)")
        #expect(again.lines.first == #"{"command":"sort","ok":true,"result":[{"column":"age","direction":"desc"}]}"#, "\(again.out)")
        #expect(result(again, "filter")?["filter"] as? String == "i")
        #expect(result(again, "selection")?["ids"] as? [String] == ["4"])
        #expect(result(again, "show")?["columns"] as? [String] == ["name", "age"], "id stays hidden: \(again.out)")
        #expect(cells(result(again, "show"), "name") == ["Di"])
        let tabs = tabEntries(again.lines.compactMap(parseJSON).first { $0["command"] as? String == "tabs" })
        let canonical = URL(fileURLWithPath: dir.file("people.csv")).resolvingSymlinksInPath().path
        #expect(tabs.map(\.id) == [canonical], "\(again.out)")
        #expect(tabs.first?.selected == true && tabs.first?.section == nil)
    }

    @Test func commandsFromAFileRunBeforeEachDashE() async throws {
        _ = try people()
        let script = try dir.write("script.txt", "sort name desc\n# a comment\nshow 2\n")
        let run = try await run(["people.csv", "--commands", script, "-e", "show 1"])
        #expect(run.status == 0, "\(run)")
        #expect(cells(result(run, "show 2"), "name") == ["Di", "Cy"])
        #expect(cells(result(run, "show 1"), "name") == ["Di"])
        let text = try await self.run(["people.csv", "-e", "show 1", "-e", "nosuch"], json: false)
        #expect(text.status == 1, "a failed command fails the script: \(text)")
        #expect(text.out.contains("Di") && text.err.contains("unknown command"), "\(text)")
    }

    @Test func anSQLiteFileAndAFolderOpenByTheirContent() async throws {
        let db = dir.file("renamed.data")
        try FileManager.default.copyItem(atPath: Bin.root + "/Plugins/sqlite/sample/sample.sqlite", toPath: db)
        let folder = dir.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/a.txt", contents: Data("a".utf8))
        FileManager.default.createFile(atPath: folder + "/b.txt", contents: Data("bb".utf8))
        let run = try await run(["renamed.data", "folder", "-e", "show", "-e", "tab select folder", "-e", "show"])
        #expect(run.status == 0, "\(run)")
        let docs = run.lines.compactMap(parseJSON).filter { $0["command"] as? String == "show" }
        #expect(docs.count == 2, "\(run)")
        let catalog = docs.first?["result"] as? [String: Any]
        #expect((catalog?["columns"] as? [String])?.contains("kind") == true, "the sqlite catalog: \(run.out)")
        #expect(!cells(catalog, "name").isEmpty)
        let files = docs.last?["result"] as? [String: Any]
        #expect(cells(files, "name") == ["a.txt", "b.txt"], "\(run.out)")
    }

    @Test func aFileThatIsNotATableSaysSoAndTheOthersGoOn() async throws {
        _ = try people()
        var garbage: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]
        garbage += (0..<2000).map { UInt8($0 % 251) }
        FileManager.default.createFile(atPath: dir.file("data.bin"), contents: Data(garbage))
        let run = try await run(["data.bin", "nope.csv", "people.csv", "-e", "show", "-e", "tab select people.csv", "-e", "show 1"])
        #expect(run.status == 1, "\(run)")
        #expect(run.err.contains("data.bin: not a table (binary, 2.0 KB, starts 7F 45 4C 46)"), "\(run.err)")
        #expect(run.err.contains("nope.csv: no such file or folder"), "\(run.err)")
        #expect(!run.out.contains("\u{7F}ELF") && !run.err.contains("ELF"), "never the bytes themselves")
        #expect(cells(result(run, "show 1"), "name") == ["Ann"], "\(run)")
    }

    @Test func withAConfigTheSourcesComeFirstInTheirSection() async throws {
        _ = try people()
        let run = try await run(["--config", Bin.config, "people.csv", "-e", "tabs"])
        #expect(run.status == 0, "\(run)")
        let tabs = tabEntries(run.lines.compactMap(parseJSON).first)
        #expect(tabs.first?.section == "opened" && tabs.first?.selected == true, "\(run.out)")
        #expect(tabs.dropFirst().first?.id == "people", "then the config's own tabs: \(run.out)")
        // The saved layout never learns of it: without the source, the config's first tab leads.
        let next = try await self.run(["--config", Bin.config, "-e", "tab move files to 1", "-e", "tabs"])
        #expect(!next.out.contains("people.csv\""), "\(next.out)")
    }

    @Test func aURLsPasswordGoesNowhere() async throws {
        let run = try await run(["postgresql://ann:Sekr1tPw@127.0.0.1:1/shop", "-e", "tabs", "-e", "show"])
        #expect(run.status == 1, "nothing listens on port 1: \(run)")
        let tabs = tabEntries(run.lines.compactMap(parseJSON).first)
        #expect(tabs.map(\.id) == ["postgresql://ann@127.0.0.1:1/shop"], "\(run.out)")
        #expect(run.out.contains("ann@127.0.0.1/shop"), "the title: \(run.out)")
        #expect(!run.out.contains("Sekr1tPw") && !run.err.contains("Sekr1tPw"), "\(run)")
        // Nor in the state folder: the database, logs, anything written.
        let walker = FileManager.default.enumerator(atPath: dir.state)
        while let name = walker?.nextObject() as? String {
            let data = FileManager.default.contents(atPath: dir.state + "/" + name) ?? Data()
            #expect(data.range(of: Data("Sekr1tPw".utf8)) == nil, "\(name) holds the password")
        }
    }

    /// `-` is standard input, read by the pipe plugin; the script runs once the stream ended.
    @Test func standardInputIsASourceOnce() async throws {
        let piped = try await tabdeck(["-", "--state-dir", dir.state, "--output", "json", "-e", "sort qty desc", "-e", "show"],
                                      input: "name,qty\nbolt,3\nnut,12\n", env: env, cwd: dir.path)
        #expect(piped.status == 0, "\(piped)")
        #expect(cells(result(piped, "show"), "name") == ["nut", "bolt"], "\(piped.out)")
        let twice = try await run(["-", "-", "-e", "tabs"])
        #expect(twice.status == 64, "\(twice)")
        #expect(twice.err.contains("standard input (-) can be a source once"), "\(twice.err)")
    }
}
