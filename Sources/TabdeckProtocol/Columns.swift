/// The type of a column's cells.
public enum ColumnType: Hashable, Sendable {
    case text, integer, decimal, bool, date
    /// An enumeration whose values sort in the given order.
    case enumeration([String])

    /// The wire name.
    public var name: String {
        switch self {
        case .text: "text"
        case .integer: "integer"
        case .decimal: "decimal"
        case .bool: "bool"
        case .date: "date"
        case .enumeration: "enum"
        }
    }
}

/// Where a column's nulls go when the plugin sorts by it (PROTOCOL.md 10.2, `nulls`).
public enum NullOrder: String, Hashable, Sendable {
    /// Null is below every value: first ascending, last descending (the default; SQLite's order).
    case smallest
    /// Null is above every value: last ascending, first descending (PostgreSQL's order, the one
    /// its B-tree indexes serve in both directions).
    case largest
}

/// The order a plugin's source sorts a column in (PROTOCOL.md 10.2, `order`).
public enum ColumnOrder: String, Hashable, Sendable {
    /// The protocol's order for the column's type (11.3, *Sort order*): text by UTF-8 bytes.
    case `protocol`
    /// Text compared with letter case folded (SQLite's `NOCASE`, ASCII at least).
    case casefold
    /// The source's own order, which the protocol cannot spell out (a collation, a network
    /// address, an interval, a range, an array): only the plugin can sort by it.
    case source
}

/// How wide a column wants to be.
public enum ColumnWidth: Hashable, Sendable {
    /// Exactly this many cells.
    case fixed(Int)
    /// Flexible between bounds; `nil` bounds are free.
    case flexible(min: Int?, ideal: Int?, max: Int?)
}

/// Horizontal alignment of a column's cells.
public enum ColumnAlignment: String, Hashable, Sendable {
    case left, right, center
}

/// A column as the plugin describes it.
public struct ColumnSpec: Hashable, Sendable {
    public var id: String
    public var title: String
    public var type: ColumnType
    public var width: ColumnWidth?
    public var alignment: ColumnAlignment
    public var sortable: Bool
    /// For a `decimal` column: the digits shown after the decimal point (0…15), so `1370.30`
    /// is not shown as `1370.3` and the points line up; nil shows each number in its shortest
    /// form. Ignored for other types.
    public var decimals: Int?
    /// Where nulls sort when the plugin sorts by this column.
    public var nulls: NullOrder
    /// The order the plugin's source sorts this column in.
    public var order: ColumnOrder
    /// The name of the source's collation for a text column (`en_US.utf8`, `NOCASE`), shown to
    /// people beside the sort; nil when the column has none or the plugin does not say.
    public var collation: String?

    /// The largest `decimals` a plugin may ask for.
    public static let maxDecimals = 15

    /// Width hints are clamped to 1…this many cells: they are hints, and a plugin's absurd
    /// number must not become an absurd allocation or an overflow in the host's layout.
    public static let maxWidth = 1_000

    /// `width` with every number clamped to 1…``maxWidth``.
    static func clamped(_ width: ColumnWidth) -> ColumnWidth {
        func clamp(_ n: Int) -> Int { min(max(n, 1), maxWidth) }
        switch width {
        case .fixed(let n): return .fixed(clamp(n))
        case .flexible(let lo, let ideal, let hi): return .flexible(min: lo.map(clamp), ideal: ideal.map(clamp), max: hi.map(clamp))
        }
    }

    public init(id: String, title: String? = nil, type: ColumnType = .text, width: ColumnWidth? = nil,
                alignment: ColumnAlignment? = nil, sortable: Bool = true, decimals: Int? = nil,
                nulls: NullOrder = .smallest, order: ColumnOrder = .protocol, collation: String? = nil) {
        self.id = id
        self.title = title ?? id
        self.type = type
        self.width = width.map(Self.clamped)
        self.alignment = alignment ?? ([.integer, .decimal].contains(type) ? .right : .left)
        self.sortable = sortable
        self.decimals = type == .decimal ? decimals : nil
        self.nulls = nulls
        self.order = order
        self.collation = collation
    }

    /// Reads the wire form.
    public init(reader r: JSONReader) throws(JSONFieldError) {
        let id = try r.string("id")
        let typeName = try r.optionalString("type") ?? "text"
        let type: ColumnType
        switch typeName {
        case "text": type = .text
        case "integer": type = .integer
        case "decimal": type = .decimal
        case "bool": type = .bool
        case "date": type = .date
        case "enum": type = .enumeration(try r.optionalStrings("values") ?? [])
        default:
            throw JSONFieldError(path: r.pathOf("type"),
                                 reason: "unknown column type \"\(typeName)\" (text, integer, decimal, bool, date, enum)")
        }
        var width: ColumnWidth?
        if let w = r.value("width"), w != .null {
            if let fixed = w.intValue {
                width = .fixed(Int(fixed))
            } else {
                let wr = try JSONReader(w, path: r.pathOf("width"))
                width = .flexible(min: try wr.optionalInt("min"), ideal: try wr.optionalInt("ideal"), max: try wr.optionalInt("max"))
            }
        }
        var alignment: ColumnAlignment?
        if let a = try r.optionalString("align") {
            guard let parsed = ColumnAlignment(rawValue: a) else {
                throw JSONFieldError(path: r.pathOf("align"), reason: "expected \"left\", \"right\" or \"center\", got \"\(a)\"")
            }
            alignment = parsed
        }
        let decimals = try r.optionalInt("decimals")
        if let decimals, !(0...Self.maxDecimals).contains(decimals) {
            throw JSONFieldError(path: r.pathOf("decimals"), reason: "expected 0 to \(Self.maxDecimals) digits, got \(decimals)")
        }
        var nulls = NullOrder.smallest
        if let n = try r.optionalString("nulls") {
            guard let parsed = NullOrder(rawValue: n) else {
                throw JSONFieldError(path: r.pathOf("nulls"), reason: "expected \"smallest\" or \"largest\", got \"\(n)\"")
            }
            nulls = parsed
        }
        var order = ColumnOrder.protocol
        if let o = try r.optionalString("order") {
            guard let parsed = ColumnOrder(rawValue: o) else {
                throw JSONFieldError(path: r.pathOf("order"), reason: "expected \"protocol\", \"casefold\" or \"source\", got \"\(o)\"")
            }
            order = parsed
        }
        self.init(id: id, title: try r.optionalString("title"), type: type, width: width,
                  alignment: alignment, sortable: try r.bool("sortable", default: true), decimals: decimals,
                  nulls: nulls, order: order, collation: try r.optionalString("collation"))
    }

    /// The wire form.
    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "title": .string(title), "type": .string(type.name)]
        if case .enumeration(let values) = type { o["values"] = .array(values.map { .string($0) }) }
        switch width {
        case .fixed(let n): o["width"] = .int(Int64(n))
        case .flexible(let min, let ideal, let max):
            var w = JSONObject()
            if let min { w["min"] = .int(Int64(min)) }
            if let ideal { w["ideal"] = .int(Int64(ideal)) }
            if let max { w["max"] = .int(Int64(max)) }
            o["width"] = .object(w)
        case nil: break
        }
        o["align"] = .string(alignment.rawValue)
        o["sortable"] = .bool(sortable)
        if let decimals { o["decimals"] = .int(Int64(decimals)) }
        if nulls != .smallest { o["nulls"] = .string(nulls.rawValue) }
        if order != .protocol { o["order"] = .string(order.rawValue) }
        if let collation { o["collation"] = .string(collation) }
        return .object(o)
    }
}
