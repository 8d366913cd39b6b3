import Testing
import TabdeckCore
import TabdeckProtocol

/// `where COND [and COND]…`: the exact filter, parsed from the command language, typed by the
/// table's columns, sent to a plugin with `where` and saved with the view.
@Suite struct WhereTests {
    func table(_ h: Harness) -> TableState { h.ws.tabs[h.ws.selectedTab!]!.table! }

    @Test func theLanguageReadsEveryOperatorAndQuotedLiterals() throws {
        let terms = try WhereText.parse("amount>=10 and state IN (todo, 'in progress') and note is not null and n between -1 and 2.5"
                                        + " and \"first name\" = \"O'Brien \\\"Jr\\\"\" and x is null and y <> '' and z == true")
        #expect(terms == [
            WhereTerm("amount", .greaterOrEqual, [.init("10")]),
            WhereTerm("state", .in, [.init("todo"), .init("in progress", quoted: true)]),
            WhereTerm("note", .notNull),
            WhereTerm("n", .between, [.init("-1"), .init("2.5")]),
            WhereTerm("first name", .equal, [.init("O'Brien \"Jr\"", quoted: true)]),
            WhereTerm("x", .null),
            WhereTerm("y", .notEqual, [.init("", quoted: true)]),
            WhereTerm("z", .equal, [.init("true")]),
        ])
        // Every command reads back as itself through its text.
        let command = Command.whereSet(terms)
        #expect(try CommandParser.parse(command.text) == command)
    }

    @Test(arguments: [
        ("", "where: a column is missing (usage: where COL OP VALUE [and …])"),
        ("a", "where: an operator is missing after a (=, !=, <, <=, >, >=, between, in, is null)"),
        ("a ~ 3", "where: \"~\" is not an operator after a (=, !=, <, <=, >, >=, between, in, is null)"),
        ("a = ", "where: a value is missing after ="),
        ("a between 1", "where: between needs and (between A and B)"),
        ("a in 1, 2", "where: in needs a list in parentheses: in (A, B)"),
        ("a in (1, 2", "where: in's list ends with )"),
        ("a is nothing", "where: is needs null (is null, is not null)"),
        ("a = 1 or b = 2", "where: conditions are joined by and, not \"or\""),
        ("a = 1 and", "where: a condition is missing after and"),
        ("a = 'open", "where: unterminated quote"),
    ])
    func badConditionsSayWhatIsWrong(text: String, message: String) {
        #expect(throws: CommandError(message)) { try WhereText.parse(text) }
    }

    @Test func literalsAreTypedByTheColumn() throws {
        let columns = [ColumnSpec(id: "n", type: .integer), ColumnSpec(id: "amount", title: "Amount", type: .decimal),
                       ColumnSpec(id: "ok", type: .bool), ColumnSpec(id: "at", type: .date),
                       ColumnSpec(id: "state", type: .enumeration(["todo", "done"])), ColumnSpec(id: "name")]
        func typed(_ text: String) throws -> [WhereCondition] {
            var out: [WhereCondition] = []
            for t in try WhereText.parse(text) { out.append(try t.typed(in: columns, label: "t")) }
            return out
        }
        #expect(try typed("n = 12345678901234567890123 and AMOUNT >= 3.00 and ok = TRUE and at < 2025-03-30 and state in (todo) and name = 10")
                == [WhereCondition("n", .equal, ["12345678901234567890123"]), WhereCondition("amount", .greaterOrEqual, ["3.00"]),
                    WhereCondition("ok", .equal, [true]), WhereCondition("at", .less, ["2025-03-30"]),
                    WhereCondition("state", .in, ["todo"]), WhereCondition("name", .equal, ["10"])])
        #expect(try typed("n = 7") == [WhereCondition("n", .equal, [7])])
        #expect(throws: CommandError("where: \"1.5\" is not an integer (column n)")) { try typed("n = 1.5") }
        #expect(throws: CommandError("where: \"yes\" is not true or false (column ok)")) { try typed("ok = yes") }
        #expect(throws: CommandError("where: \"doing\" is not a value of column state (todo, done)", suggestion: "\"done\"")) {
            try typed("state = doing")
        }
        #expect(throws: CommandError("where: \"31.12.2025\" is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with a zone; column at)")) {
            try typed("at > 31.12.2025")
        }
        #expect(throws: CommandError("where: no column \"nam\" in t", suggestion: "\"name\"")) { try typed("nam = x") }
    }

    @Test func theClauseGoesToThePluginWithEveryPageAndIsSaved() throws {
        var h = Harness(count: 1000)
        for id in h.plugins.keys { h.plugins[id]!.wheres = true }
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        let generation = table(h).generation
        let outOut = h.run("where id >= 990 and name != name0")
        let out = try #require(outOut)
        let expected = (990..<1000).filter { "name\(($0 * 7919) % 1000)" != "name0" }
        #expect(out.text == "where: id >= 990 and name != name0 (\(expected.count) rows)")
        let sent = h.sends(Method.rows).last!.2
        #expect(sent["where"] == .array([["column": "id", "op": ">=", "value": 990], ["column": "name", "op": "!=", "value": "name0"]]))
        #expect(table(h).generation == generation + 1)
        let shownOut = h.run("show 2")
        let shown = try #require(shownOut)
        #expect(shown.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == expected.prefix(2).map { String($0) })
        #expect(shown.text.hasSuffix("where id >= 990 and name != name0"))
        #expect(h.effects.contains { if case .saveView(_, _, let v) = $0 { v.where.count == 2 } else { false } })
        #expect(h.run("where")?.text == out.text)
        #expect(h.run("where clear")?.text == "no exact filter (1,000 rows)")
        #expect(h.sends(Method.rows).last!.2["where"] == nil, "no where member once cleared")
    }

    @Test func aPluginWithoutTheCapabilityIsRefusedAndAStoredClauseIsDropped() {
        var h = Harness(count: 100)
        h.run("show 1")
        #expect(h.run("where id = 1") == nil)
        #expect(h.lastFailure?.contains("cannot apply an exact filter") == true)
        let key = TableViewKey(tab: "people", table: "")
        var stored = TableViewState()
        stored.where = [WhereCondition("id", .less, [5])]
        var restored = Harness(count: 100, views: [key: stored])
        restored.run("show 1")
        #expect(restored.ws.tabs["people"]!.table!.view.where.isEmpty)
        var kept = Harness(count: 100, views: [key: stored])
        for id in kept.plugins.keys { kept.plugins[id]!.wheres = true }
        #expect(kept.run("where")?.text == "where: id < 5 (5 rows)")
    }
}
