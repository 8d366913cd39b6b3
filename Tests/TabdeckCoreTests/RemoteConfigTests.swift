import Testing
import TabdeckCore
import TabdeckProtocol

/// `"remote"` and `"ssh"` in config.json, and the ssh command line a remote tab runs.
@Suite struct RemoteConfigTests {
    func parse(_ text: String) throws(ConfigError) -> WorkspaceConfig {
        try WorkspaceConfig.parse(Array(text.utf8), file: "/etc/w/config.json", directory: "/etc/w")
    }

    func error(_ text: String) -> String {
        do { _ = try parse(text); return "no error" } catch { return error.description }
    }

    @Test func aRemoteTabKeepsItsCommandAsWrittenAndTheSSHProgramResolves() throws {
        let c = try parse("""
            {"ssh": ["./bin/ssh", "-F", "ssh_config"],
             "tabs": [{"id": "a", "command": ["./plug", "x"], "remote": "ann@db1"},
                      {"id": "b", "command": ["bin/p"], "remote": {"host": "db2", "directory": "/srv/t"}},
                      {"id": "c", "command": ["./local"]}]}
            """)
        #expect(c.ssh == ["/etc/w/bin/ssh", "-F", "ssh_config"])
        #expect(c.tabs[0].command == ["./plug", "x"])  // a program on the remote host
        #expect(c.tabs[0].remote == RemoteConfig(destination: "ann@db1"))
        #expect(c.tabs[1].remote == RemoteConfig(destination: "db2", directory: "/srv/t"))
        #expect(c.tabs[2].command == ["/etc/w/local"] && c.tabs[2].remote == nil)
        #expect(try parse(#"{"tabs": [{"id": "a", "command": ["x"]}]}"#).ssh == ["ssh"])
    }

    @Test func badRemotesAreNamedByTheirPath() {
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":"-oProxyCommand=evil"}]}"#)
                == #"/etc/w/config.json: tabs[0].remote: an ssh destination may not start with "-" (expected user@host or a Host alias)"#)
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":"ann@db1 rm"}]}"#)
                .contains("tabs[0].remote: an ssh destination may not hold spaces or control characters (found U+20)"))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":""}]}"#).contains("tabs[0].remote: must not be empty"))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":3}]}"#)
                .contains(#"tabs[0].remote: expected an ssh destination ("user@host") or an object"#))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":{"hots":"h"}}]}"#).contains(#"tabs[0].remote.hots: unknown key "hots""#))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":{"directory":"/d"}}]}"#).contains("tabs[0].remote.host: missing"))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"remote":{"host":"h","directory":""}}]}"#)
                .contains("tabs[0].remote.directory: must not be empty"))
        #expect(error(#"{"ssh":[],"tabs":[{"id":"a","command":["x"]}]}"#).contains("ssh: must be a non-empty array of non-empty strings"))
        #expect(error(#"{"ssh":"ssh","tabs":[{"id":"a","command":["x"]}]}"#).contains("ssh: expected an array, got a string"))
    }

    @Test func theRemoteCommandLineQuotesEveryWordAndSetsTheEnvironment() {
        let line = RemoteLaunch.remoteCommandLine(command: ["/opt/my plug", "it's", "$HOME", "a\\b"],
                                                  environment: ["TABDECK_PROTOCOL": "1", "A": "x y"], directory: "/srv/o'k")
        #expect(line == #"cd '/srv/o'\''k' && exec env 'A=x y' 'TABDECK_PROTOCOL=1' '/opt/my plug' 'it'\''s' '$HOME' 'a\b'"#)
        #expect(RemoteLaunch.remoteCommandLine(command: ["p"], environment: [:], directory: nil) == "exec env 'p'")
    }

    @Test func theSSHArgvSharesOneConnectionAndNeverPrompts() {
        let argv = RemoteLaunch.argv(ssh: ["ssh", "-F", "cfg"], remote: RemoteConfig(destination: "ann@db1"),
                                     controlPath: "/s/ssh/%C", command: ["p"], environment: [:])
        #expect(argv == ["ssh", "-F", "cfg", "-T", "-o", "BatchMode=yes", "-o", "ControlMaster=auto", "-o", "ControlPath=/s/ssh/%C",
                         "-o", "ControlPersist=60", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3",
                         "--", "ann@db1", "exec env 'p'"])
        #expect(RemoteLaunch.exitArgv(ssh: ["ssh"], destination: "db1", controlPath: "/s/ssh/%C")
                == ["ssh", "-o", "ControlPath=/s/ssh/%C", "-O", "exit", "--", "db1"])
    }

    @Test func theControlSocketMovesToTmpWhenTheStatePathIsTooLongForASocket() {
        #expect(RemoteLaunch.controlPath(stateDirectory: "/home/ann/.local/state/tabdeck", userID: 1000)
                == "/home/ann/.local/state/tabdeck/ssh/%C")
        let long = "/home/ann/" + String(repeating: "x", count: 60)
        #expect(RemoteLaunch.controlPath(stateDirectory: long, userID: 1000) == "/tmp/tabdeck-ssh-1000/%C")
    }
}
