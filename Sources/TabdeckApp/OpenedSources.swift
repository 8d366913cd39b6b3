import Foundation
import TabdeckCore
import TabdeckProtocol
import TabdeckSources

/// The sources named on the command line (`tabdeck FILE FOLDER postgresql://...`) made into
/// tabs: each file is recognised by its content (``Recognition``) and given to the plugin that
/// reads it, found under `Plugins/` of the folder Tabdeck runs from (``Locations/pluginRoot(executableDirectory:)``).
/// A source that cannot open (not there, not a table, no plugin for it) becomes a tab that says
/// why (``TabConfig/unavailable``); the others go on.
public enum OpenedSources {
    /// The tabs for `arguments` as typed, relative paths taken from `currentDirectory`.
    /// `pluginRoot`: the folder holding `Plugins/` (nil: not found).
    public static func tabs(_ arguments: [String], currentDirectory: String, pluginRoot: String?) -> [TabConfig] {
        arguments.map { tab(for: $0, currentDirectory: currentDirectory, pluginRoot: pluginRoot) }
    }

    /// The id of the tab that reads standard input (`cmd | tabdeck`, `tabdeck -`).
    public static let standardInputID = "stdin"

    /// The tab that reads standard input: the pipe plugin, given the data as its descriptor 3
    /// (``Runtime/dataDescriptors``, ``StandardInputData``).
    public static func standardInput(pluginRoot: String?) -> TabConfig {
        let name = SourceName(id: standardInputID, title: "stdin")
        guard let root = pluginRoot else { return failed(name, noPlugins("-")) }
        return TabConfig(id: name.id, title: name.title, command: [root + "/Plugins/pipe/tabdeck-pipe"],
                         args: ["fd": 3, "title": "stdin"])
    }

    static func tab(for argument: String, currentDirectory: String, pluginRoot: String?) -> TabConfig {
        let shown = Sanitizer.clean(argument)
        if let url = PostgresURL(argument) {
            let name = SourceName(id: Sanitizer.clean(url.url), title: Sanitizer.clean(url.title))
            guard let root = pluginRoot else { return failed(name, noPlugins(shown)) }
            var env: [String: String] = [:]
            if let password = url.password { env["PGPASSWORD"] = password }
            return TabConfig(id: name.id, title: name.title, command: [root + "/Plugins/postgres/tabdeck-postgres"],
                             args: ["url": .string(url.url)], env: env)
        }
        let absolute = Locations.absolute(argument, currentDirectory)
        var info = stat()
        guard stat(absolute, &info) == 0 else {
            let reason = errno == ENOENT ? "no such file or folder" : String(cString: strerror(errno))
            return failed(.path(Sanitizer.clean(absolute)), "\(shown): \(reason)")
        }
        let canonical = realpath(absolute, nil).map { p in defer { free(p) }; return String(cString: p) } ?? absolute
        let name = SourceName.path(canonical)
        let cleanName = SourceName(id: Sanitizer.clean(name.id), title: Sanitizer.clean(name.title))
        guard let root = pluginRoot else { return failed(cleanName, noPlugins(shown)) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            return TabConfig(id: cleanName.id, title: cleanName.title, command: ["python3", root + "/Plugins/files/files.py"],
                             args: ["path": .string(canonical)])
        case S_IFREG: break
        default: return failed(cleanName, "\(shown): not a table (not a regular file: a device, pipe or socket)")
        }
        let head: [UInt8]
        do { head = try readHead(canonical) } catch {
            return failed(cleanName, "\(shown): cannot read: \(error.reason)")
        }
        let format = Recognition.recognize(head: head, size: Int(info.st_size), name: canonical)
        switch route(format, path: canonical, root: root, shown: shown) {
        case .success(let (command, args)):
            return TabConfig(id: cleanName.id, title: cleanName.title, command: command, args: args)
        case .failure(let reason):
            return failed(cleanName, reason.message)
        }
    }

    /// The plugin for a recognised file: its command and `open` args.
    static func route(_ format: SourceFormat, path: String, root: String, shown: String) -> Result<([String], JSONValue), Unopenable> {
        switch format {
        case .notATable(let what):
            return .failure(Unopenable(message: what.message(name: shown)))
        case .delimited(let kind):
            var args: JSONObject = ["path": .string(path)]
            if kind == .tsv { args["delimiter"] = "tab" }
            return .success(([root + "/Plugins/csv/tabdeck-csv"], .object(args)))
        case .sqlite:
            return .success(([root + "/Plugins/sqlite/tabdeck-sqlite"], ["path": .string(path)]))
        case .parquet, .jsonLines, .json, .arrow, .xlsx, .compressed:
            let plugin = root + "/Plugins/duckdb/tabdeck-duckdb"
            guard FileManager.default.isExecutableFile(atPath: plugin) else {
                return .failure(Unopenable(message: "\(shown): \(describe(format)); reading it needs the DuckDB plugin (\(plugin)), which is not installed"))
            }
            var args: JSONObject = ["path": .string(path)]
            if let f = format.duckdbFormat { args["format"] = .string(f) }
            return .success(([plugin], .object(args)))
        }
    }

    struct Unopenable: Error { var message: String }

    /// A format in words, for messages.
    static func describe(_ format: SourceFormat) -> String {
        switch format {
        case .delimited(let d): d == .tsv ? "a TSV file" : "a CSV file"
        case .sqlite: "an SQLite database"
        case .parquet: "a Parquet file"
        case .jsonLines: "a JSON-lines file"
        case .json: "a JSON file"
        case .arrow: "an Arrow IPC file"
        case .xlsx: "an Excel workbook"
        case .compressed(let c, _): "a \(c.rawValue)-compressed file"
        case .notATable: "not a table"
        }
    }

    static func failed(_ name: SourceName, _ reason: String) -> TabConfig {
        TabConfig(id: name.id, title: name.title, command: [], unavailable: reason)
    }

    static func noPlugins(_ shown: String) -> String {
        "\(shown): cannot find Tabdeck's plugins (a Plugins folder beside or above \(Runtime.executableDirectory ?? "the tabdeck executable"))"
    }

    struct ReadError: Error { var reason: String }

    /// The file's first ``Recognition/headSize`` bytes (fewer if it is shorter).
    static func readHead(_ path: String) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Recognition.headSize)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ReadError(reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            filled += n
        }
        return Array(bytes[..<filled])
    }
}
