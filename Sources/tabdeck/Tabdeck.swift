import ArgumentParser
import Foundation
import TabdeckApp
import TabdeckTerminal

/// The `tabdeck` command.
@main
struct Tabdeck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabdeck",
        abstract: "A terminal workspace for tables whose tabs are plugins.",
        discussion: """
            With a terminal, Tabdeck opens the full-screen workspace (press ? for keys, : for the
            command line); with --line it reads commands at a readline prompt, and with stdin not a
            terminal, one command per line. See docs/COMMANDS.md.
            """,
        version: "0.1.0")

    @Option(name: .long, help: "The workspace config file (default: $TABDECK_CONFIG, ./config.json, $XDG_CONFIG_HOME/tabdeck/config.json).")
    var config: String?

    @Option(name: .customLong("state-dir"), help: "Where state is kept (default: $TABDECK_STATE_DIR, $XDG_STATE_HOME/tabdeck, ~/.local/state/tabdeck).")
    var stateDir: String?

    @Flag(name: .long, help: "Line mode: read commands one per line (at a readline prompt on a terminal).")
    var line = false

    @Option(name: .long, help: "Output format of command results: text or json.")
    var output: String = "text"

    func validate() throws {
        guard OutputFormat(rawValue: output) != nil else {
            throw ValidationError("--output must be text or json, not \"\(output)\"")
        }
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        let runtime: Runtime
        let state = Locations.stateDirectory(option: stateDir, environment: env, currentDirectory: cwd)
        do {
            let configPath = try Locations.configFile(option: config, environment: env, currentDirectory: cwd)
            runtime = try Runtime(configPath: configPath, stateDirectory: state, output: OutputFormat(rawValue: output)!)
        } catch {
            FileHandle.standardError.write(Data("tabdeck: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let status: Int32
        let editor = { LineEditor(historyFile: state + "/history") { runtime.workspace.completions(for: $0) } }
        if isatty(STDIN_FILENO) == 0 {
            status = LineMode.run(runtime) { Swift.readLine(strippingNewline: true) }
        } else if line {
            let prompt = editor()
            status = LineMode.run(runtime) { prompt.readLine(prompt: "tabdeck> ") }
        } else {
            status = FullScreen(runtime: runtime, editor: editor()).run()
        }
        throw ExitCode(status)
    }
}
