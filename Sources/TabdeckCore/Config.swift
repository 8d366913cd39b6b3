import TabdeckProtocol

/// A section of tabs, from config.json.
public struct SectionConfig: Hashable, Sendable {
    public var id: String
    public var title: String
    public init(id: String, title: String) { self.id = id; self.title = title }
}

/// A tab, from config.json: what it is called and which plugin fills it.
public struct TabConfig: Hashable, Sendable {
    public var id: String
    public var title: String
    public var glyph: String?
    public var section: String?
    /// The plugin's argv; a relative program path is already resolved against the config folder.
    public var command: [String]
    /// Passed to the plugin's `open` as `args`.
    public var args: JSONValue
    public var customizable: Bool
    /// Start the plugin at launch so its badge is live.
    public var background: Bool
    public var env: [String: String]
    /// Write this tab's protocol traffic to the trace file.
    public var trace: Bool
    /// Run the plugin on another host over ssh (`"remote"`); nil: on this machine. A remote
    /// `command` is taken as written: it names a program on that host.
    public var remote: RemoteConfig?
    /// The most seconds one request to the plugin may run, progress or not (`"requestLimit"`):
    /// then it fails and is cancelled (PROTOCOL.md 5).
    public var requestLimit: Double
    /// Why this tab cannot open at all (a source on the command line that is not a table, or
    /// not there): shown in the tab and given as every command's error; no plugin starts.
    public var unavailable: String?

    /// The default ``requestLimit``: 30 minutes.
    public static let defaultRequestLimit = 1800.0

    public init(id: String, title: String, glyph: String? = nil, section: String? = nil, command: [String],
                args: JSONValue = [:], customizable: Bool = true, background: Bool = false,
                env: [String: String] = [:], trace: Bool = false, remote: RemoteConfig? = nil,
                requestLimit: Double = TabConfig.defaultRequestLimit, unavailable: String? = nil) {
        self.id = id; self.title = title; self.glyph = glyph; self.section = section; self.command = command
        self.args = args; self.customizable = customizable; self.background = background; self.env = env; self.trace = trace
        self.remote = remote; self.requestLimit = requestLimit; self.unavailable = unavailable
    }
}

/// The workspace as configured: sections and tabs in config order.
public struct WorkspaceConfig: Hashable, Sendable {
    /// The config file's path, for messages.
    public var file: String
    /// The folder plugins run in and relative paths resolve against.
    public var directory: String
    public var sections: [SectionConfig]
    public var tabs: [TabConfig]
    /// Key bindings of one's own (`"keys"`), in file order.
    public var keys: [KeyConfig]
    /// The full screen takes the mouse (`"mouse"`, default true); false leaves it to the
    /// terminal, which then selects text.
    public var mouse = true
    /// The ssh client's argv for remote tabs (`"ssh"`, default `["ssh"]`): options such as
    /// `-F FILE` go here; a relative program path resolves against the config folder.
    public var ssh: [String] = ["ssh"]
    /// How big each plugin's log grows before it is rotated, and how many older logs are kept
    /// (`"logs": {"maxBytes": N, "files": K}`, default 10 MiB and 3).
    public var logMaxBytes = 10 << 20
    public var logFiles = 3
    /// The tabs opened from the command line (`tabdeck FILE...`), in order: they come first,
    /// the first is selected, and they are never written into the saved layout.
    public private(set) var opened: [String] = []
    /// The section they are in when config.json has tabs of its own ("Opened"); nil otherwise.
    public private(set) var openedSection: String?

    public init(file: String, directory: String, sections: [SectionConfig], tabs: [TabConfig], keys: [KeyConfig] = [],
                mouse: Bool = true, ssh: [String] = ["ssh"]) {
        self.file = file; self.directory = directory; self.sections = sections; self.tabs = tabs; self.keys = keys
        self.mouse = mouse; self.ssh = ssh
    }

