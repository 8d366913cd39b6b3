import Testing
import TabdeckCore
import TabdeckProtocol

@Suite struct CommandParserTests {
    @Test func parsesTheLanguage() throws {
        #expect(try CommandParser.parse("tab move people to 3") == .tabMove("people", .toPosition(3)))
        #expect(try CommandParser.parse("tab move people after orders") == .tabMove("people", .after("orders")))
        #expect(try CommandParser.parse("tab move people to section sys") == .tabMove("people", .toSection("sys")))
        #expect(try CommandParser.parse("sort amount desc") == .sortBy("amount", .descending))
        #expect(try CommandParser.parse("sort") == .sortShow)
        #expect(try CommandParser.parse("export 'my file.csv' --format json") == .export(path: "my file.csv", format: .json))
        #expect(try CommandParser.parse("select 1 2 3") == .select(["1", "2", "3"]))
        #expect(try CommandParser.parse("goto 1,204") == .goto(1204))
        #expect(try CommandParser.parse("action kill --yes") == .action("kill", confirmed: true))
        #expect(try CommandParser.parse("   # only a comment") == nil)
        #expect(try CommandParser.parse("tabs # trailing comment") == .tabs)
    }

    @Test func misspellingsGetSuggestions() {
        func message(_ line: String) -> String {
            do { _ = try CommandParser.parse(line); return "parsed" } catch { return error.description }
        }
        #expect(message("sotr age") == #"unknown command "sotr" (did you mean "sort"?)"#)
        #expect(message("tab mvoe a to 1") == #"unknown tab command "mvoe" (did you mean "move"?)"#)
        #expect(message("page nxt") == #"unknown page move "nxt" (did you mean "next"?)"#)
        #expect(message("goto zero") == #"goto: expected a positive number, got "zero""#)
        #expect(message("tab move a") == "usage: tab move TAB to N | before TAB | after TAB | to section SECTION")
    }
}
