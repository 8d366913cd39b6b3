import TabdeckProtocol

/// A parsed command of the command language (docs/COMMANDS.md).
public enum Command: Hashable, Sendable {
    public enum TabMove: Hashable, Sendable {
        case toPosition(Int)
        case before(String)
        case after(String)
        case toSection(String)
    }
    public enum PageMove: String, Hashable, Sendable, CaseIterable { case next, prev, first, last }
    public enum ExportFormat: String, Hashable, Sendable, CaseIterable { case csv, json }
    public enum PluginVerb: String, Hashable, Sendable, CaseIterable { case status, restart, log }
    /// Which way `row move` moves the cursor row.
    public enum RowMove: String, Hashable, Sendable, CaseIterable { case up, down }

    case tabs
    case tabSelect(String)
    case tabMove(String, TabMove)
    case tabHide(String)
    case tabShow(String)
    case tabReset
    case sectionMove(String, Int)
    case columns
    case columnHide(String)
    case columnShow(String)
    case columnMove(String, Int)
    case columnWidth(String, Int)
    /// Every column shown again, in the plugin's order, at its automatic width.
    case columnReset
    case sortShow
    case sortBy(String, SortDirection?)
    case sortClear
    case filterShow
    /// Set (a text) or clear (nil) the filter.
    case filterSet(String?)
    /// `freq COL [COL…] [--bins N]`: the group counts of columns, one level down.
    case freq([String], bins: Int?)
    /// `describe`: statistics of every column, one level down.
    case describe
    /// `plot X [Y]`: a histogram, or Y against X, one level down.
    case plot([String])
    /// `sql QUERY`: a read-only query's result, one level down.
    case sql(String)
    /// `where`: show the structured filter.
    case whereShow
    /// `where COND [and COND]…` (nil: `where clear`).
    case whereSet([WhereTerm]?)
    case show(Int?)
    case goto(Int)
    case page(PageMove)
    /// The section index: to the first row of the table section whose title starts with this.
    case jump(String)
    /// Find text in any cell of the whole table, from the row after (or before) the cursor.
    case find(String, backward: Bool)
    case select([String])
    case selectAll
    case selectNone
    case unselect([String])
    case selection
    case open(String?)
    case back
    /// Run a plugin action; `input` holds the values typed for its form (field id → text).
    case action(String, confirmed: Bool, input: [String: String] = [:])
    /// Move the cursor row up or down past its neighbour (tables the plugin lets move).
    case rowMove(RowMove)
    /// Expand or collapse a row's children in place (nil: the cursor row).
    case expand(String?)
    /// Fetch the view again (restarting the plugin if it is down).
    case refresh
    case export(path: String, format: ExportFormat?)
    /// Put rows, a cell or a column on the clipboard (OSC 52); nil column: the first visible
    /// one (the screen fills in the column under the cursor); nil format: TSV.
    case copy(CopyTarget, column: String?, format: CopyFormat?)
    /// List the keys in force (the key map with config.json's `keys` applied).
    case keys
    case plugin(PluginVerb, tab: String?)
    /// Stop the running command and the find (the plugin is told with `$/cancel`).
    case cancel
    case help(String?)
    /// `mouse on|off`: whether the full screen takes the mouse (nil: say which).
    case mouse(Bool?)
    case quit
}

/// A command line that could not be parsed: what is wrong, and a suggestion.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var suggestion: String?
    public init(_ message: String, suggestion: String? = nil) { self.message = message; self.suggestion = suggestion }
    public var description: String {
        guard let suggestion else { return message }
        return "\(message) (did you mean \(suggestion)?)"
    }
}

/// One entry of the command catalog: usage and a summary. The catalog drives `help`,
/// suggestions for misspelled commands, and completion at the prompt.
public struct CommandInfo: Hashable, Sendable {
    public var name: String
    public var usage: String
    public var summary: String
}

