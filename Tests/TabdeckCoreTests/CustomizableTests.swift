import Testing
import TabdeckCore

/// `"customizable": false` in config.json: read strictly, and refused in one wording.
@Suite struct CustomizableTests {
    @Test func aBadValueNamesTheFileAndTheField() {
        let text = #"{"tabs":[{"id":"a","command":["x"]},{"id":"b","command":["x"],"customizable":"no"}]}"#
        #expect(throws: ConfigError(file: "/w/config.json", path: "tabs[1].customizable", reason: "expected a boolean, got a string")) {
            try WorkspaceConfig.parse(Array(text.utf8), file: "/w/config.json", directory: "/w")
        }
    }

    @Test func theRefusalSaysWhyAndWhatCannotHappen() {
        let tab = TabConfig(id: "procs", title: "Processes", command: ["p"], customizable: false)
        #expect(tab.refusal("move") == #"tab procs is not customizable (config.json says "customizable": false), so it cannot move"#)
    }
}
