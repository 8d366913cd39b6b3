import Testing
import TabdeckCore
import TabdeckProtocol

@Suite struct ConfigTests {
    func parse(_ text: String) throws(ConfigError) -> WorkspaceConfig {
        try WorkspaceConfig.parse(Array(text.utf8), file: "/etc/w/config.json", directory: "/etc/w")
    }

    func error(_ text: String) -> String {
        do { _ = try parse(text); return "no error" } catch { return error.description }
    }

    @Test func parsesAndResolvesRelativeCommands() throws {
        let c = try parse("""
            {"sections":[{"id":"s","title":"S"}],
             "tabs":[{"id":"a","title":"A","section":"s","command":["./plug.py","x"],"args":{"path":"f.csv"},"background":true,"env":{"K":"V"}},
                     {"id":"b","command":["python3","p.py"],"customizable":false}]}
            """)
        #expect(c.tabs[0].command == ["/etc/w/plug.py", "x"])
        #expect(c.tabs[1].command == ["python3", "p.py"])
        #expect(c.tabs[0].background && !c.tabs[1].customizable && c.tabs[1].title == "b")
        #expect(c.tabs[0].env == ["K": "V"])
    }

    @Test func requestLimitIsPerTabInSecondsWithHalfAnHourByDefault() throws {
        let c = try parse(#"{"tabs":[{"id":"a","command":["p"],"requestLimit":90},{"id":"b","command":["p"]}]}"#)
        #expect(c.tabs[0].requestLimit == 90)
        #expect(c.tabs[1].requestLimit == 1800)
        #expect(error(#"{"tabs":[{"id":"a","command":["p"]},{"id":"b","command":["p"],"requestLimit":0}]}"#)
            == "/etc/w/config.json: tabs[1].requestLimit: expected seconds from 1 to 31536000 (a request's hard maximum; default 1800), got 0.0")
        #expect(error(#"{"tabs":[{"id":"a","command":["p"],"requestLimit":"1h"}]}"#).hasPrefix("/etc/w/config.json: tabs[0].requestLimit: "))
    }

    @Test func invalidJSONNamesLineAndColumn() {
        #expect(error("{\n  \"tabs\": [\n    {\"id\": \"a\",, }\n]}") == "/etc/w/config.json:3:16: invalid JSON: expected a string key, found ','")
    }

    @Test func namesThePathOfBadFields() {
        #expect(error(#"{"tabs":[{"id":"a","command":["x"]},{"id":"a","command":["y"]}]}"#)
                == #"/etc/w/config.json: tabs[1].id: duplicate tab id "a""#)
        #expect(error(#"{"tabs":[{"id":"a","command":["x"]},{"id":"b"}]}"#).contains("tabs[1].command: missing"))
        #expect(error(#"{"tabs":[{"id":"a","command":"x"}]}"#).contains("tabs[0].command: expected an array, got a string"))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"section":"nope"}]}"#).contains(#"tabs[0].section: unknown section "nope""#))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"comand":["y"]}]}"#).contains(#"tabs[0].comand: unknown key "comand""#))
        #expect(error(#"{"tabs":[{"id":"a","command":["x"],"background":"yes"}]}"#).contains("tabs[0].background: expected a boolean, got a string"))
        #expect(error(#"{"tabs":[]}"#).contains("tabs: a workspace needs at least one tab"))
    }

    /// `"logs"`: how big a plugin's log grows and how many older ones are kept.
    @Test func logsSizeAndCountWithSaneDefaults() throws {
        let plain = try parse(#"{"tabs": [{"id": "a", "command": ["x"]}]}"#)
        #expect(plain.logMaxBytes == 10 << 20 && plain.logFiles == 3)
        let set = try parse(#"{"logs": {"maxBytes": 1048576, "files": 5}, "tabs": [{"id": "a", "command": ["x"]}]}"#)
        #expect(set.logMaxBytes == 1_048_576 && set.logFiles == 5)
    }

    @Test func badLogsValuesAreNamedByTheirPath() {
        #expect(error(#"{"logs": {"maxBytes": 10}, "tabs": [{"id": "a", "command": ["x"]}]}"#) == "/etc/w/config.json: logs.maxBytes: must be at least 4096 (bytes), got 10")
        #expect(error(#"{"logs": {"files": -1}, "tabs": [{"id": "a", "command": ["x"]}]}"#) == "/etc/w/config.json: logs.files: must be 0 to 100 (older logs kept), got -1")
        #expect(error(#"{"logs": {"size": 1}, "tabs": [{"id": "a", "command": ["x"]}]}"#).contains(#"logs.size: unknown key "size""#))
    }

}

@Suite struct LayoutMergeTests {
    let config = sampleConfig()

    @Test func defaultLayoutFollowsConfig() {
        let l = LayoutMerge.merge(stored: nil, config: config)
        #expect(l.visibleTabs == ["people", "orders", "procs", "logs"])
        #expect(l.selected == "people")
    }

    @Test func keepsStoredOrderDropsRemovedAndInsertsNewAtConfigPosition() {
        let stored = WorkspaceLayout(
            sections: ["sys", "data"],
            tabs: [.init(tab: "logs", section: "sys"), .init(tab: "gone", section: "sys"), .init(tab: "procs", section: "sys"),
                   .init(tab: "people", section: "data")],
            hidden: ["gone"], selected: "gone")
        let l = LayoutMerge.merge(stored: stored, config: config)
        #expect(l.sections == ["sys", "data"])
        // "orders" is new: it follows "people", its predecessor in config.
        #expect(l.visibleTabs == ["logs", "procs", "people", "orders"])
        #expect(l.hidden.isEmpty)
        #expect(l.selected == "logs")
    }

    @Test func nonCustomizableTabsStayInTheirSectionAndVisible() {
        let stored = WorkspaceLayout(sections: ["data", "sys"],
                                     tabs: [.init(tab: "procs", section: "data"), .init(tab: "people", section: "data")],
                                     hidden: ["procs"], selected: nil)
        let l = LayoutMerge.merge(stored: stored, config: config)
        #expect(l.tabs.first { $0.tab == "procs" }?.section == "sys")
        #expect(!l.hidden.contains("procs"))
    }
}

/// Places in config errors stay one reading of one place, whatever the key.
@Suite struct ConfigPathTests {
    @Test func aKeyThatIsNotAPlainNameIsQuotedInThePath() throws {
        for (key, path) in [("", #"[""]"#), ("a.b", #"["a.b"]"#), ("x y", #"["x y"]"#), ("\u{1b}", #"["\u001b"]"#)] {
            let text = #"{"tabs":[],"#  + String(decoding: JSONWriter.bytes(.string(key)), as: UTF8.self) + ":0}"
            let error = #expect(throws: ConfigError.self) { try WorkspaceConfig.parse(Array(text.utf8), file: "c.json", directory: "/") }
            #expect(error?.path == path, "\(String(describing: error))")
            #expect(error?.description.unicodeScalars.contains { $0.value < 0x20 } == false)
        }
    }
}

@Suite struct ConfigIDTests {
    @Test func idsWithControlCharactersAreRefusedNamingTheField() {
        let text = #"{"tabs":[{"id":"a\u001bb","command":["x"]}]}"#
        let error = #expect(throws: ConfigError.self) { try WorkspaceConfig.parse(Array(text.utf8), file: "c.json", directory: "/") }
        #expect(error?.path == "tabs[0].id")
        #expect(error?.description.contains("must not hold control characters (found U+1B)") == true, "\(String(describing: error))")
    }
}
