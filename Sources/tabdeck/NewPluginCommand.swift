import ArgumentParser
import Foundation
import TabdeckApp
import TabdeckSupervisor

/// `tabdeck plugin new NAME [--lang python|node|sh|swift] [--directory DIR]`: writes a starter
/// plugin in `DIR/NAME/` that passes `tabdeck plugin check`, with a `config.json` that opens it,
/// and prints the tab entry for the user's own config.
struct NewPlugin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Write a starter plugin that passes `tabdeck plugin check`.",
        discussion: """
            Writes NAME/ with a small table (typed columns, sorting and filtering) and a config.json \
            that opens it, then prints the tab entry to add to your own config. python and node copy \
            their one-file SDK beside the plugin (it runs anywhere, no install); sh is plain bash; \
            swift (inside a Tabdeck checkout only) is a target on TabdeckPluginKit. \
            See docs/WRITING-PLUGINS.md.
            """)

    @Argument(help: "The plugin's name: a lowercase letter, then lowercase letters, digits, - or _.")
    var name: String

    @Option(name: .long, help: ArgumentHelp("The plugin's language: python, node, sh or swift.", valueName: "lang"))
    var lang: String = "python"

    @Option(name: .long, help: ArgumentHelp("The folder to create NAME/ in (default: the current folder).", valueName: "dir"))
    var directory: String?

    func validate() throws {
        if let problem = StarterPlugin.nameProblem(name) { throw ValidationError(problem) }
        guard StarterPlugin.Language(rawValue: lang) != nil else {
            throw ValidationError("--lang must be one of \(StarterPlugin.Language.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(lang)\"")
        }
    }

    func run() throws {
        let language = StarterPlugin.Language(rawValue: lang)!
        let cwd = FileManager.default.currentDirectoryPath
        let parent = URL(fileURLWithPath: directory ?? cwd, relativeTo: URL(fileURLWithPath: cwd)).standardizedFileURL.path
        let folder = parent + "/" + name
        do throws(StarterPlugin.Failure) {
            let starter = try StarterPlugin(name: name, language: language, folder: folder,
                                            root: Locations.pluginRoot(executableDirectory: Runtime.executableDirectory))
            try starter.write()
            print(starter.summary())
        } catch {
            Descriptors.writeAll(STDERR_FILENO, "tabdeck plugin new: \(error.message)\n")
            throw ExitCode(1)
        }
    }
}

/// A starter plugin: its files for one language, written to a new folder.
struct StarterPlugin {
    enum Language: String, CaseIterable {
        case python, node, sh, swift
    }

    /// Why a starter cannot be written, naming the place.
    struct Failure: Error {
        var message: String
    }

    let name: String
    let language: Language
    /// The folder written (absolute; must not exist yet).
    let folder: String
    /// Tabdeck's folder holding `Plugins/` (the SDKs), nil when not found.
    let root: String?

    init(name: String, language: Language, folder: String, root: String?) throws(Failure) {
        self.name = name; self.language = language; self.folder = folder; self.root = root
        if FileManager.default.fileExists(atPath: folder) {
            throw Failure(message: "\(folder) already exists: choose another name or --directory, or remove it")
        }
    }

    /// Why `name` is not a plugin name, or nil when it is one.
    static func nameProblem(_ name: String) -> String? {
        let ok = name.utf8.count <= 40 && name.utf8.first.map { $0 >= 0x61 && $0 <= 0x7A } == true
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }
        return ok ? nil : "bad plugin name \"\(name)\": a lowercase letter, then lowercase letters, digits, - or _ (at most 40 characters)"
    }

    /// The plugin's command, as config.json's `command` runs it from `folder` (relative) or from
    /// anywhere (absolute).
    func command(absolute: Bool) -> [String] {
        let at = absolute ? folder + "/" : ""
        switch language {
        case .python: return ["python3", at + "plugin.py"]
        case .node: return ["node", at + "plugin.js"]
        case .sh: return ["bash", at + "plugin.sh"]
        case .swift: return [(root ?? ".") + "/.build/debug/" + name]  // built in the checkout
        }
    }

    /// The files to write: name → contents (and whether executable).
    func files() throws(Failure) -> [(String, String, Bool)] {
        var out: [(String, String, Bool)] = []
        switch language {
        case .python:
            out.append(("plugin.py", StarterTemplates.python(name), true))
            out.append(("tabdeck_plugin.py", try sdk("Plugins/sdk/python/tabdeck_plugin.py"), false))
        case .node:
            out.append(("plugin.js", StarterTemplates.node(name), true))
            out.append(("tabdeck.js", try sdk("Plugins/sdk/node/tabdeck.js"), false))
        case .sh:
            out.append(("plugin.sh", StarterShellTemplate.text(name), true))
        case .swift:
            out.append(("main.swift", StarterTemplates.swift(name), false))
        }
        out.append(("config.json", config(), false))
        return out
    }

    /// An SDK file, from Tabdeck's `Plugins/` (a checkout or an install).
    func sdk(_ path: String) throws(Failure) -> String {
        guard let root, let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else {
            throw Failure(message: "cannot find \(path) beside the tabdeck executable (\(Runtime.executableDirectory ?? "unknown folder")): reinstall Tabdeck")
        }
        return text
    }

    /// For swift: where the target goes in the Tabdeck package (a path under its root).
    func swiftTargetPath() throws(Failure) -> String {
        guard let root, FileManager.default.fileExists(atPath: root + "/Sources/TabdeckPluginKit") else {
            throw Failure(message: "--lang swift needs a Tabdeck checkout (TabdeckPluginKit), and this tabdeck is not built in one")
        }
        guard folder.hasPrefix(root + "/") else {
            throw Failure(message: "a Swift plugin is a target of the Tabdeck package: create it inside \(root) (for example --directory \(root)/Plugins)")
        }
        return String(folder.dropFirst(root.count + 1))
    }

    func config() -> String {
        let command = self.command(absolute: false).map { "\"\($0)\"" }.joined(separator: ", ")
        return "{\"tabs\": [{\"id\": \"\(name)\", \"title\": \"\(name)\", \"command\": [\(command)]}]}\n"
    }

    func write() throws(Failure) {
        if language == .swift { _ = try swiftTargetPath() }
        let files = try self.files()
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (file, text, executable) in files {
                let path = folder + "/" + file
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                if executable { try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
            }
        } catch {
            throw Failure(message: "cannot write \(folder): \(error.localizedDescription)")
        }
    }

    /// What to do next, and the tab entry that opens the plugin.
    func summary() -> String {
        let absolute = command(absolute: true).map { "\"\($0)\"" }.joined(separator: ", ")
        var lines = ["tabdeck plugin new: wrote \(folder)/ (\((try? files().map(\.0).joined(separator: ", ")) ?? ""))"]
        if language == .swift, let path = try? swiftTargetPath() {
            lines += ["Add this target to Package.swift, then build it (swift build --product \(name)):",
                      "  .executableTarget(name: \"\(name)\", dependencies: [\"TabdeckPluginKit\", \"TabdeckProtocol\"], path: \"\(path)\", exclude: [\"config.json\"]),"]
        }
        lines += ["Check it:  tabdeck plugin check -- \(command(absolute: true).joined(separator: " "))",
                  "Open it:   tabdeck --config \(folder)/config.json",
                  "The tab entry for your config.json (in \"tabs\"):",
                  "  {\"id\": \"\(name)\", \"title\": \"\(name)\", \"command\": [\(absolute)]}"]
        return lines.joined(separator: "\n")
    }
}
