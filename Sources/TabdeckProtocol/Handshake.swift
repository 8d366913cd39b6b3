/// What a plugin can do, from its `initialize` result. Unknown capabilities are ignored.
public struct PluginCapabilities: Hashable, Sendable {
    public var sort = false
    public var multiSort = false
    public var filter = false
    public var sections = false
    public var children = false
    public var actions = false
    public var live = false
    /// Answers `move` for tables that say they are `movable`.
    public var move = false
    /// Serves random offsets (true unless the plugin says otherwise).
    public var paging = true
    /// Answers `locate`: where rows are in an order (optional, false by default).
    public var locate = false
    /// Answers `cell`: the whole value of a cell it sent cut (PROTOCOL.md 11.10).
    public var cells = false
    /// Applies `where`, the structured filter, on every table (PROTOCOL.md 11.11).
    public var `where` = false
    /// Answers `aggregate`: group counts as a new table (PROTOCOL.md 11.12).
    public var aggregate = false
    /// Answers `describe`: column statistics as a new table (PROTOCOL.md 11.13).
    public var describe = false
    /// Answers `query`: a read-only SQL query as a new table (PROTOCOL.md 11.14).
    public var query = false
    /// Answers `find`: the next row holding a text (PROTOCOL.md 11.15).
    public var find = false

    public init(sort: Bool = false, multiSort: Bool = false, filter: Bool = false, sections: Bool = false,
                children: Bool = false, actions: Bool = false, live: Bool = false, paging: Bool = true, move: Bool = false) {
        self.sort = sort; self.multiSort = multiSort; self.filter = filter; self.sections = sections
        self.children = children; self.actions = actions; self.live = live; self.paging = paging
        self.move = move
    }

    public init(reader r: JSONReader) throws(JSONFieldError) {
        sort = try r.bool("sort", default: false)
        multiSort = try r.bool("multiSort", default: false)
        filter = try r.bool("filter", default: false)
        sections = try r.bool("sections", default: false)
        children = try r.bool("children", default: false)
        actions = try r.bool("actions", default: false)
        live = try r.bool("live", default: false)
        paging = try r.bool("paging", default: true)
        move = try r.bool("move", default: false)
        locate = try r.bool("locate", default: false)
        cells = try r.bool("cells", default: false)
        `where` = try r.bool("where", default: false)
        aggregate = try r.bool("aggregate", default: false)
        describe = try r.bool("describe", default: false)
        query = try r.bool("query", default: false)
        find = try r.bool("find", default: false)
    }

    public var json: JSONValue {
        var o: JSONObject = ["sort": .bool(sort), "multiSort": .bool(multiSort), "filter": .bool(filter), "sections": .bool(sections),
                             "children": .bool(children), "actions": .bool(actions), "live": .bool(live), "paging": .bool(paging)]
        if move { o["move"] = .bool(true) }
        if locate { o["locate"] = true }
        if cells { o["cells"] = true }
        if `where` { o["where"] = true }
        if aggregate { o["aggregate"] = true }
        if describe { o["describe"] = true }
        if query { o["query"] = true }
        if find { o["find"] = true }
        return .object(o)
    }
}

/// The plugin's answer to `initialize`.
public struct InitializeResult: Hashable, Sendable {
    public var name: String
    public var version: String
    public var protocolVersion: Int
    public var capabilities: PluginCapabilities

    public init(name: String, version: String, protocolVersion: Int = ProtocolVersion.current, capabilities: PluginCapabilities) {
        self.name = name; self.version = version; self.protocolVersion = protocolVersion; self.capabilities = capabilities
    }

    public init(_ value: JSONValue, path: String = "result") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        let caps = try r.optionalObject("capabilities")
        self.init(name: try r.optionalString("name") ?? "plugin", version: try r.optionalString("version") ?? "?",
                  protocolVersion: try r.int("protocolVersion"),
                  capabilities: try caps.map { (c) throws(JSONFieldError) in try PluginCapabilities(reader: c) } ?? PluginCapabilities())
    }

    public var json: JSONValue {
        ["name": .string(name), "version": .string(version), "protocolVersion": .int(Int64(protocolVersion)),
         "capabilities": capabilities.json]
    }
}

/// The host's `initialize` parameters.
public struct InitializeParams: Hashable, Sendable {
    public var protocolVersion: Int
    public var hostName: String
    public var hostVersion: String

    public init(protocolVersion: Int = ProtocolVersion.current, hostName: String = "tabdeck", hostVersion: String) {
        self.protocolVersion = protocolVersion; self.hostName = hostName; self.hostVersion = hostVersion
    }

    public var json: JSONValue {
        ["protocolVersion": .int(Int64(protocolVersion)),
         "host": ["name": .string(hostName), "version": .string(hostVersion)],
         "capabilities": ["progress": true, "cancel": true]]
    }
}
