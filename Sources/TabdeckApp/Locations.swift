import Foundation

/// Where the config file and the state folder are, and how they were found.
public enum Locations {
    /// The config file: `--config PATH`, then `$TABDECK_CONFIG`, then `./config.json`,
    /// then `$XDG_CONFIG_HOME/tabdeck/config.json` (default `~/.config`).
    public static func configFile(option: String?, environment: [String: String], currentDirectory: String) throws(AppError) -> String {
        if let option { return absolute(option, currentDirectory) }
        if let env = environment["TABDECK_CONFIG"], !env.isEmpty { return absolute(env, currentDirectory) }
        let local = absolute("config.json", currentDirectory)
        if FileManager.default.fileExists(atPath: local) { return local }
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (home(environment) + "/.config")
        let user = xdg + "/tabdeck/config.json"
        if FileManager.default.fileExists(atPath: user) { return user }
        throw AppError.noConfig(searched: [local, user])
    }

    /// The state folder: `--state-dir DIR`, then `$TABDECK_STATE_DIR`, then `$XDG_STATE_HOME/tabdeck`,
    /// then `~/.local/state/tabdeck`.
    public static func stateDirectory(option: String?, environment: [String: String], currentDirectory: String) -> String {
        if let option { return absolute(option, currentDirectory) }
        if let env = environment["TABDECK_STATE_DIR"], !env.isEmpty { return absolute(env, currentDirectory) }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return absolute(xdg, currentDirectory) + "/tabdeck" }
        return home(environment) + "/.local/state/tabdeck"
    }

    /// The folder plugins may keep caches in (`$TABDECK_CACHE_DIR` in their environment):
    /// `<state>/cache`. Anything in it can be deleted at any time (`tabdeck cache clear`).
    public static func cacheDirectory(stateDirectory: String) -> String { stateDirectory + "/cache" }

    /// The folder holding Tabdeck's `Plugins/` for the executable in `executableDirectory`: the
    /// nearest of it and the folders above it (a build: the repository, three levels above
    /// `.build/<triple>/debug`; an install: `PREFIX/lib/tabdeck`, above its `bin`) that has
    /// `Plugins/csv/tabdeck-csv`. Never the current folder: `tabdeck FILE` works from anywhere.
    public static func pluginRoot(executableDirectory: String?) -> String? {
        guard let start = executableDirectory else { return nil }
        var folder = URL(fileURLWithPath: start).standardizedFileURL
        for _ in 0..<5 {
            if FileManager.default.fileExists(atPath: folder.path + "/Plugins/csv/tabdeck-csv") { return folder.path }
            let up = folder.deletingLastPathComponent()
            if up.path == folder.path { break }
            folder = up
        }
        return nil
    }

    /// A tab's name in the state folder's file names (`logs/NAME.log`): the id itself, unless it
    /// could leave the folder or make one (an opened source's id is a path: `/`), in which case
    /// its unsafe characters become `_` and a hash of the id keeps it apart from others.
    public static func fileName(tab: String) -> String {
        guard tab.contains("/") || tab.hasPrefix(".") || tab.isEmpty else { return tab }
        let safe = String(tab.unicodeScalars.map { s -> Character in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == "_" || s == ".") ? Character(s) : "_"
        }.suffix(80)).replacingOccurrences(of: ".", with: "_", options: .anchored)
        var hash: UInt64 = 0xcbf29ce484222325  // FNV-1a
        for b in tab.utf8 { hash = (hash ^ UInt64(b)) &* 0x100000001b3 }
        return safe + "-" + String(hash, radix: 16)
    }

    static func home(_ environment: [String: String]) -> String {
        environment["HOME"] ?? NSHomeDirectory()
    }

    static func absolute(_ path: String, _ base: String) -> String {
        let full = path.hasPrefix("/") ? path : (base.hasSuffix("/") ? base + path : base + "/" + path)
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }
}

/// Errors of the app layer, each naming the place it concerns.
public enum AppError: Error, CustomStringConvertible {
    case noConfig(searched: [String])
    case unreadableConfig(path: String, reason: String)
    case config(String)
    case store(String)

    public var description: String {
        switch self {
        case .noConfig(let searched):
            "no config file found (looked for \(searched.joined(separator: " and "))); pass --config PATH or set TABDECK_CONFIG"
        case .unreadableConfig(let path, let reason): "\(path): cannot read: \(reason)"
        case .config(let message): message
        case .store(let message): message
        }
    }
}