    /// The tab with this id.
    public func tab(_ id: String) -> TabConfig? { tabs.first { $0.id == id } }
    /// The section with this id.
    public func section(_ id: String) -> SectionConfig? { sections.first { $0.id == id } }

    /// A workspace of no config file (sources given, none found): tabs run in `directory`.
    public static func empty(directory: String) -> WorkspaceConfig {
        WorkspaceConfig(file: "", directory: directory, sections: [], tabs: [])
    }

    /// This config with `tabs` opened from the command line before its own: in an "Opened"
    /// section when the config has tabs (its id made unique), else without a section. A tab
    /// whose id is already here (the same source twice, or a config tab of that id) is left out.
    public func opening(_ tabs: [TabConfig]) -> WorkspaceConfig {
        var copy = self
        var added: [TabConfig] = []
        for tab in tabs where self.tab(tab.id) == nil && !added.contains(where: { $0.id == tab.id }) { added.append(tab) }
        guard !added.isEmpty else { return copy }
        if !self.tabs.isEmpty {
            var id = "opened", n = 1
            while section(id) != nil { n += 1; id = "opened-\(n)" }
            copy.sections.insert(SectionConfig(id: id, title: "Opened"), at: 0)
            copy.openedSection = id
        }
        for i in added.indices { added[i].section = copy.openedSection }
        copy.tabs = added + self.tabs
        copy.opened = added.map(\.id)
        return copy
    }

    /// The config without its opened tabs and their section: what the saved layout merges with.
    public var withoutOpened: WorkspaceConfig {
        var copy = self
        copy.tabs.removeAll { opened.contains($0.id) }
        if let openedSection { copy.sections.removeAll { $0.id == openedSection } }
        copy.opened = []
        copy.openedSection = nil
        return copy
    }
}

/// What is wrong with a config file, and where.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// The JSON path (`tabs[2].command`), empty for whole-file problems.
    public var path: String
    /// Line and column for invalid JSON.
    public var line: Int?
    public var column: Int?
    public var reason: String

    public init(file: String, path: String = "", line: Int? = nil, column: Int? = nil, reason: String) {
        self.file = file; self.path = path; self.line = line; self.column = column; self.reason = reason
    }

    /// The error as one line, with every character from the file made visible (a key quoted in
    /// the reason may hold an escape sequence: found by the `config` fuzz target).
    public var description: String {
        var place = Sanitizer.clean(file)
        if let line, let column { place += ":\(line):\(column)" }
        if !path.isEmpty { place += ": \(Sanitizer.clean(path))" }
        return "\(place): \(Sanitizer.clean(reason))"
    }
}

extension WorkspaceConfig {
    static let rootKeys: Set<String> = ["sections", "tabs", "mouse", "$schema", "comment", "keys", "ssh", "logs"]
    static let sectionKeys: Set<String> = ["id", "title"]
    static let tabKeys: Set<String> = ["id", "title", "glyph", "section", "command", "args", "customizable", "background", "env", "trace", "remote", "requestLimit"]
    static let remoteKeys: Set<String> = ["host", "directory"]

