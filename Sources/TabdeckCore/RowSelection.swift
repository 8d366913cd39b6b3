/// The selected rows of one table, as a value whose size does not depend on the table's:
/// either explicit ids, or "every row of the table, except these ids".
///
/// "Every row" means every row the table's view shows under its filter: an ``allExcept(_:)``
/// selection belongs to the filter in force when `select all` ran, and changing the filter
/// drops it (see `setFilter`), so it never has to be re-evaluated against another filter.
/// It is resolved to ids only when something needs them (an action), by paging through the
/// table at that moment; rows added later are therefore included.
public enum RowSelection: Hashable, Sendable, Codable, ExpressibleByArrayLiteral {
    /// Exactly these row ids (ids are not checked against the table).
    case ids(Set<String>)
    /// Every row of the table (under the view's filter) except these ids.
    case allExcept(Set<String>)

    /// Explicit ids.
    public init(arrayLiteral elements: String...) { self = .ids(Set(elements)) }

    /// Whether the row with this id is selected.
    public func contains(_ id: String) -> Bool {
        switch self {
        case .ids(let ids): ids.contains(id)
        case .allExcept(let except): !except.contains(id)
        }
    }

    /// Nothing is selected by form: no explicit id. An ``allExcept(_:)`` selection is never
    /// empty by form, even on an empty table.
    public var isEmpty: Bool {
        if case .ids(let ids) = self { return ids.isEmpty }
        return false
    }

    /// Whether this is an "all, except" selection.
    public var isAll: Bool {
        if case .allExcept = self { return true }
        return false
    }

    /// The ids stored: the selected ones, or the excepted ones of an "all" selection.
    public var listed: Set<String> {
        switch self {
        case .ids(let ids), .allExcept(let ids): ids
        }
    }

    /// How many rows are selected in a table of `total` rows; nil when that depends on a
    /// count not known yet. An excepted id is assumed to be a row of the table.
    public func count(total: Int?) -> Int? {
        switch self {
        case .ids(let ids): ids.count
        case .allExcept(let except): total.map { max(0, $0 - except.count) }
        }
    }

    /// Selects these rows.
    public mutating func formUnion<S: Sequence>(_ ids: S) where S.Element == String {
        switch self {
        case .ids(var set): set.formUnion(ids); self = .ids(set)
        case .allExcept(var except): except.subtract(ids); self = .allExcept(except)
        }
    }

    /// Unselects these rows.
    public mutating func subtract<S: Sequence>(_ ids: S) where S.Element == String {
        switch self {
        case .ids(var set): set.subtract(ids); self = .ids(set)
        case .allExcept(var except): except.formUnion(ids); self = .allExcept(except)
        }
    }

    /// Selects one row.
    public mutating func insert(_ id: String) { formUnion(CollectionOfOne(id)) }

    /// Unselects one row.
    public mutating func remove(_ id: String) { subtract(CollectionOfOne(id)) }

    /// The selection in a few words for status lines and footers: `3 selected`,
    /// `all 1,000,000 selected`, `999,998 selected (all but 2)`, or, with the count unknown,
    /// `all selected` / `all but 2 selected`. Empty when nothing is selected.
    public func summary(total: Int?) -> String {
        switch self {
        case .ids(let ids):
            return ids.isEmpty ? "" : "\(formatCount(ids.count)) selected"
        case .allExcept(let except):
            switch (count(total: total), except.isEmpty) {
            case (let n?, true): return "all \(formatCount(n)) selected"
            case (let n?, false): return "\(formatCount(n)) selected (all but \(formatCount(except.count)))"
            case (nil, true): return "all selected"
            case (nil, false): return "all but \(formatCount(except.count)) selected"
            }
        }
    }
}
