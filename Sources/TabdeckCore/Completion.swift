/// What the prompt can complete at the cursor.
public enum CompletionCandidates: Equatable, Sendable {
    /// These words (already filtered by the word being typed).
    case words([String])
    /// A file path: let the line editor complete file names.
    case path
}

extension Workspace {
    /// Completion for the command line `line` (the text before the cursor): command names,
    /// then tab ids, section ids, column ids, action names or file paths, as the command expects.
    public func completions(for line: String) -> CompletionCandidates {
        let words = (try? CommandParser.words(line)) ?? line.split(separator: " ").map(String.init)
        let endsWithSpace = line.last.map { $0 == " " } ?? true
        let done = endsWithSpace ? words : Array(words.dropLast())
        let partial = endsWithSpace ? "" : (words.last ?? "")
        func match(_ options: [String]) -> CompletionCandidates {
            var seen = Set<String>()
            return .words(options.filter { $0.hasPrefix(partial) && seen.insert($0).inserted })
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
        case ("sql", _):
            // The names the query can read: `root`, the other file tabs (a DuckDB tab), the columns.
            guard let tab = layout.selected, self.tabs[tab]?.capabilities?.query == true else { return .words([]) }
            let others = QuerySources.sources(for: tab, in: config).map(\.name)
            return match((others.isEmpty ? [] : ["root"]) + others + columns)
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