    /// Parses config.json. `file` names it in errors; `directory` is where relative paths resolve.
    public static func parse(_ bytes: [UInt8], file: String, directory: String) throws(ConfigError) -> WorkspaceConfig {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, reason: "invalid JSON: \(error.reason)")
        }
        do { return try build(root, file: file, directory: directory) } catch let e as JSONFieldError {
            throw ConfigError(file: file, path: e.path, reason: e.reason)
        } catch let e as ConfigError {
            throw e
        } catch {
            throw ConfigError(file: file, reason: "\(error)")
        }
    }

    private static func build(_ root: JSONValue, file: String, directory: String) throws -> WorkspaceConfig {
        let r = try JSONReader(root)
        try r.rejectUnknownKeys(rootKeys)
        var sections: [SectionConfig] = []
        for s in try r.optionalObjects("sections") {
            try s.rejectUnknownKeys(sectionKeys)
            let id = try identifier(s, "id")
            if sections.contains(where: { $0.id == id }) {
                throw JSONFieldError(path: s.pathOf("id"), reason: "duplicate section id \"\(id)\"")
            }
            sections.append(SectionConfig(id: id, title: try s.optionalString("title") ?? id))
        }
        var tabs: [TabConfig] = []
        let tabReaders = try r.objects("tabs")
        if tabReaders.isEmpty { throw JSONFieldError(path: "tabs", reason: "a workspace needs at least one tab") }
        for t in tabReaders {
            try t.rejectUnknownKeys(tabKeys)
            let id = try identifier(t, "id")
            if tabs.contains(where: { $0.id == id }) {
                throw JSONFieldError(path: t.pathOf("id"), reason: "duplicate tab id \"\(id)\"")
            }
            let section = try t.optionalString("section")
            if let section, !sections.contains(where: { $0.id == section }) {
                let known = sections.map(\.id).joined(separator: ", ")
                throw JSONFieldError(path: t.pathOf("section"), reason: "unknown section \"\(section)\" (sections: \(known.isEmpty ? "none" : known))")
            }
            guard t.value("command") != nil else {
                throw JSONFieldError(path: t.pathOf("command"), reason: "missing (expected an array of strings: the plugin's argv)")
            }
            guard var command = try t.optionalStrings("command"), !command.isEmpty, !command[0].isEmpty else {
                throw JSONFieldError(path: t.pathOf("command"), reason: "must be a non-empty array of strings (the plugin's argv)")
            }
            let remote = try remoteConfig(t)
            if remote == nil { command[0] = resolve(command[0], against: directory) }
            let args = t.value("args") ?? [:]
            guard case .object = args else {
                throw JSONFieldError(path: t.pathOf("args"), reason: "expected an object, got \(args.typeDescription)")
            }
            var env: [String: String] = [:]
            if let e = try t.optionalObject("env") {
                for (key, value) in e.object {
                    guard case .string(let s) = value else {
                        throw JSONFieldError(path: e.pathOf(key), reason: "expected a string, got \(value.typeDescription)")
                    }
                    env[key] = s
                }
            }
            tabs.append(TabConfig(
                id: id, title: try t.optionalString("title") ?? id, glyph: try t.optionalString("glyph"), section: section,
                command: command, args: args, customizable: try t.bool("customizable", default: true),
                background: try t.bool("background", default: false), env: env, trace: try t.bool("trace", default: false),
                remote: remote, requestLimit: try requestLimit(t)))
        }
        var ssh = ["ssh"]
        if r.value("ssh") != nil {
            guard let given = try r.optionalStrings("ssh"), !given.isEmpty, !given.contains(where: \.isEmpty) else {
                throw JSONFieldError(path: r.pathOf("ssh"), reason: "must be a non-empty array of non-empty strings (the ssh client's argv, e.g. [\"ssh\", \"-F\", \"ssh_config\"])")
            }
            ssh = given
            ssh[0] = resolve(ssh[0], against: directory)
        }
        var config = WorkspaceConfig(file: file, directory: directory, sections: sections, tabs: tabs, keys: try keyBindings(r),
                                     mouse: try r.bool("mouse", default: true), ssh: ssh)
        if let logs = try r.optionalObject("logs") {
            try logs.rejectUnknownKeys(["maxBytes", "files"])
            if let maxBytes = try logs.optionalInt("maxBytes") {
                guard maxBytes >= 4096 else { throw JSONFieldError(path: logs.pathOf("maxBytes"), reason: "must be at least 4096 (bytes), got \(maxBytes)") }
                config.logMaxBytes = maxBytes
            }
            if let files = try logs.optionalInt("files") {
                guard (0...100).contains(files) else { throw JSONFieldError(path: logs.pathOf("files"), reason: "must be 0 to 100 (older logs kept), got \(files)") }
                config.logFiles = files
            }
        }
        return config
    }

    /// `"remote"`: an ssh destination as a string, or `{"host": DESTINATION, "directory": DIR}`.
    private static func remoteConfig(_ t: JSONReader) throws -> RemoteConfig? {
        guard let value = t.value("remote") else { return nil }
        switch value {
        case .string:
            return RemoteConfig(destination: try destination(t, "remote"))
        case .object:
            let o = try t.optionalObject("remote")!
            try o.rejectUnknownKeys(remoteKeys)
            let folder = try o.optionalString("directory")
            if let folder {
                if folder.isEmpty { throw JSONFieldError(path: o.pathOf("directory"), reason: "must not be empty (leave it out for the login folder)") }
                if let bad = folder.unicodeScalars.first(where: Sanitizer.isUnsafe) {
                    throw JSONFieldError(path: o.pathOf("directory"), reason: "must not hold control characters (found U+\(String(bad.value, radix: 16, uppercase: true)))")
                }
            }
            return RemoteConfig(destination: try destination(o, "host"), directory: folder)
        default:
            throw JSONFieldError(path: t.pathOf("remote"),
                                 reason: "expected an ssh destination (\"user@host\") or an object {\"host\": ..., \"directory\": ...}, got \(value.typeDescription)")
        }
    }

    /// `"requestLimit"`: seconds, at least 1 (a request's hard maximum), at most a year.
    private static func requestLimit(_ t: JSONReader) throws -> Double {
        guard let seconds = try t.optionalDouble("requestLimit") else { return TabConfig.defaultRequestLimit }
        guard seconds >= 1, seconds <= 31_536_000 else {
            throw JSONFieldError(path: t.pathOf("requestLimit"),
                                 reason: "expected seconds from 1 to 31536000 (a request's hard maximum; default 1800), got \(seconds)")
        }
        return seconds
    }

    /// An ssh destination: not empty, not an option (a leading `-`), no spaces or controls.
    private static func destination(_ r: JSONReader, _ key: String) throws -> String {
        let s = try nonEmpty(r, key)
        if s.hasPrefix("-") {
            throw JSONFieldError(path: r.pathOf(key), reason: "an ssh destination may not start with \"-\" (expected user@host or a Host alias)")
        }
        if let bad = s.unicodeScalars.first(where: { Sanitizer.isUnsafe($0) || $0.properties.isWhitespace }) {
            throw JSONFieldError(path: r.pathOf(key), reason: "an ssh destination may not hold spaces or control characters (found U+\(String(bad.value, radix: 16, uppercase: true)))")
        }
        return s
    }

    /// A tab or section id: not empty, and no control characters (ids are typed in commands,
    /// stored and printed; found by the `config` fuzz target, which let an ESC through).
    private static func identifier(_ r: JSONReader, _ key: String) throws -> String {
        let s = try nonEmpty(r, key)
        if let bad = s.unicodeScalars.first(where: Sanitizer.isUnsafe) {
            throw JSONFieldError(path: r.pathOf(key), reason: "must not hold control characters (found U+\(String(bad.value, radix: 16, uppercase: true)))")
        }
        return s
    }

    private static func nonEmpty(_ r: JSONReader, _ key: String) throws -> String {
        let s = try r.string(key)
        if s.isEmpty { throw JSONFieldError(path: r.pathOf(key), reason: "must not be empty") }
        return s
    }

    /// A program path with a slash that is relative resolves against the config folder;
    /// a bare name (`python3`) is looked up on PATH at spawn time.
    static func resolve(_ program: String, against directory: String) -> String {
        guard program.contains("/"), !program.hasPrefix("/") else { return program }
        var p = Substring(program)
        while p.hasPrefix("./") { p = p.dropFirst(2) }
        return directory.hasSuffix("/") ? directory + p : directory + "/" + p
    }
}
