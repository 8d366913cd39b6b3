import TabdeckProtocol

/// The seed's sorting semantics (SwiftUI `Table` with a `sortOrder` binding).
public enum SortOrder {
    /// The sort order after the user chooses `column`.
    ///
    /// - A column not in the order is inserted at the front, ascending (or `direction`).
    /// - A column already in the order moves to the front, keeping its direction (or `direction`).
    /// - Choosing the column already in front flips its direction (unless `direction` is given).
    /// The other keys stay, in order, as tie-breakers.
    public static func choose(_ column: String, direction: SortDirection? = nil, in order: [SortKey]) -> [SortKey] {
        var rest = order
        let existing = rest.firstIndex { $0.column == column }.map { rest.remove(at: $0) }
        let newDirection: SortDirection
        if let direction {
            newDirection = direction
        } else if let existing {
            newDirection = order.first?.column == column ? existing.direction.flipped : existing.direction
        } else {
            newDirection = .ascending
        }
        return [SortKey(column, newDirection)] + rest
    }

    /// A readable form: `amount ↓, name ↑` (or "unsorted").
    public static func describe(_ order: [SortKey]) -> String {
        order.isEmpty ? "unsorted" : order.map { "\(Sanitizer.clean($0.column)) \($0.direction == .ascending ? "asc" : "desc")" }.joined(separator: ", ")
    }
}
