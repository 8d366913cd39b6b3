import TabdeckProtocol

/// Request ids for the requests the spool sends to a plugin itself.
///
/// The core numbers its requests with integers (1, 2, 3, ...) and the supervisor uses the
/// string `"shutdown"`; the spool's ids are the strings `"spool-1"`, `"spool-2"`, ..., so they
/// can never collide with either, and a reply is known to be the spool's by its id alone.
public struct SpoolIDs: Sendable {
    static let prefix = "spool-"
    private var next = 1

    public init() {}

    /// A fresh id.
    public mutating func allocate() -> RequestID {
        defer { next += 1 }
        return .string(Self.prefix + String(next))
    }

    /// Whether `id` is one of the spool's.
    public static func isSpool(_ id: RequestID) -> Bool {
        if case .string(let s) = id { return s.hasPrefix(prefix) }
        return false
    }
}
