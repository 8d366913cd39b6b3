import TabdeckProtocol

extension Command {
    /// The command as a line of the command language that ``CommandParser/parse(_:)`` reads
    /// back as this same command: words that need it are quoted (ids and values with spaces,
    /// quotes, backslashes, `#`, or that look like a keyword). History, messages about a command
    /// ("busy: still running …") and the fuzz round trip use it; keys never go through it.
    public var text: String {
        switch self {
        case .tabs: "tabs"
        case .tabSelect(let t): "tab select \(Self.word(t))"
        case .tabMove(let t, let move):
            switch move {
            case .toPosition(let n): "tab move \(Self.word(t)) to \(n)"
            case .before(let o): "tab move \(Self.word(t)) before \(Self.word(o))"
            case .after(let o): "tab move \(Self.word(t)) after \(Self.word(o))"
            case .toSection(let s): "tab move \(Self.word(t)) to section \(Self.word(s))"
            }
        case .tabHide(let t): "tab hide \(Self.word(t))"
        case .tabShow(let t): "tab show \(Self.word(t))"
        case .tabReset: "tab reset"
        case .sectionMove(let s, let n): "section move \(Self.word(s)) to \(n)"
        case .columns: "columns"
        case .columnHide(let c): "column hide \(Self.word(c))"
        case .columnShow(let c): "column show \(Self.word(c))"
        case .columnMove(let c, let n): "column move \(Self.word(c)) to \(n)"
        case .columnWidth(let c, let n): "column width \(Self.word(c)) \(n)"
        case .columnReset: "column reset"
        case .sortShow: "sort"
        case .sortBy(let c, let d): "sort \(Self.word(c))" + (d.map { " " + $0.rawValue } ?? "")
        case .sortClear: "sort clear"
        case .filterShow: "filter"
        case .filterSet(let text): text.map { "filter \(Self.word($0))" } ?? "filter clear"
        case .freq(let columns, let bins): "freq " + columns.map { Self.word($0) }.joined(separator: " ") + (bins.map { " --bins \($0)" } ?? "")
        case .describe: "describe"
        case .plot(let columns): "plot " + columns.map { Self.word($0) }.joined(separator: " ")
        case .sql(let query): "sql " + query
        case .whereShow: "where"
        case .whereSet(let terms): terms.map { "where " + Self.whereText($0) } ?? "where clear"
        case .show(let n): n.map { "show \($0)" } ?? "show"
        case .goto(let n): "goto \(n)"
        case .page(let m): "page \(m.rawValue)"
        case .jump(let s): "jump \(Self.word(s))"
        case .find(let t, let backward): "find " + (backward ? "--back " : "") + Self.word(t)
        case .select(let ids): "select " + ids.map(Self.word).joined(separator: " ")
        case .selectAll: "select all"
        case .selectNone: "select none"
        case .unselect(let ids): "unselect " + ids.map(Self.word).joined(separator: " ")
        case .selection: "selection"
        case .open(let id): id.map { "open \(Self.word($0))" } ?? "open"
        case .back: "back"
        case .action(let name, let confirmed, let input):
            "action \(Self.word(name))" + (confirmed ? " --yes" : "")
                + input.sorted { $0.key < $1.key }.map { " --set " + Self.word($0.key + "=" + $0.value) }.joined()
        case .rowMove(let how): "row move \(how.rawValue)"
        case .expand(let id): id.map { "expand \(Self.word($0))" } ?? "expand"
        case .refresh: "refresh"
        case .export(let path, let format): "export \(Self.word(path))" + (format.map { " --format \($0.rawValue)" } ?? "")
        case .copy(let what, let column, let format):
            "copy \(what.rawValue)" + (column.map { " " + Self.word($0) } ?? "") + (format.map { " --format \($0.rawValue)" } ?? "")
        case .keys: "keys"
        case .plugin(let verb, let tab): "plugin \(verb.rawValue)" + (tab.map { " " + Self.word($0) } ?? "")
        case .cancel: "cancel"
        case .help(let topic):
            // Every space is a word break (empty words written `''`), so spaces at the ends and
            // runs of them come back (found by the `command` fuzz target).
            topic.map { "help " + $0.split(separator: " ", omittingEmptySubsequences: false).map { Self.word(String($0)) }.joined(separator: " ") } ?? "help"
        case .mouse(let on): on.map { "mouse " + ($0 ? "on" : "off") } ?? "mouse"
        case .quit: "quit"
        }
    }

    /// `word` as one word of a command line: bare when it reads back as itself and is no
    /// keyword, else in single quotes, or in double quotes with `\` before `"` and `\` when it
    /// holds a single quote.
    /// `where`'s conditions as typed, so that they read back the same (a quoted literal stays
    /// quoted: `'true'` is text, `true` a boolean).
    static func whereText(_ terms: [WhereTerm]) -> String {
        func quoted(_ w: String) -> String {
            if !w.contains("'") { return "'" + w + "'" }
            var out = "\""
            for ch in w {
                if ch == "\"" || ch == "\\" { out.append("\\") }
                out.append(ch)
            }
            return out + "\""
        }
        func column(_ w: String) -> String {
            let keywords: Set<String> = ["and", "between", "in", "is", "not", "null", "clear"]
            let plain = !w.isEmpty && !keywords.contains(w.lowercased()) && w.allSatisfy {
                !$0.isWhitespace && !WhereText.symbolChars.contains($0) && $0 != "'" && $0 != "\"" && $0 != "\\" && $0 != "#"
            }
            return plain ? w : quoted(w)
        }
        func literal(_ l: WhereTerm.Literal) -> String { l.quoted ? quoted(l.text) : l.text }
        return terms.map { t in
            let c = column(t.column)
            switch t.op {
            case .null: return "\(c) is null"
            case .notNull: return "\(c) is not null"
            case .between: return "\(c) between \(literal(t.literals[0])) and \(literal(t.literals[1]))"
            case .in: return "\(c) in (\(t.literals.map(literal).joined(separator: ", ")))"
            default: return "\(c) \(t.op.rawValue) \(literal(t.literals[0]))"
            }
        }.joined(separator: " and ")
    }

    static func word(_ word: String) -> String {
        let keywords: Set<String> = ["clear", "all", "none", "--yes", "--back", "--format", "--set", "--bins"]
        let plain = !word.isEmpty && !keywords.contains(word) && !word.hasPrefix("--format=") && !word.hasPrefix("--bins=") && word.allSatisfy {
            !$0.isWhitespace && $0 != "\"" && $0 != "'" && $0 != "\\" && $0 != "#"
        }
        if plain { return word }
        if !word.contains("'") { return "'" + word + "'" }
        var out = "\""
        for ch in word {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out + "\""
    }
}
