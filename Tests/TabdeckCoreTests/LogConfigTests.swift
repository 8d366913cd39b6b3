import Testing
import TabdeckCore

/// `"logs"` in config.json: how big a plugin's log grows and how many older ones are kept.
@Suite struct LogConfigTests {
    func parse(_ text: String) throws(ConfigError) -> WorkspaceConfig {
        try WorkspaceConfig.parse(Array(text.utf8), file: "/etc/w/config.json", directory: "/etc/w")
    }

    func error(_ text: String) -> String {
        do { _ = try parse(text); return "no error" } catch { return error.description }
    }

    @Test func sizeAndCountWithSaneDefaults() throws {
        let plain = try parse(#"{"tabs": [{"id": "a", "command": ["x"]}]}"#)
        #expect(plain.logMaxBytes == 10 << 20 && plain.logFiles == 3)
        let set = try parse(#"{"logs": {"maxBytes": 1048576, "files": 5}, "tabs": [{"id": "a", "command": ["x"]}]}"#)
        #expect(set.logMaxBytes == 1_048_576 && set.logFiles == 5)
    }

    @Test func badValuesAreNamedByTheirPath() {
        #expect(error(#"{"logs": {"maxBytes": 10}, "tabs": [{"id": "a", "command": ["x"]}]}"#) == "/etc/w/config.json: logs.maxBytes: must be at least 4096 (bytes), got 10")
        #expect(error(#"{"logs": {"files": -1}, "tabs": [{"id": "a", "command": ["x"]}]}"#) == "/etc/w/config.json: logs.files: must be 0 to 100 (older logs kept), got -1")
        #expect(error(#"{"logs": {"size": 1}, "tabs": [{"id": "a", "command": ["x"]}]}"#).contains(#"logs.size: unknown key "size""#))
    }
}
