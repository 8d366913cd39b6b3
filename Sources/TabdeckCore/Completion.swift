import TabdeckProtocol

/// What the prompt can complete at the cursor.
public enum CompletionCandidates: Equatable, Sendable {
    /// These words (already filtered by the word being typed).
    case words([String])
    /// A file path: let the line editor complete file names.
    case path
}

extension Workspace {
    /// Whether `word` completes `partial`: it starts with it, in any case (`Na` completes `name`;
    /// the line editor then writes the word as it is spelled).
    static func completes(_ word: String, _ partial: String) -> Bool {
        partial.isEmpty || word.lowercased().hasPrefix(partial.lowercased())
    }

    /// Completion for the command line `line` (the text before the cursor): command names,
    /// then tab ids, section ids, column ids, action names or file paths, as the command expects.
    public func completions(for line: String) -> CompletionCandidates {
        if let sql = Self.sqlText(line) { return sqlCompletions(sql) }
        let words = (try? CommandParser.words(line)) ?? line.split(separator: " ").map(String.init)
        let endsWithSpace = line.last.map { $0 == " " } ?? true
        let done = endsWithSpace ? words : Array(words.dropLast())
        let partial = endsWithSpace ? "" : (words.last ?? "")
        func match(_ options: [String]) -> CompletionCandidates {
            var seen = Set<String>()
            return .words(options.filter { Self.completes($0, partial) && seen.insert($0).inserted })
        }
        let tabIDs = layout.orderedTabs
        let sections = layout.sections
        let table = layout.selected.flatMap { self.tabs[$0]?.table }
        let columns = table?.description.columns.map(\.id) ?? []
        guard let verb = done.first else { return match(CommandParser.verbs) }
        let args = Array(done.dropFirst())
        switch (verb, args.count) {
        case ("tab", 0): return match(["select", "move", "hide", "show", "reset"])
        case ("tab", 1) where ["select", "move", "hide", "show"].contains(args[0]): return match(tabIDs)
        case ("tab", 2) where args[0] == "move": return match(["to", "before", "after"])
        case ("tab", 3) where args[0] == "move" && args[2] == "to": return match(["section"])
        case ("tab", 3) where args[0] == "move": return match(tabIDs)
        case ("tab", 4) where args[0] == "move" && args[3] == "section": return match(sections)
        case ("section", 0): return match(["move"])
        case ("section", 1): return match(sections)
        case ("section", 2): return match(["to"])
        case ("column", 0): return match(["hide", "show", "move", "width", "reset"])
        case ("column", 1): return match(columns)
        case ("column", 2) where args[0] == "move": return match(["to"])
        case ("sort", 0):
            let sortable: [String] = table?.description.columns.filter(\.sortable).map(\.id) ?? []
            return match(sortable + ["clear"])
        case ("sort", 1) where args[0] != "clear": return match(["asc", "desc"])
        case ("page", 0): return match(Command.PageMove.allCases.map(\.rawValue))
        case ("jump", 0): return match(table?.sections.filter { $0.count != 0 }.map(\.title) ?? [])
        case ("select", 0): return match(["all", "none"])
        case ("action", 0): return match(table?.description.actions.map(\.id) ?? [])
        case ("action", _) where args.last == "--set":
            let action = table?.description.actions.first { $0.id == args[0] }
            return match(action?.input.map { $0.id + "=" } ?? [])
        case ("action", _): return match(["--yes", "--set"])
        case ("row", 0): return match(["move"])
        case ("row", 1): return match(Command.RowMove.allCases.map(\.rawValue))
        case ("export", _) where args.last == "--format": return match(["csv", "json"])
        case ("export", 0): return .path
        case ("export", 1): return match(["--format"])
        case ("copy", _) where args.last == "--format": return match(Command.CopyFormat.allCases.map(\.rawValue))
        case ("copy", 0): return match(Command.CopyTarget.allCases.map(\.rawValue))
        case ("copy", 1) where args[0] == "cell" || args[0] == "column": return match(columns + ["--format"])
        case ("copy", _): return match(["--format"])
        case ("plugin", 0): return match(Command.PluginVerb.allCases.map(\.rawValue))
        case ("plugin", 1): return match(tabIDs)
        case ("help", _): return match(helpWords(after: args))
        case ("mouse", 0): return match(["on", "off"])
        case ("where", 0): return match(columns + ["clear"])
        case ("where", _) where args.first != "clear": return match(Self.whereNext(args, columns: columns))
        case ("freq", _) where args.last == "--bins": return .words([])
        case ("freq", _): return match(columns.filter { !args.contains($0) } + ["--bins"])
        case ("plot", 0...1):
            let plottable = table?.description.columns.filter { [.integer, .decimal, .date].contains($0.type) }.map(\.id) ?? []
            return match(plottable.filter { !args.contains($0) })
        default: return .words([])
        }
    }

