import TabdeckProtocol

/// The files of other tabs that a DuckDB tab's `sql` can read as views (PROTOCOL.md 11.14
/// `sources`), each under a SQL-safe name made from its file name. Pure: from the config alone.
public enum QuerySources {
    /// Program names (the last part of a command's path) of the plugins involved.
    static let duckdbPrograms: Set<String> = ["tabdeck-duckdb", "tabdeck_duckdb.py"]
    static let csvPrograms: Set<String> = ["tabdeck-csv"]

    /// Whether the tab's plugin is the DuckDB plugin (a local one: it reads the files).
    public static func isDuckDB(_ tab: TabConfig) -> Bool {
        tab.remote == nil && tab.unavailable == nil && tab.command.contains { duckdbPrograms.contains(lastPart($0)) }
    }

    /// The file a tab shows that DuckDB can read, absolute: `args.path` of a DuckDB or CSV tab on
    /// this machine (relative paths against the config folder; `~` paths are left out).
    public static func file(of tab: TabConfig, directory: String) -> String? {
        guard tab.remote == nil, tab.unavailable == nil,
              tab.command.contains(where: { duckdbPrograms.contains(lastPart($0)) || csvPrograms.contains(lastPart($0)) }),
              let path = tab.args["path"]?.stringValue, !path.isEmpty, !path.hasPrefix("~") else { return nil }
        if path.hasPrefix("/") { return path }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return base + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Every file tab of `config` in config order, with its name: the names are unique and
    /// never `root`, and the same whichever tab asks.
    public static func named(_ config: WorkspaceConfig) -> [(tab: String, source: QuerySource)] {
        var taken: Set<String> = ["root"]
        var out: [(tab: String, source: QuerySource)] = []
        for tab in config.tabs {
            guard let path = file(of: tab, directory: config.directory) else { continue }
            let name = unique(sqlName(path), taken: taken)
            taken.insert(name)
            out.append((tab.id, QuerySource(name: name, path: path)))
        }
        return out
    }

    /// The sources a `query` from tab `tab` carries: the other tabs' files, when `tab` is a
    /// DuckDB tab (the only plugin that reads files); none otherwise.
    public static func sources(for tab: String, in config: WorkspaceConfig) -> [QuerySource] {
        guard let me = config.tab(tab), isDuckDB(me) else { return [] }
        return named(config).filter { $0.tab != tab }.map(\.source)
    }

    /// A SQL-safe name for a file: its name up to the first `.`, lower-case, every character
    /// but ASCII letters, digits and `_` made `_` (as the DuckDB plugin names its own file);
    /// a leading digit gets `t_`, an empty name is `t`. `Sales 2024.csv` → `sales_2024`.
    public static func sqlName(_ path: String) -> String {
        let file = lastPart(path)
        let stem = file.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? file
        var name = ""
        for s in stem.unicodeScalars {
            switch s {
            case "a"..."z", "0"..."9", "_": name.unicodeScalars.append(s)
            case "A"..."Z": name.unicodeScalars.append(Unicode.Scalar(s.value + 32)!)
            default: name += "_"
            }
        }
        if name.isEmpty { return "t" }
        if ("0"..."9").contains(name.unicodeScalars.first!) { return "t_" + name }
        return name
    }

    /// `name`, or `name_2`, `name_3`, ... : the first not in `taken`.
    static func unique(_ name: String, taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        var n = 2
        while taken.contains("\(name)_\(n)") { n += 1 }
        return "\(name)_\(n)"
    }

    static func lastPart(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }
}
