/// The direction of one sort key.
public enum SortDirection: String, Sendable, Codable, Hashable {
    case ascending = "asc"
    case descending = "desc"

    /// The other direction.
    public var flipped: SortDirection { self == .ascending ? .descending : .ascending }
}

/// One key of a sort order: a column and a direction.
public struct SortKey: Hashable, Sendable, Codable {
    public var column: String
    public var direction: SortDirection

    public init(_ column: String, _ direction: SortDirection = .ascending) {
        self.column = column; self.direction = direction
    }

    /// The wire form `{"column":"age","direction":"desc"}`.
    public var json: JSONValue { ["column": .string(column), "direction": .string(direction.rawValue)] }

    /// Reads the wire form.
    public init(reader: JSONReader) throws(JSONFieldError) {
        column = try reader.string("column")
        let raw = try reader.optionalString("direction") ?? "asc"
        guard let d = SortDirection(rawValue: raw) else {
            throw JSONFieldError(path: reader.pathOf("direction"), reason: "expected \"asc\" or \"desc\", got \"\(raw)\"")
        }
        direction = d
    }
}
