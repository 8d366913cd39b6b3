/// A badge value: a number, a short string, or cleared.
public enum BadgeValue: Hashable, Sendable, CustomStringConvertible {
    case number(Int)
    case text(String)

    /// Characters of a string badge kept (the rest is dropped).
    public static let maxText = 4

    /// Reads `{"value": 3 | "new" | null}`; nil means "clear".
    public static func parse(_ params: JSONValue) throws(JSONFieldError) -> BadgeValue? {
        let r = try JSONReader(params, path: "params")
        switch r.value("value") {
        case nil, .null?: return nil
        case .string(let s)?: return .text(String(s.prefix(maxText)))
        case let v? where v.intValue != nil: return .number(Int(v.intValue!))
        case let v?: throw JSONFieldError(path: "params.value", reason: "expected a number, a string or null, got \(v.typeDescription)")
        }
    }

    public var description: String {
        switch self {
        case .number(let n): String(n)
        case .text(let s): s
        }
    }
}

/// A notification from a plugin, decoded.
public enum PluginNotification: Hashable, Sendable {
    case badge(BadgeValue?)
    /// Rows changed: all of them (`rows` nil) or some ids; maybe a new total.
    /// `sections` (optional): the table's sections as they are now (counts and footers).
    case invalidate(table: String?, rows: [String]?, total: Int?, sections: [SectionSpec]? = nil)
    case progress(done: Double, total: Double?, message: String?)
    case status(String)
    case log(level: String, message: String)

    /// Decodes a notification; nil for methods this host does not know (they are ignored).
    public static func decode(method: String, params: JSONValue) throws(JSONFieldError) -> PluginNotification? {
        switch method {
        case Method.badge:
            return .badge(try BadgeValue.parse(params))
        case Method.invalidate:
            let r = try JSONReader(params == .null ? [:] : params, path: "params")
            return .invalidate(table: try r.optionalString("table"), rows: try r.optionalStrings("rows"), total: try r.optionalInt("total"),
                               sections: try SectionSpec.optionalList(r, "sections"))
        case Method.progress:
            let r = try JSONReader(params, path: "params")
            return .progress(done: try r.optionalDouble("done") ?? 0, total: try r.optionalDouble("total"),
                             message: try r.optionalString("message"))
        case Method.status:
            let r = try JSONReader(params, path: "params")
            return .status(try r.optionalString("text") ?? "")
        case Method.log:
            let r = try JSONReader(params, path: "params")
            return .log(level: try r.optionalString("level") ?? "info", message: try r.optionalString("message") ?? "")
        default:
            return nil
        }
    }
}
