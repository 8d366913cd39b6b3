import Foundation
import TabdeckCore
import TabdeckProtocol
import TabdeckSupervisor

extension Runtime {
    /// The argv and local environment that start `config`'s plugin: as configured, or for a
    /// remote tab the ssh client over the destination's shared connection, with the plugin's
    /// environment set on the remote side (ssh forwards none of it).
    func launchCommand(_ config: TabConfig, environment: [String: String]) -> (argv: [String], environment: [String: String]) {
        guard let remote = config.remote else { return (config.command, environment) }
        var remoteEnvironment = config.env
        remoteEnvironment["TABDECK_PROTOCOL"] = environment["TABDECK_PROTOCOL"]
        let folder = RemoteLaunch.controlFolder(stateDirectory: stateDirectory, userID: getuid())
        // ssh refuses a control socket in a folder others can write to; ours is 0700.
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        remoteDestinations.insert(remote.destination)
        let argv = RemoteLaunch.argv(ssh: workspace.config.ssh, remote: remote,
                                     controlPath: RemoteLaunch.controlPath(stateDirectory: stateDirectory, userID: getuid()),
                                     command: config.command, environment: remoteEnvironment)
        return (argv, ["TABDECK_PROTOCOL": environment["TABDECK_PROTOCOL"] ?? "1"])
    }

    /// Ends the shared ssh connections this host opened (`ssh -O exit`), once its plugins are
    /// stopped: nothing of Tabdeck's stays behind on this machine after quit.
    func closeRemoteConnections() {
        let controlPath = RemoteLaunch.controlPath(stateDirectory: stateDirectory, userID: getuid())
        for destination in remoteDestinations.sorted() {
            runShortCommand(RemoteLaunch.exitArgv(ssh: workspace.config.ssh, destination: destination, controlPath: controlPath),
                            workingDirectory: workspace.config.directory)
        }
        remoteDestinations.removeAll()
    }
}
