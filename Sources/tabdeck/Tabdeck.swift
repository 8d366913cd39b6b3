import ArgumentParser
import Foundation
import TabdeckApp
import TabdeckSupervisor
import TabdeckConformance
import TabdeckProtocol
import TabdeckTerminal
import TabdeckTerminalIO
import TabdeckTime

/// The `tabdeck` command: the workspace (the default subcommand) and tools for plugin authors.
@main
struct Tabdeck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabdeck",
        abstract: "A terminal workspace for tables whose tabs are plugins.",
        usage: """
            tabdeck [OPTIONS] [SOURCE...]
              tabdeck plugin check [<options>] [--] <command> ...
            """,
        discussion: WorkspaceHelp.optionList + """

            Each SOURCE (a file, a folder or a postgresql:// URL) opens as a tab, recognised by its \
            content; with a config file too, they come first, in an "Opened" section. Without -e or \
            --commands: with a terminal, the full-screen workspace (press ? for keys, : for the command \
            line); with --line, a readline prompt; with stdin not a terminal, one command per line. \
            See docs/COMMANDS.md. `tabdeck plugin check` tells plugin authors whether their plugin \
            speaks the protocol correctly.
            """,
        version: "0.1.0",
        subcommands: [RunWorkspace.self, PluginTools.self, CacheTools.self],
        defaultSubcommand: RunWorkspace.self)
}

/// The workspace's options, described once: `tabdeck --help` lists them first (the options people
/// look for), and `tabdeck run --help` shows the same text.
enum WorkspaceHelp {
    static let sources = "Files, folders or postgresql:// URLs to open as tabs (no config needed)."
    static let execute = "Run this command line, then exit (repeatable; after the sources opened; no prompt)."
    static let commands = "Run the command lines of this file, then exit (before any -e)."
    static let config = "The workspace config file (default: $TABDECK_CONFIG, ./config.json, $XDG_CONFIG_HOME/tabdeck/config.json)."
    static let stateDir = "Where state is kept (default: $TABDECK_STATE_DIR, $XDG_STATE_HOME/tabdeck, ~/.local/state/tabdeck)."
    static let line = "Line mode: read commands one per line (at a readline prompt on a terminal)."
    static let output = "Output format of command results: text or json."
    static let trace = "Write every line exchanged with plugins to this file."

    /// The options as `tabdeck --help` lists them, before everything else.
    static let optionList = """
        tabdeck [OPTIONS] [SOURCE...]   (details: tabdeck run --help)
          SOURCE                 a file, folder or postgresql:// URL: a tab
          -e <command>           run a command line, then exit (repeatable)
          --commands <file>      run the command lines of a file, then exit
          --config <file>        the workspace file ($TABDECK_CONFIG, ./config.json)
          --state-dir <dir>      where state is kept ($TABDECK_STATE_DIR, ...)
          --line                 line mode: one command per line
          --output <text|json>   the format of command results
          --trace <file>         write the protocol traffic to this file

        """
}

