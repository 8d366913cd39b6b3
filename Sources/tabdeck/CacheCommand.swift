import ArgumentParser
import Foundation
import TabdeckApp
import TabdeckSupervisor

/// `tabdeck cache …`: the plugins' caches in the state folder (`<state>/cache`).
struct CacheTools: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "The caches plugins keep in the state folder (e.g. the csv plugin's sort indexes).",
        subcommands: [ClearCache.self])
}

/// `tabdeck cache clear [--state-dir DIR]`: deletes `<state>/cache` and everything in it.
struct ClearCache: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Delete every cache plugins keep in the state folder (they are rebuilt when needed).")

    @Option(name: .customLong("state-dir"), help: "The state folder (default: $TABDECK_STATE_DIR, $XDG_STATE_HOME/tabdeck, ~/.local/state/tabdeck).")
    var stateDir: String?

    func run() throws {
        let state = Locations.stateDirectory(option: stateDir, environment: ProcessInfo.processInfo.environment,
                                             currentDirectory: FileManager.default.currentDirectoryPath)
        let folder = Locations.cacheDirectory(stateDirectory: state)
        let fm = FileManager.default
        guard fm.fileExists(atPath: folder) else { print("tabdeck: no cache in \(state)"); return }
        let bytes = Self.size(of: folder)
        do { try fm.removeItem(atPath: folder) } catch {
            Descriptors.writeAll(STDERR_FILENO, "tabdeck: cannot delete \(folder): \(error.localizedDescription)\n")
            throw ExitCode(1)
        }
        print("tabdeck: deleted \(folder) (\(bytes / 1024) KiB)")
    }

    /// Bytes of the regular files under `folder`.
    static func size(of folder: String) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        var total = 0
        while let name = walker.nextObject() as? String {
            total += ((walker.fileAttributes?[.size]) as? NSNumber)?.intValue ?? 0
        }
        return total
    }
}
