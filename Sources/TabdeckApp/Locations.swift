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
