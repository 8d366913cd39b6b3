/// The plugin protocol's version, separate from the app's version.
public enum ProtocolVersion {
    /// The version this host speaks.
    public static let current = 1
}

/// The protocol's method names.
public enum Method {
    public static let initialize = "initialize"
    public static let open = "open"
    public static let rows = "rows"
    public static let children = "children"
    public static let locate = "locate"
    public static let find = "find"
    public static let cell = "cell"
    public static let aggregate = "aggregate"
    public static let describe = "describe"
    public static let query = "query"
    public static let close = "close"
    public static let action = "action"
    public static let move = "move"
    public static let shutdown = "shutdown"
    public static let cancel = "$/cancel"
    public static let badge = "badge"
    public static let invalidate = "invalidate"
    public static let progress = "progress"
    public static let status = "status"
    public static let log = "log"
}