    /// The next word of command names that start with `args` (`help tab ` → select, move, ...).
    private func helpWords(after args: [String]) -> [String] {
        var out: [String] = []
        for info in CommandParser.catalog {
            let parts = info.name.split(separator: " ").map(String.init)
            guard parts.count > args.count, Array(parts.prefix(args.count)) == args else { continue }
            out.append(parts[args.count])
        }
        return out
    }
}

extension Workspace {
    /// Characters that end a word of SQL for completion (readline breaks words at them too:
    /// ``LineEditor``).
    public static let sqlWordBreaks: Set<Character> = [" ", "\t", "\n", "\"", "'", "`", "@", "$", ">", "<", "=", ";", "|", "&", "{", "(", ",", ")"]

    /// The SQL after `sql ` (nil for any other command).
    static func sqlText(_ line: String) -> Substring? {
        let trimmed = line.drop { $0.isWhitespace }
        guard trimmed.hasPrefix("sql"), let after = trimmed.dropFirst(3).first, after.isWhitespace else { return nil }
        return trimmed.dropFirst(4)
    }

    /// After `sql`: the names the tab's plugin reads tables by (``TableDescription/sqlNames`` of
    /// every level of the tab, then the other file tabs of a DuckDB tab: ``QuerySources``), the
    /// current table's columns, and a few keywords.
    func sqlCompletions(_ sql: Substring) -> CompletionCandidates {
        let partial = String(sql.reversed().prefix { !Self.sqlWordBreaks.contains($0) }.reversed())
        let tab = layout.selected.flatMap { tabs[$0] }
        // A DuckDB tab also reads the other file tabs, by the names the host gives them.
        let others = layout.selected.map { QuerySources.sources(for: $0, in: config).map(\.name) } ?? []
        let names = (tab?.stack.flatMap(\.description.sqlNames) ?? []) + others
        let columns = tab?.table?.description.columns.map(\.id) ?? []
        let keywords = ["select", "from", "where", "group", "by", "order", "having", "limit", "join", "on", "and", "or",
                        "not", "null", "is", "count", "sum", "avg", "min", "max", "distinct", "as", "desc", "asc"]
        var seen = Set<String>()
        let lowered = partial.lowercased()
        // Keywords in the case the word is typed in (`GR` → `GROUP`).
        let upper = partial.first?.isUppercase == true
        return .words((names + columns).filter { Self.completes($0, partial) && seen.insert($0).inserted }
            + keywords.filter { !partial.isEmpty && $0.hasPrefix(lowered) }.map { upper ? $0.uppercased() : $0 }
            .filter { seen.insert($0).inserted })
    }

    /// What may come next in a `where` expression after `args`: a column at the start and after
    /// `and`, an operator after a column, `null`/`not` after `is`, `and` after a value (and
    /// inside `between A and B`); nothing where a value is typed.
    static func whereNext(_ args: [String], columns: [String]) -> [String] {
        enum Expect { case column, op, value, inList, betweenLow, betweenAnd, betweenHigh, isWhat, isNotNull, and }
        let ops = WhereOperator.allCases.map(\.rawValue).filter { $0 != "null" && $0 != "notNull" } + ["is"]
        var expect = Expect.column
        for word in args {
            switch expect {
            case .column: expect = .op
            case .op:
                switch word {
                case "between": expect = .betweenLow
                case "is": expect = .isWhat
                case "in": expect = word.hasSuffix(")") ? .and : .inList
                default: expect = .value
                }
            case .value, .betweenHigh, .isNotNull: expect = .and
            case .inList: if word.hasSuffix(")") { expect = .and }
            case .betweenLow: expect = .betweenAnd
            case .betweenAnd: expect = .betweenHigh
            case .isWhat: expect = word == "not" ? .isNotNull : .and
            case .and: expect = .column
            }
        }
        switch expect {
        case .column: return columns
        case .op: return ops
        case .isWhat: return ["null", "not"]
        case .isNotNull: return ["null"]
        case .and, .betweenAnd: return ["and"]
        case .value, .inList, .betweenLow, .betweenHigh: return []
        }
    }
}