/// Parsing command lines.
public enum CommandParser {
    /// Every command, in the order `help` lists them.
    public static let catalog: [CommandInfo] = [
        .init(name: "tabs", usage: "tabs", summary: "list the tabs with their sections, badges and state"),
        .init(name: "tab select", usage: "tab select TAB", summary: "select a tab by id, title or 1-based position"),
        .init(name: "tab move", usage: "tab move TAB to N | before TAB | after TAB | to section SECTION", summary: "reorder a tab or move it to another section"),
        .init(name: "tab hide", usage: "tab hide TAB", summary: "hide a tab"),
        .init(name: "tab show", usage: "tab show TAB", summary: "show a hidden tab"),
        .init(name: "tab reset", usage: "tab reset", summary: "forget tab and section customization (back to config.json order)"),
        .init(name: "section move", usage: "section move SECTION to N", summary: "reorder a section"),
        .init(name: "columns", usage: "columns", summary: "list the columns of the current table"),
        .init(name: "column hide", usage: "column hide COL", summary: "hide a column"),
        .init(name: "column show", usage: "column show COL", summary: "show a hidden column"),
        .init(name: "column move", usage: "column move COL to N", summary: "move a column to a 1-based position"),
        .init(name: "column width", usage: "column width COL N", summary: "set a column's width in cells (0 = automatic)"),
        .init(name: "column reset", usage: "column reset", summary: "show all columns again, in the plugin's order and widths"),
        .init(name: "sort", usage: "sort [COL [asc|desc] | clear]", summary: "show the sort order, sort by a column (again flips it), or clear"),
        .init(name: "filter", usage: "filter [TEXT | clear]", summary: "show the filter, keep only rows with TEXT in a cell, or clear"),
        .init(name: "where", usage: "where [COL OP VALUE [and …] | clear]", summary: "show the exact filter, keep rows meeting conditions on columns, or clear"),
        .init(name: "freq", usage: "freq COL [COL...] [--bins N]", summary: "count the rows of each value (numbers and dates: in bins), one level down"),
        .init(name: "describe", usage: "describe", summary: "statistics of every column (nulls, distinct, range, mean, quartiles), one level down"),
        .init(name: "plot", usage: "plot X [Y]", summary: "a histogram of a number or date column, or Y against X, in braille, one level down"),
        .init(name: "sql", usage: "sql QUERY", summary: "read-only SQL (DuckDB, SQLite, PostgreSQL), one level down; DuckDB sees file tabs too"),
        .init(name: "show", usage: "show [N]", summary: "print the rows in view, or N rows from the current position"),
        .init(name: "goto", usage: "goto ROW", summary: "move to a 1-based row number"),
        .init(name: "page", usage: "page next|prev|first|last", summary: "scroll by a page"),
        .init(name: "jump", usage: "jump SECTION", summary: "go to the table section whose title starts with SECTION"),
        .init(name: "find", usage: "find [--back] TEXT", summary: "go to the next row with TEXT in any cell (--back: the previous)"),
        .init(name: "select", usage: "select ID... | all | none", summary: "add rows to the selection by id, select all rows, or none"),
        .init(name: "unselect", usage: "unselect ID...", summary: "remove rows from the selection by id"),
        .init(name: "selection", usage: "selection", summary: "list the selected row ids"),
        .init(name: "open", usage: "open [ID]", summary: "drill down into a row's children (the cursor row by default)"),
        .init(name: "back", usage: "back", summary: "go back up one level"),
        .init(name: "action", usage: "action NAME [--yes] [--set FIELD=VALUE]...", summary: "run a plugin action; --yes confirms, --set fills its form"),
        .init(name: "row move", usage: "row move up|down", summary: "move the cursor row up or down (where the plugin allows it)"),
        .init(name: "expand", usage: "expand [ID]", summary: "expand or collapse a row in place (the cursor row by default)"),
        .init(name: "refresh", usage: "refresh", summary: "fetch the rows in view again (restarts a down plugin)"),
        .init(name: "export", usage: "export FILE [--format csv|json]", summary: "write every row of the current table in the current order"),
        .init(name: "copy", usage: "copy row|selection|cell [COL]|column [COL] [--format tsv|csv|json]", summary: "copy the cursor row, the selected rows, a cell or a column to the clipboard"),
        .init(name: "keys", usage: "keys", summary: "list the keys in force and the actions they run"),
        .init(name: "plugin", usage: "plugin status|restart|log [TAB]", summary: "plugin state, restart a plugin, or show its log"),
        .init(name: "restart", usage: "restart [TAB]", summary: "restart a plugin now, back where you were"),
        .init(name: "cancel", usage: "cancel", summary: "stop the running command (Esc in full screen, Ctrl-C in line mode)"),
        .init(name: "help", usage: "help [COMMAND]", summary: "list commands, or explain one"),
        .init(name: "mouse", usage: "mouse [on|off]", summary: "whether the screen takes the mouse (off: select text)"),
        .init(name: "quit", usage: "quit", summary: "leave Tabdeck"),
    ]

