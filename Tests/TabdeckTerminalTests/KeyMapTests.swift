import Testing
@testable import TabdeckTerminal

@Suite struct KeyMapTests {
    let map = KeyMap.standard

    @Test func theKeysOfIssue3() {
        let expected: [(Key, Action)] = [
            (.down, .moveDown), (.char("j"), .moveDown), (.up, .moveUp), (.char("k"), .moveUp),
            (.pageDown, .pageDown), (.pageUp, .pageUp), (.char("g"), .top), (.char("G"), .bottom),
            (.char("h"), .columnLeft), (.char("l"), .columnRight), (.left, .columnLeft), (.right, .columnRight),
            (.tab, .nextTab), (.char("]"), .nextTab), (.backTab, .previousTab), (.char("["), .previousTab),
            (.char("1"), .selectTab(1)), (.char("9"), .selectTab(9)),
            (.char("s"), .sort), (.char("S"), .clearSort), (.char(" "), .toggleSelection), (.enter, .open),
            (.backspace, .back), (.char("d"), .detail), (.char("/"), .find), (.char(":"), .command),
            (.char("?"), .help), (.char("q"), .quit), (.escape, .dismiss), (.char("y"), .copyRow), (.char("Y"), .copySelection),
        ]
        for (key, action) in expected { #expect(map.action(for: key) == action, "\(key)") }
        #expect(map.action(for: .char("z")) == nil)
        #expect(map.action(for: .char("0")) == nil)
    }

    @Test func noKeyIsBoundTwice() {
        let keys = map.bindings.flatMap(\.keys)
        #expect(Set(keys).count == keys.count)
    }

    @Test func helpEntriesGroupTheDigits() {
        let entries = map.helpEntries
        #expect(entries.count == map.bindings.count - 8)
        #expect(entries.contains { $0.keys == "1–9" && $0.description == "tab-1…tab-9: tab by position" })
        #expect(entries.contains { $0.keys == "Shift-Tab [" && $0.description == "previous-tab: previous tab" })
    }
}
