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

/// `Command.text` is the command language's own rendering: parsed again, it is the same command.
@Suite struct CommandTextTests {
    static let awkward = ["plain", "two words", "it's", #"say "hi""#, #"back\slash"#, "#hash", "all", "clear", "none",
                          "--yes", "--back", "--format", "--format=csv", "", "both ' and \"", "tab\there", "ünïcødé ✓"]

    @Test(arguments: awkward)
    func everyCommandReadsBackAsItself(word: String) throws {
        let commands: [Command] = [
            .tabSelect(word), .tabMove(word, .before(word)), .tabMove(word, .toSection(word)), .tabHide(word),
            .tabShow(word), .sectionMove(word, 2), .columnHide(word), .columnShow(word), .columnMove(word, 3),
            .columnWidth(word, 12), .sortBy(word, nil), .sortBy(word, .descending), .select([word, "x", word]),
            .unselect([word]), .open(word), .expand(word), .action(word, confirmed: true), .action(word, confirmed: false),
            .export(path: word, format: .json), .plugin(.restart, tab: word),
            .copy(.cell, column: word, format: .csv), .copy(.column, column: word, format: nil),
        ] + (word.isEmpty || word.contains(where: \.isWhitespace) && word.split(separator: " ").joined(separator: " ") != word ? [] :
            [.filterSet(word), .find(word, backward: true), .find(word, backward: false), .jump(word)])
        for command in commands {
            let back = try CommandParser.parse(command.text)
            #expect(back == command, "\(command) → \(command.text) → \(String(describing: back))")
        }
    }

    /// `copy` and `keys` read back as themselves, every target and format.
    @Test func copyAndKeysReadBack() throws {
        var commands: [Command] = [.keys]
        for target in Command.CopyTarget.allCases {
            for format in [nil] + Command.CopyFormat.allCases.map(Optional.some) {
                commands.append(.copy(target, column: nil, format: format))
                if target == .cell || target == .column { commands.append(.copy(target, column: "amount", format: format)) }
            }
        }
        for command in commands { #expect(try CommandParser.parse(command.text) == command, "\(command.text)") }
        #expect(Command.copy(.cell, column: "amount", format: .json).text == "copy cell amount --format json")
    }

    @Test func copyParsesAndRefusesNamingWhatIsWrong() {
        func message(_ line: String) -> String {
            do { return "\(String(describing: try CommandParser.parse(line)))" } catch { return error.description }
        }
        #expect(message("copy row") == "Optional(TabdeckCore.Command.copy(TabdeckCore.Command.CopyTarget.row, column: nil, format: nil))")
        #expect(message("copy --format=csv selection") == "Optional(TabdeckCore.Command.copy(TabdeckCore.Command.CopyTarget.selection, column: nil, format: Optional(TabdeckCore.Command.CopyFormat.csv)))")
        #expect(message("copy rwo") == #"unknown copy target "rwo" (did you mean "row"?)"#)
        #expect(message("copy row --format xml") == #"unknown copy format "xml""#)
        #expect(message("copy row --format jsn") == #"unknown copy format "jsn" (did you mean "json"?)"#)
        #expect(message("copy row amount") == "usage: copy row|selection|cell [COL]|column [COL] [--format tsv|csv|json]")
        #expect(message("copy") == "usage: copy row|selection|cell [COL]|column [COL] [--format tsv|csv|json]")
        #expect(message("keys all") == "keys takes no arguments; usage: keys")
    }

    @Test func keywordsAreKeywordsOnlyWhenBare() throws {
        #expect(try CommandParser.parse("filter clear") == .filterSet(nil))
        #expect(try CommandParser.parse("filter 'clear'") == .filterSet("clear"))
        #expect(try CommandParser.parse("select all") == .selectAll)
        #expect(try CommandParser.parse(#"select "all""#) == .select(["all"]))
        #expect(try CommandParser.parse(#"select a\ b"#) == .select(["a b"]))
        #expect(try CommandParser.parse(#"select "a \"b\" \\ c""#) == .select([#"a "b" \ c"#]))
        #expect(throws: CommandError.self) { try CommandParser.parse(#"select a\"#) }
    }
}