/// `tabdeck [run]`: the workspace.
struct RunWorkspace: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Open the workspace (the default).")

    @Option(name: .customShort("e"), help: ArgumentHelp(WorkspaceHelp.execute, valueName: "command"))
    var execute: [String] = []

    @Option(name: .customLong("commands"), help: ArgumentHelp(WorkspaceHelp.commands, valueName: "file"))
    var commandsFile: String?

    @Option(name: .long, help: ArgumentHelp(WorkspaceHelp.config, valueName: "file"))
    var config: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp(WorkspaceHelp.stateDir, valueName: "dir"))
    var stateDir: String?

    @Flag(name: .long, help: ArgumentHelp(WorkspaceHelp.line))
    var line = false

    @Option(name: .long, help: ArgumentHelp(WorkspaceHelp.output, valueName: "text|json"))
    var output: String = "text"

    @Option(name: .long, help: ArgumentHelp(WorkspaceHelp.trace, valueName: "file"))
    var trace: String?

    @Argument(help: ArgumentHelp(WorkspaceHelp.sources, valueName: "source"))
    var sources: [String] = []

    func validate() throws {
        guard OutputFormat(rawValue: output) != nil else {
            throw ValidationError("--output must be text or json, not \"\(output)\"")
        }
        if sources.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input (-) can be a source once")
        }
    }

    /// The command lines of `--commands FILE`, then of each `-e`; nil when there are none (no script).
    func script() throws -> [String]? {
        guard commandsFile != nil || !execute.isEmpty else { return nil }
        var lines: [String] = []
        if let commandsFile {
            do {
                let text = try String(contentsOfFile: commandsFile, encoding: .utf8)
                lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                    $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
                }
                if lines.last == "" { lines.removeLast() }
            } catch {
                Descriptors.writeAll(STDERR_FILENO, "tabdeck: --commands \(commandsFile): cannot read: \((error as NSError).localizedDescription)\n")
                throw ExitCode(2)
            }
        }
        return lines + execute
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        let runtime: Runtime
        let state = Locations.stateDirectory(option: stateDir, environment: env, currentDirectory: cwd)
        let script = try script()
        // What standard input is for (the mode rule, COMMANDS.md): a pipe's data moves to a
        // descriptor of its own and the terminal, if any, takes its place.
        let role = StandardInputRole.decide(isTerminal: isatty(STDIN_FILENO) != 0, dashSource: sources.contains("-"),
                                            lineMode: line, scripted: script != nil)
        var handover: StandardInputData.Handover?
        if role == .data {
            guard let taken = StandardInputData.handOver() else {
                Descriptors.writeAll(STDERR_FILENO, "tabdeck: cannot read standard input: \(String(cString: strerror(errno)))\n")
                throw ExitCode(2)
            }
            handover = taken
        }
        let mode = script != nil ? "a script (-e, --commands)" : role == .commands ? "line mode, commands from stdin"
            : role == .data && handover?.terminal == false ? "the first page of stdin" : line ? "line mode" : "full screen"
        do {
            let tracer = try trace.map { (path) throws(TraceError) in try ProtocolTracer(allTabsPath: path) }
            let configPath: String?
            do { configPath = try Locations.configFile(option: config, environment: env, currentDirectory: cwd) } catch {
                // Sources need no config: without one found, they are the workspace.
                guard let missing = error as Any as? AppError, case .noConfig = missing, !sources.isEmpty || handover != nil else { throw error }
                configPath = nil
            }
            let pluginRoot = Locations.pluginRoot(executableDirectory: Runtime.executableDirectory)
            var opened = OpenedSources.tabs(sources.filter { $0 != "-" }, currentDirectory: cwd, pluginRoot: pluginRoot)
            if handover != nil {
                // Where `-` was named, else first.
                opened.insert(OpenedSources.standardInput(pluginRoot: pluginRoot), at: sources.firstIndex(of: "-") ?? 0)
            }
            runtime = try Runtime(configPath: configPath, opened: opened, stateDirectory: state,
                                  output: OutputFormat(rawValue: output)!, tracer: tracer, mode: mode, clock: SystemClock())
            if let handover { runtime.dataDescriptors[OpenedSources.standardInputID] = handover.data }
        } catch {
            Descriptors.writeAll(STDERR_FILENO, "tabdeck: \(error)\n")
            throw ExitCode(2)
        }
        let status: Int32
        let editor = { LineEditor(historyFile: state + "/history") { runtime.workspace.completions(for: $0) } }
        if let script {
            runtime.reportUnopenedSources()
            var lines = script.makeIterator()
            status = LineMode.run(runtime, wholeTables: true) { lines.next() }
        } else if role == .commands {
            runtime.reportUnopenedSources()
            status = LineMode.run(runtime) { Swift.readLine(strippingNewline: true) }
        } else if handover?.terminal == false {
            // A pipe and no terminal at all (cron, CI): the first page, then exit.
            runtime.reportUnopenedSources()
            var lines = ["show"].makeIterator()
            status = LineMode.run(runtime, wholeTables: true) { lines.next() }
        } else if line {
            runtime.reportUnopenedSources()
            let prompt = editor()
            status = LineMode.run(runtime, prompt: true) { prompt.readLine(prompt: "tabdeck> ") }
        } else {
            status = FullScreen(runtime: runtime, editor: editor()).run()
        }
        throw ExitCode(status)
    }
}

/// `tabdeck plugin …`: tools for plugin authors.
struct PluginTools: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Tools for plugin authors.",
        subcommands: [CheckPlugin.self, NewPlugin.self])
}