    /// The first words of every command, for suggestions and completion.
    public static let verbs: [String] = Array(Set(catalog.map { String($0.name.split(separator: " ")[0]) })).sorted()

    /// Splits a line into words: whitespace separates, "double" or 'single' quotes group, a
    /// backslash outside single quotes takes the next character as it is, `#` starts a comment.
    public static func words(_ line: String) throws(CommandError) -> [String] {
        try tokens(line).map(\.text)
    }

    /// One word of a command line, and whether any of it was quoted or escaped (a quoted
    /// `'clear'` is a value, never the keyword `clear`).
    struct Token: Hashable {
        var text: String
        var literal: Bool
    }

    static func tokens(_ line: String) throws(CommandError) -> [Token] {
        var words: [Token] = []
        var current = ""
        var inWord = false
        var literal = false
        var quote: Character?
        var escaped = false
        for ch in line {
            if escaped { current.append(ch); escaped = false; continue }
            if let q = quote {
                if ch == q { quote = nil } else if ch == "\\" && q == "\"" { escaped = true } else { current.append(ch) }
                continue
            }
            if ch == "\\" { escaped = true; inWord = true; literal = true; continue }
            if ch == "\"" || ch == "'" { quote = ch; inWord = true; literal = true; continue }
            if ch == "#" && !inWord { break }
            if ch.isWhitespace {
                if inWord { words.append(Token(text: current, literal: literal)); current = ""; inWord = false; literal = false }
                continue
            }
            current.append(ch); inWord = true
        }
        if quote != nil { throw CommandError("unterminated quote") }
        if escaped { throw CommandError("a backslash at the end of the line escapes nothing") }
        if inWord { words.append(Token(text: current, literal: literal)) }
        return words
    }

