import Testing
import TabdeckProtocol
@testable import TabdeckCore

/// config.json's `"mouse"` and the `mouse on|off` command: whether the full screen takes the mouse.
@Suite struct MouseSettingTests {
    func parse(_ text: String) throws(ConfigError) -> WorkspaceConfig {
        try WorkspaceConfig.parse(Array(text.utf8), file: "/etc/w/config.json", directory: "/etc/w")
    }

    @Test func configSaysWhetherTheScreenTakesTheMouseTrueByDefault() throws {
        #expect(try parse(#"{"tabs":[{"id":"a","command":["x"]}]}"#).mouse == true)
        #expect(try parse(#"{"mouse":false,"tabs":[{"id":"a","command":["x"]}]}"#).mouse == false)
        #expect(try parse(#"{"mouse":true,"tabs":[{"id":"a","command":["x"]}]}"#).mouse == true)
        let error = #expect(throws: ConfigError.self) { try parse(#"{"mouse":"no","tabs":[{"id":"a","command":["x"]}]}"#) }
        #expect(error?.description == "/etc/w/config.json: mouse: expected a boolean, got a string")
        let cfg = try parse(#"{"mouse":false,"tabs":[{"id":"a","command":["x"]}]}"#)
        #expect(Workspace(config: cfg, storedLayout: nil, storedViews: [:]).mouse == false)
    }

    @Test func theCommandParsesReadsBackAndRefusesOtherWords() throws {
        #expect(try CommandParser.parse("mouse on") == .mouse(true))
        #expect(try CommandParser.parse("mouse off") == .mouse(false))
        #expect(try CommandParser.parse("mouse") == .mouse(nil))
        for command in [Command.mouse(true), .mouse(false), .mouse(nil)] {
            #expect(try CommandParser.parse(command.text) == command)
        }
        #expect(Harness().ws.completions(for: "mouse o") == .words(["on", "off"]))
        #expect(Harness().ws.completions(for: "mou") == .words(["mouse"]))
        let error = #expect(throws: CommandError.self) { try CommandParser.parse("mouse maybe") }
        #expect(error?.description == "usage: mouse [on|off]")
    }

    /// The command changes the setting for the session (nothing is saved) and says what it is,
    /// also while another command waits.
    @Test func theCommandTurnsItOffAndOnAndSaysWhichItIs() {
        var h = Harness()
        #expect(h.ws.mouse)
        #expect(h.run("mouse off")?.text == "mouse off: the terminal has the mouse (it selects text)")
        #expect(!h.ws.mouse)
        #expect(h.run("mouse")?.json == ["mouse": false])
        #expect(h.run("mouse on")?.text == "mouse on: clicks and the wheel go to Tabdeck (hold Shift to select text)")
        #expect(h.ws.mouse)
        #expect(!h.effects.contains { if case .saveLayout = $0 { true } else if case .saveView = $0 { true } else { false } })
        #expect(h.ws.runsBeside(.mouse(false)))
    }
}
