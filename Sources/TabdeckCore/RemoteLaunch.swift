/// Where a tab's plugin runs when it is not this machine (`"remote"` in config.json): an ssh
/// destination, and optionally the folder on that host the plugin runs in.
public struct RemoteConfig: Hashable, Sendable {
    /// `user@host`, a host, or a `Host` alias of the user's `~/.ssh/config`.
    public var destination: String
    /// The plugin's working folder on the remote host; nil: the login folder.
    public var directory: String?

    public init(destination: String, directory: String? = nil) {
        self.destination = destination
        self.directory = directory
    }
}

/// How a remote tab's plugin is started: the system ssh client, one shared connection per
/// destination (OpenSSH connection multiplexing), the plugin's argv and environment on the
/// remote side as one POSIX shell command line.
///
/// Pure: the runtime gives it the ssh argv of config.json (`"ssh"`, default `["ssh"]`) and the
/// control socket path, and spawns what it returns like any plugin command.
public enum RemoteLaunch {
    /// How long the shared connection outlives its last session, in seconds. The host ends it
    /// itself on quit (``exitArgv(ssh:destination:controlPath:)``).
    public static let persistSeconds = 60

    /// Options that make ssh fit for a plugin pipe: no terminal, never a prompt on the host's
    /// screen (keys or an agent authenticate), a shared master per destination, and a dead
    /// link noticed within 45 s.
    static func options(controlPath: String) -> [String] {
        ["-T",
         "-o", "BatchMode=yes",
         "-o", "ControlMaster=auto",
         "-o", "ControlPath=\(controlPath)",
         "-o", "ControlPersist=\(persistSeconds)",
         "-o", "ServerAliveInterval=15",
         "-o", "ServerAliveCountMax=3"]
    }

    /// The local argv that runs `command` on `remote` with `environment` set there.
    public static func argv(ssh: [String], remote: RemoteConfig, controlPath: String,
                            command: [String], environment: [String: String]) -> [String] {
        ssh + options(controlPath: controlPath) + ["--", remote.destination,
                                                    remoteCommandLine(command: command, environment: environment, directory: remote.directory)]
    }

    /// The argv that ends the shared connection to `destination` (`ssh -O exit`).
    public static func exitArgv(ssh: [String], destination: String, controlPath: String) -> [String] {
        ssh + ["-o", "ControlPath=\(controlPath)", "-O", "exit", "--", destination]
    }

    /// The command line the remote shell runs: `cd DIR && exec env K=V ... ARGV`, every word
    /// single-quoted. Variables are sorted by name so the line is the same on every start.
    public static func remoteCommandLine(command: [String], environment: [String: String], directory: String?) -> String {
        var words = ["exec", "env"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { words.append(shellQuoted("\(key)=\(value)")) }
        words += command.map(shellQuoted)
        let run = words.joined(separator: " ")
        guard let directory, !directory.isEmpty else { return run }
        return "cd \(shellQuoted(directory)) && \(run)"
    }

    /// `word` as one POSIX shell word: in single quotes, a quote written `'\''`.
    public static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingScalar("'", with: "'\\''") + "'"
    }

    /// The control socket path for the state folder `stateDirectory`: `<state>/ssh/%C` when it
    /// fits a Unix socket path (ssh adds a 17-character suffix while it binds), else a folder
    /// of this user's under /tmp.
    public static func controlPath(stateDirectory: String, userID: UInt32) -> String {
        let folder = controlFolder(stateDirectory: stateDirectory, userID: userID)
        return folder + "/%C"
    }

    /// The folder of ``controlPath(stateDirectory:userID:)``.
    public static func controlFolder(stateDirectory: String, userID: UInt32) -> String {
        let preferred = stateDirectory + "/ssh"
        // sun_path holds 108 bytes: folder + "/" + 40 hex digits (%C) + ssh's ".XXXXXXXXXXXXXXXX" + NUL.
        if preferred.utf8.count + 1 + 40 + 17 + 1 <= 108 { return preferred }
        return "/tmp/tabdeck-ssh-\(userID)"
    }
}