    /// Parses one line; nil for a blank or comment-only line.
    public static func parse(_ line: String) throws(CommandError) -> Command? {
        // SQL is taken as typed: its quotes and `#` are the engine's, not the command language's.
        let trimmed = line.drop { $0.isWhitespace }
        if trimmed.hasPrefix("sql"), trimmed.dropFirst(3).first.map({ $0.isWhitespace }) ?? true {
            return .sql(String(trimmed.dropFirst(3).drop { $0.isWhitespace }))
        }
        let tokens = try tokens(line)
        guard let verb = tokens.first?.text else { return nil }
        let rest = tokens.dropFirst().map(\.text)
        // Keywords are matched only where they were typed bare: a quoted `'clear'` is a value.
        let bare = tokens.dropFirst().map { $0.literal ? nil : $0.text }
        switch verb {
        case "tabs": try noArgs(rest, "tabs"); return .tabs
        case "tab": return try parseTab(rest)
        case "section": return try parseSection(rest)
        case "columns": try noArgs(rest, "columns"); return .columns
        case "column": return try parseColumn(rest)
        case "sort":
            if rest.isEmpty { return .sortShow }
            if bare == ["clear"] { return .sortClear }
            if rest.count > 2 { throw usage("sort") }
            var direction: SortDirection?
            if rest.count == 2 {
                guard let d = SortDirection(rawValue: rest[1]) ?? ["ascending": .ascending, "descending": .descending][rest[1]] else {
                    throw CommandError("sort direction must be asc or desc, not \"\(rest[1])\"",
                                       suggestion: suggest(rest[1], among: ["asc", "desc"]))
                }
                direction = d
            }
            return .sortBy(rest[0], direction)
        case "filter":
            if rest.isEmpty { return .filterShow }
            if bare == ["clear"] { return .filterSet(nil) }
            return .filterSet(rest.joined(separator: " "))
        case "describe": try noArgs(rest, "describe"); return .describe
        case "plot":
            guard (1...2).contains(rest.count) else { throw usage("plot") }
            return .plot(rest)
        case "freq":
            var columns: [String] = []
            var bins: Int?
            var i = 0
            while i < rest.count {
                if bare[i] == "--bins" || bare[i]?.hasPrefix("--bins=") == true {
                    let value: String
                    if bare[i] == "--bins" {
                        guard i + 1 < rest.count else { throw CommandError("--bins needs a number") }
                        value = rest[i + 1]; i += 1
                    } else {
                        value = String(rest[i].dropFirst("--bins=".count))
                    }
                    bins = try positive(value, "freq --bins")
                } else {
                    columns.append(rest[i])
                }
                i += 1
            }
            guard !columns.isEmpty else { throw usage("freq") }
            return .freq(columns, bins: bins)
        case "where":
            if rest.isEmpty { return .whereShow }
            if bare == ["clear"] { return .whereSet(nil) }
            return .whereSet(try WhereText.parse(afterVerb(line)))
        case "show":
            if rest.isEmpty { return .show(nil) }
            guard rest.count == 1 else { throw usage("show") }
            return .show(try positive(rest[0], "show"))
        case "goto":
            guard rest.count == 1 else { throw usage("goto") }
            return .goto(try positive(rest[0], "goto"))
        case "jump":
            guard !rest.isEmpty else { throw usage("jump") }
            return .jump(rest.joined(separator: " "))
        case "find":
            let backward = bare.first == "--back"
            let words = backward ? Array(rest.dropFirst()) : rest
            guard !words.isEmpty else { throw usage("find") }
            return .find(words.joined(separator: " "), backward: backward)
        case "page":
            guard rest.count == 1 else { throw usage("page") }
            guard let m = Command.PageMove(rawValue: rest[0]) else {
                throw CommandError("unknown page move \"\(rest[0])\"", suggestion: suggest(rest[0], among: Command.PageMove.allCases.map(\.rawValue)))
            }
            return .page(m)
        case "select":
            guard !rest.isEmpty else { throw usage("select") }
            if bare == ["all"] { return .selectAll }
            if bare == ["none"] { return .selectNone }
            return .select(rest)
        case "unselect":
            guard !rest.isEmpty else { throw usage("unselect") }
            return .unselect(rest)
        case "selection": try noArgs(rest, "selection"); return .selection
        case "open":
            guard rest.count <= 1 else { throw usage("open") }
            return .open(rest.first)
        case "back": try noArgs(rest, "back"); return .back
        case "action": return try parseAction(rest, bare: bare)
        case "row":
            guard rest.first == "move" else {
                if let s = rest.first { throw CommandError("unknown row command \"\(s)\"", suggestion: suggest(s, among: ["move"])) }
                throw usage("row move")
            }
            guard rest.count == 2, let how = Command.RowMove(rawValue: rest[1]) else { throw usage("row move") }
            return .rowMove(how)
        case "expand":
            guard rest.count <= 1 else { throw usage("expand") }
            return .expand(rest.first)
        case "refresh": try noArgs(rest, "refresh"); return .refresh
        case "export": return try parseExport(rest, bare: bare)
        case "copy": return try parseCopy(rest, bare: bare)
        case "keys": try noArgs(rest, "keys"); return .keys
        case "plugin":
            guard let v = rest.first, rest.count <= 2 else { throw usage("plugin") }
            guard let verb = Command.PluginVerb(rawValue: v) else {
                throw CommandError("unknown plugin command \"\(v)\"", suggestion: suggest(v, among: Command.PluginVerb.allCases.map(\.rawValue)))
            }
            return .plugin(verb, tab: rest.count == 2 ? rest[1] : nil)
        case "restart":
            guard rest.count <= 1 else { throw usage("restart") }
            return .plugin(.restart, tab: rest.first)  // `restart` is `plugin restart`
        case "cancel": try noArgs(rest, verb); return .cancel
        case "help":
            return .help(rest.isEmpty ? nil : rest.joined(separator: " "))
        case "mouse": return try parseMouse(rest)
        case "quit", "exit": try noArgs(rest, verb); return .quit
        default:
            throw CommandError("unknown command \"\(verb)\"", suggestion: suggest(verb, among: verbs))
        }
    }

    static func parseTab(_ w: [String]) throws(CommandError) -> Command {
        guard let sub = w.first else { throw CommandError("tab needs a subcommand: select, move, hide, show or reset") }
        let rest = Array(w.dropFirst())
        switch sub {
        case "select": guard rest.count == 1 else { throw usage("tab select") }; return .tabSelect(rest[0])
        case "hide": guard rest.count == 1 else { throw usage("tab hide") }; return .tabHide(rest[0])
        case "show": guard rest.count == 1 else { throw usage("tab show") }; return .tabShow(rest[0])
        case "reset": try noArgs(rest, "tab reset"); return .tabReset
        case "move":
            guard rest.count >= 3 else { throw usage("tab move") }
            let tab = rest[0]
            switch (rest[1], rest.count) {
            case ("to", 3): return .tabMove(tab, .toPosition(try positive(rest[2], "tab move")))
            case ("to", 4) where rest[2] == "section": return .tabMove(tab, .toSection(rest[3]))
            case ("before", 3): return .tabMove(tab, .before(rest[2]))
            case ("after", 3): return .tabMove(tab, .after(rest[2]))
            default: throw usage("tab move")
            }
        default:
            throw CommandError("unknown tab command \"\(sub)\"", suggestion: suggest(sub, among: ["select", "move", "hide", "show", "reset"]))
        }
    }