/// `tabdeck plugin check [--] COMMAND [ARGS...]`: the conformance checker.
struct CheckPlugin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run a plugin through the protocol and report whether it conforms.",
        discussion: """
            Starts COMMAND as the host would and checks the handshake, the table description, \
            paging (start, middle, end, whole table), sorting by every sortable column in both \
            directions (and multi-key sorts), cancellation, error answers, malformed input and \
            a clean shutdown, with the time of each step. Prints one line per check (✓ passed, \
            ✗ failed, ! warning, - not run) and a summary line `N passed, N failed`. \
            Exit status: 0 when the plugin conforms (warnings allowed), 1 when it does not, \
            64 for a usage error. Put the options before COMMAND, or end them with `--`. \
            Details: docs/PROTOCOL.md, section 17.
            """)

    @Option(name: .long, help: ArgumentHelp("The args of `open`, as a JSON object (the tab's args).", valueName: "json"))
    var args: String = "{}"

    @Option(name: .long, help: ArgumentHelp("How long each request may take (the handshake keeps the host's 5 s).", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write the protocol trace of the check to this file.", valueName: "file"))
    var trace: String?

    @Option(name: .long, help: ArgumentHelp("Run only the checks whose names start with these, comma-separated (the handshake and open always run).", valueName: "checks"))
    var only: String?

    @Option(name: .long, help: ArgumentHelp("Do not run the checks whose names start with these, comma-separated.", valueName: "checks"))
    var skip: String?

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The plugin's command and its arguments.", valueName: "command"))
    var command: [String] = []

    var plugin: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

    func validate() throws {
        // Everything after the options is the plugin's, so ask for help before COMMAND.
        if command.first == "--help" || command.first == "-h" { throw CleanExit.helpRequest(self) }
        guard !plugin.isEmpty else { throw ValidationError("give the plugin's command: tabdeck plugin check [--] COMMAND [ARGS...]") }
        guard timeout > 0 && timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
        guard case .object = try parsedArgs() else { throw ValidationError("--args must be a JSON object") }
    }

    func parsedArgs() throws -> JSONValue {
        do { return try JSONParser.parse(args) } catch {
            throw ValidationError("--args is not valid JSON: \(error)")
        }
    }

    func run() throws {
        var options = CheckOptions(command: plugin, args: try parsedArgs(), timeout: .milliseconds(Int64(timeout * 1000)),
                                   workingDirectory: "", tracePath: trace, clock: SystemClock())
        options.hostKeys = KeyMap.standard.printableKeys
        func names(_ list: String?) -> [String] {
            (list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        options.only = names(only)
        options.skip = names(skip)
        let json = self.json
        if !json {
            emit("tabdeck plugin check: \(plugin.joined(separator: " "))")
        }
        let report: Report
        do {
            report = try PluginChecker(options: options).run { result in
                guard !json else { return }
                emit(Report.lines(for: result, nameWidth: 28).joined(separator: "\n"))
            }
        } catch {
            Descriptors.writeAll(STDERR_FILENO, "tabdeck: \(error)\n")
            throw ExitCode(2)
        }
        if json {
            emit(JSONWriter.string(report.json, terminalSafe: true))
        } else {
            if let plugin = report.plugin {
                let caps = plugin.capabilities.isEmpty ? "none" : plugin.capabilities.joined(separator: " ")
                emit("plugin: \(Sanitizer.clean(plugin.name)) \(Sanitizer.clean(plugin.version)), protocol \(plugin.protocolVersion), capabilities: \(caps)")
            }
            if report.skipped > 0 { emit(report.skippedLine) }
            emit(report.summaryLine)
        }
        throw ExitCode(report.conforms ? 0 : 1)
    }
}

/// Writes a line to stdout at once (the report is shown as the checks run). A closed stdout
/// (`| head`) is not an error worth a crash: SIGPIPE is ignored, so the write fails quietly.
/// The edge guard of docs/ARCHITECTURE.md ("Plugin text is sanitized"): every line is cleaned.
private func emit(_ line: String) {
    Descriptors.writeAll(STDOUT_FILENO, Sanitizer.cleanLines(line) + "\n")
}
