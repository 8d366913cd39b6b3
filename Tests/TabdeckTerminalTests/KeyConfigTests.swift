import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Keys of one's own (issue 16, point 3): config.json's `"keys"`, checked before anything
/// starts, applied to the key map that dispatch, `?` help and the `keys` command all read.
@Suite struct KeyConfigTests {
    static let tabs = #""tabs": [{"id": "people", "command": ["plug"]}]"#

    /// The key map a config.json with this `"keys"` object gives, or the error that stops the start.
    func keyMap(_ keys: String) throws -> KeyMap {
        let config = try WorkspaceConfig.parse(Array("{\(Self.tabs), \"keys\": \(keys)}".utf8), file: "/w/config.json", directory: "/w")
        return try KeyMap.standard.applying(config.keys, file: config.file)
    }

    func error(_ keys: String) -> String {
        do { _ = try keyMap(keys); return "no error" } catch { return "\(error)" }
    }

    @Test func anActionNameReplacesWhatTheKeyDid() throws {
        let map = try keyMap(#"{"s": "quit", "x": "sort", "f5": "refresh", "ctrl-t": "edit-tabs", "alt-j": "move-down"}"#)
        #expect(map.action(for: .char("s")) == .quit)
        #expect(map.action(for: .char("x")) == .sort)
        #expect(map.action(for: .function(5)) == .refresh)
        #expect(map.action(for: .ctrl("t")) == .editTabs)
        #expect(map.action(for: .alt("j")) == .moveDown)
        #expect(map.action(for: .char("q")) == .quit)  // the default keys of quit stay
        #expect(map.bindings.first { $0.action == .sort }?.keys == [.char("x")])
        let keys = map.bindings.flatMap(\.keys)
        #expect(Set(keys).count == keys.count, "a key is bound once")
    }

    @Test func nullUnbindsAKey() throws {
        let map = try keyMap(#"{"q": null, "enter": null}"#)
        #expect(map.action(for: .char("q")) == nil)
        #expect(map.action(for: .enter) == nil)
        #expect(map.action(for: .ctrl("c")) == .quit)
        #expect(!map.helpEntries.contains { $0.keys.split(separator: " ").contains("q") })
        #expect(map.helpEntries.contains { $0.keys == "Ctrl-C" && $0.description == "quit: quit" })
    }

    @Test func aCommandLineIsParsedAtLoadIntoATypedCommand() throws {
        let map = try keyMap(#"{"S": ":sort amount desc", "F": ":  filter 'two words'  "}"#)
        #expect(map.action(for: .char("S")) == .typed(.sortBy("amount", .descending), line: "sort amount desc"))
        #expect(map.action(for: .char("F")) == .typed(.filterSet("two words"), line: "filter 'two words'"))
        #expect(map.bindings.first { $0.action == .clearSort }?.keys == [])
    }

    @Test func everyKeyNameOfTheIssueIsAKey() throws {
        let names = ["S", "?", "ctrl-x", "alt-x", "enter", "esc", "tab", "shift-tab", "backspace", "space", "up", "down",
                     "left", "right", "home", "end", "pgup", "pgdn"] + (1...12).map { "f\($0)" }
        let expected: [Key] = [.char("S"), .char("?"), .ctrl("x"), .alt("x"), .enter, .escape, .tab, .backTab, .backspace,
                               .char(" "), .up, .down, .left, .right, .home, .end, .pageUp, .pageDown] + (1...12).map { Key.function($0) }
        #expect(names.map(Key.init(configName:)) == expected)
        for key in expected { #expect(key.configName.flatMap(Key.init(configName:)) == key, "\(key)") }
        for bad in ["", "ctrl-", "ctrl-1", "f13", "f0", "PgUp", "shift-x", "ab", "\u{1b}", "alt- "] {
            #expect(Key(configName: bad) == nil, "\(bad)")
        }
    }

    @Test func everyActionHasAStableDistinctName() {
        let names = Action.named.map(\.name)
        #expect(Set(names).count == names.count)
        for a in Action.named { #expect(Action(named: a.name) == a) }
        for b in KeyMap.standard.bindings { #expect(Action.named.contains(b.action), "\(b.action) has no name") }
        #expect(names.prefix(3) == ["move-down", "move-up", "page-down"])
        #expect(names.contains("action-menu") && names.contains("quit") && names.contains("detail") && names.contains("sort"))
    }

    @Test func badBindingsNameTheFileTheKeyAndWhatIsValid() {
        #expect(error(#"{"ctrl-1": "quit"}"#) == #"/w/config.json: keys.ctrl-1: unknown key name "ctrl-1"; valid key names: a character as itself ("S", "?"), ctrl-x, alt-x, enter, esc, tab, shift-tab, backspace, space, up, down, left, right, home, end, pgup, pgdn, f1 to f12"#)
        #expect(error(#"{"x": "srot"}"#) == "/w/config.json: keys.x: unknown action \"srot\" (did you mean \"sort\"?); valid: an action of the key map ("
                + Action.named.map(\.name).joined(separator: ", ") + "), a command line starting with \":\", or null")
        #expect(error(#"{"x": ":sotr age"}"#) == #"/w/config.json: keys.x: the command line "sotr age" does not parse: unknown command "sotr" (did you mean "sort"?)"#)
        #expect(error(#"{"x": ":"}"#) == #"/w/config.json: keys.x: ":" needs a command line after it (":sort amount desc")"#)
        #expect(error(#"{"x": 3}"#) == #"/w/config.json: keys.x: expected an action name, a ":" command line or null, got an integer"#)
        #expect(error(#"[]"#) == "/w/config.json: keys: expected an object, got an array")
    }

    /// A key bound to a command line runs it as a typed command, and its output shows.
    @Test func aBoundCommandLineRunsAsTyped() throws {
        var s = ScreenScene(width: 80, height: 6)
        s.model.ui.keyMap = try keyMap(#"{"S": ":sort age desc", "s": null}"#)
        s.press(.char("s"))
        #expect(s.scene.ws.tabs["people"]?.table?.view.sort == [])
        s.press(.char("S"))
        #expect(s.scene.ws.tabs["people"]?.table?.view.sort == [SortKey("age", .descending)])
        #expect(s.lines.last == "sort: age desc · row 1 of 1,000,000 · sort: Age ↓")
    }

    /// `?` shows the bindings in force: the custom ones with their names, unbound keys gone.
    @Test(arguments: [40, 80, 120])
    func helpShowsTheBindingsInForce(width: Int) throws {
        var s = ScreenScene(width: width, height: 12)
        s.model.ui.keyMap = try keyMap(#"{"j": null, "x": "move-down", "S": ":sort age desc"}"#)
        s.press(.char("?"))
        check(s.lines, Self.help[width], "help \(width)")
        // Scrolled to the command line bound to S (the bindings config.json adds come last).
        let at = HelpView.lines(s.model.ui.keyMap, width: width).lines.firstIndex { $0.left.contains("S") && ($0.right + $0.left).contains(":sort") }
            ?? HelpView.lines(s.model.ui.keyMap, width: width).lines.firstIndex { $0.right.contains(":sort age desc") }!
        s.model.ui.mode = .help(scroll: at - 3)
        check(s.lines, Self.helpEnd[width], "help end \(width)")
    }

    /// `keys` lists the bindings in force, as text and as JSON, from the same key map.
    @Test func theKeysCommandListsTheBindingsInForce() throws {
        var scene = Scene(tables: ["people": .people()])
        scene.ws.settings.keyTable = try keyMap(#"{"j": null, "x": "move-down", "S": ":sort age desc"}"#).table
        scene.run("keys")
        let lines = scene.outputs.last?.split(separator: "\n").map(String.init) ?? []
        #expect(lines.prefix(3) == [
            "down x       move-down          move down a row",
            "up k         move-up            move up a row",
            "pgdn         page-down          next page",
        ])
        #expect(lines.contains("S            :sort age desc     run as if typed"))
        // clear-sort lost its only key (S), which runs the command line now.
        #expect(lines.count == KeyMap.standard.bindings.count)
        let json = scene.ws.update(.command("keys"), now: 0).compactMap { effect -> JSONValue? in
            if case .commandDone(let out) = effect { return out.json } else { return nil }
        }.first?.arrayValue ?? []
        #expect(json.first == ["keys": ["down", "x"], "action": "move-down", "description": "move down a row"])
        #expect(json.count == lines.count)
    }

    static let help: [Int: [String]] = [
        40: [
            " Keys",
            "   ↓ x",
            "     move-down: move down a row",
            "   ↑ k",
            "     move-up: move up a row",
            "   PgDn",
            "     page-down: next page",
            "   PgUp",
            "     page-up: previous page",
            "   g Home",
            "     top: first row",
            "help · ↑↓ scroll · Esc closes",
        ],
        80: [
            " Keys",
            "   ↓ x                           move-down: move down a row",
            "   ↑ k                           move-up: move up a row",
            "   PgDn                          page-down: next page",
            "   PgUp                          page-up: previous page",
            "   g Home                        top: first row",
            "   G End                         bottom: last row (when counted)",
            "   ← h                           column-left: column cursor left",
            "   → l                           column-right: column cursor right",
            "   Tab ]                         next-tab: next tab",
            "   Shift-Tab [                   previous-tab: previous tab",
            "help · ↑↓ PgUp PgDn scroll · Esc or ? closes",
        ],
        120: [
            " Keys",
            "   ↓ x                           move-down: move down a row",
            "   ↑ k                           move-up: move up a row",
            "   PgDn                          page-down: next page",
            "   PgUp                          page-up: previous page",
            "   g Home                        top: first row",
            "   G End                         bottom: last row (when counted)",
            "   ← h                           column-left: column cursor left",
            "   → l                           column-right: column cursor right",
            "   Tab ]                         next-tab: next tab",
            "   Shift-Tab [                   previous-tab: previous tab",
            "help · ↑↓ PgUp PgDn scroll · Esc or ? closes",
        ],
    ]
    static let helpEnd: [Int: [String]] = [
        40: [
            "   q Ctrl-C",
            "     quit: quit",
            "   S",
            "     :sort age desc (run as if typed)",
            "",
            " Tab edit mode (T)",
            "   K",
            "     move the tab up (from the top of a",
            "     section into the previous one)",
            "   J",
            "     move the tab down (from the bottom",
            "help · ↑↓ scroll · Esc closes",
        ],
        80: [
            "                                 clipboard, with a header line",
            "   Ctrl-Z                        suspend: suspend to the shell (fg comes back)",
            "   q Ctrl-C                      quit: quit",
            "   S                             :sort age desc (run as if typed)",
            "",
            " Tab edit mode (T)",
            "   K                             move the tab up (from the top of a section",
            "                                 into the previous one)",
            "   J                             move the tab down (from the bottom of a",
            "                                 section into the next one)",
            "   x                             hide the tab, or show it again",
            "help · ↑↓ PgUp PgDn scroll · Esc or ? closes",
        ],
        120: [
            "   Y                             copy-selection: copy the selected rows to the clipboard, with a header line",
            "   Ctrl-Z                        suspend: suspend to the shell (fg comes back)",
            "   q Ctrl-C                      quit: quit",
            "   S                             :sort age desc (run as if typed)",
            "",
            " Tab edit mode (T)",
            "   K                             move the tab up (from the top of a section into the previous one)",
            "   J                             move the tab down (from the bottom of a section into the next one)",
            "   x                             hide the tab, or show it again",
            "   {                             move the tab's section up",
            "   }                             move the tab's section down",
            "help · ↑↓ PgUp PgDn scroll · Esc or ? closes",
        ],
    ]
}