    static func parseSection(_ w: [String]) throws(CommandError) -> Command {
        guard w.count == 4, w[0] == "move", w[2] == "to" else {
            if let s = w.first, s != "move" { throw CommandError("unknown section command \"\(s)\"", suggestion: suggest(s, among: ["move"])) }
            throw usage("section move")
        }
        return .sectionMove(w[1], try positive(w[3], "section move"))
    }

    static func parseColumn(_ w: [String]) throws(CommandError) -> Command {
        guard let sub = w.first else { throw CommandError("column needs a subcommand: hide, show, move, width or reset") }
        let rest = Array(w.dropFirst())
        switch sub {
        case "hide": guard rest.count == 1 else { throw usage("column hide") }; return .columnHide(rest[0])
        case "show": guard rest.count == 1 else { throw usage("column show") }; return .columnShow(rest[0])
        case "move":
            guard rest.count == 3, rest[1] == "to" else { throw usage("column move") }
            return .columnMove(rest[0], try positive(rest[2], "column move"))
        case "width":
            guard rest.count == 2, let n = Int(rest[1]), n >= 0, n <= 1000 else { throw usage("column width") }
            return .columnWidth(rest[0], n)
        case "reset": try noArgs(rest, "column reset"); return .columnReset
        default:
            throw CommandError("unknown column command \"\(sub)\"", suggestion: suggest(sub, among: ["hide", "show", "move", "width", "reset"]))
        }
    }

    static func parseExport(_ w: [String], bare: [String?]) throws(CommandError) -> Command {
        var path: String?
        var format: Command.ExportFormat?
        var i = 0
        while i < w.count {
            if let word = bare[i], word == "--format" || word.hasPrefix("--format=") {
                let value: String
                if w[i] == "--format" {
                    guard i + 1 < w.count else { throw usage("export") }
                    value = w[i + 1]; i += 1
                } else { value = String(w[i].dropFirst("--format=".count)) }
                guard let f = Command.ExportFormat(rawValue: value) else {
                    throw CommandError("unknown export format \"\(value)\"", suggestion: suggest(value, among: ["csv", "json"]))
                }
                format = f
            } else if path == nil {
                path = w[i]
            } else { throw usage("export") }
            i += 1
        }
        guard let path else { throw usage("export") }
        return .export(path: path, format: format)
    }

    /// The raw text after the first word of `line` (the verb).
    static func afterVerb(_ line: String) -> String {
        let trimmed = line.drop { $0.isWhitespace }
        return String(trimmed.drop { !$0.isWhitespace })
    }

    static func noArgs(_ rest: [String], _ name: String) throws(CommandError) {
        if !rest.isEmpty { throw CommandError("\(name) takes no arguments; usage: \(name)") }
    }

    static func positive(_ s: String, _ name: String) throws(CommandError) -> Int {
        guard let n = Int(String(s.filter { $0 != "," && $0 != "_" })), n >= 1 else {
            throw CommandError("\(name): expected a positive number, got \"\(s)\"")
        }
        return n
    }

    static func usage(_ name: String) -> CommandError {
        let info = catalog.first { $0.name == name }
        return CommandError("usage: \(info?.usage ?? name)")
    }

    /// The closest candidate to `word` (edit distance at most 2, or a unique prefix), quoted.
    public static func suggest(_ word: String, among candidates: [String]) -> String? {
        let lower = word.lowercased()
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(lower) }
        if prefixed.count == 1 { return "\"\(prefixed[0])\"" }
        let scored = candidates.map { ($0, editDistance(lower, $0.lowercased())) }.filter { $0.1 <= max(1, min(2, word.count / 3 + 1)) }
        // Equally close candidates: the one that shares the longer start with the word wins
        // ("dsc" is "desc", not "asc").
        guard let best = scored.min(by: { ($0.1, -commonPrefix(lower, $0.0.lowercased())) < ($1.1, -commonPrefix(lower, $1.0.lowercased())) })
        else { return nil }
        return "\"\(best.0)\""
    }

    /// The number of leading characters `a` and `b` share.
    static func commonPrefix(_ a: String, _ b: String) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }

    /// Edit distance counting an adjacent transposition as one edit (optimal string alignment).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
