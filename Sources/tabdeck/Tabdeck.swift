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
            With a terminal on stdin (and no --line) Tabdeck reads commands at a readline prompt;
            otherwise it reads one command per line from stdin. See docs/COMMANDS.md.
            """,
        version: "0.1.0")

    @Option(name: .long, help: "The workspace config file (default: $TABDECK_CONFIG, ./config.json, $XDG_CONFIG_HOME/tabdeck/config.json).")
    var config: String?

    @Option(name: .customLong("state-dir"), help: "Where state is kept (default: $TABDECK_STATE_DIR, $XDG_STATE_HOME/tabdeck, ~/.local/state/tabdeck).")
    var stateDir: String?

    @Flag(name: .long, help: "Line mode: read one command per line from stdin.")
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
        if line || isatty(STDIN_FILENO) == 0 {
            status = LineMode.run(runtime) { Swift.readLine(strippingNewline: true) }
        } else {
            let editor = LineEditor(historyFile: state + "/history") { runtime.workspace.completions(for: $0) }
            status = LineMode.run(runtime) { editor.readLine(prompt: "tabdeck> ") }
        }
        throw ExitCode(status)
    }
}
