import TabdeckProtocol

/// One spooled table's name in the spool and its columns, and how a sort order names them.
///
/// Rows are stored as ``RowRecord``s in arrival order; `seq` (a row's position in that order,
/// from 1) is the stable tie-breaker of every sort. How cells compare is ``SortCell``'s rule.
public struct SpoolSchema: Hashable, Sendable {
    /// The table's name in the spool (`t1`, `t2`, ...; never derived from plugin text): its
    /// files are named after it.
    public let tableName: String
    public let columns: [ColumnSpec]

    public init(tableName: String, columns: [ColumnSpec]) {
        self.tableName = tableName
        self.columns = columns
    }

    /// The columns of a sort order, with how each is keyed and where its nulls go.
    /// - Throws: ``SpoolError/unknownColumn(_:table:)`` for a key naming no column,
    ///   ``SpoolError/sourceOrder(_:table:)`` for one whose order only its plugin knows
    ///   (`order: source`, PROTOCOL.md 10.2): the spool never sorts by such a column.
    public func sortColumns(_ sort: [SortKey]) throws(SpoolError) -> [SortColumn] {
        var result: [SortColumn] = []
        for key in sort {
            guard let i = columns.firstIndex(where: { $0.id == key.column }) else {
                throw .unknownColumn(key.column, table: tableName)
            }
            guard columns[i].order != .source else { throw .sourceOrder(key.column, table: tableName) }
            result.append(SortColumn(index: i, descending: key.direction == .descending, keying: SortColumn.Keying(columns[i]),
                                     nullsLargest: columns[i].nulls == .largest))
        }
        return result
    }
}

/// A column of a sort order: which cell, which direction, and how its text is keyed.
public struct SortColumn: Hashable, Sendable {
    /// How a text cell of the column becomes a key.
    public enum Keying: Hashable, Sendable {
        /// As its bytes.
        case plain
        /// A date or date-time: milliseconds since 1970 (``ISODateTime``); a text that does not
        /// parse stays a text, after every date.
        case date
        /// An enum value: its position in the column's `values`; an unknown value stays a
        /// text, after every known one.
        case ranks([String: Int64])
        /// An integer or decimal column's number text (PROTOCOL.md 10.3, *Exact numbers*): a
        /// number, compared exactly with the others (``ExactNumber``); a text that is not one
        /// (for `integer`, digits only) stays a text, after every number.
        case number(ColumnType)
        /// A text column in `order: casefold`: its texts (and nested values' JSON texts) by
        /// their bytes with ASCII letters folded to lower case (SQLite's `NOCASE`; the
        /// protocol asks for ASCII at least, and the spool folds no more).
        case casefold

        init(_ column: ColumnSpec) {
            switch column.type {
            case .date: self = .date
            case .enumeration(let values):
                self = .ranks(Dictionary(values.enumerated().map { ($1, Int64($0)) }, uniquingKeysWith: { a, _ in a }))
            case .integer, .decimal: self = .number(column.type)
            case .text: self = column.order == .casefold ? .casefold : .plain
            case .bool: self = .plain
            }
        }
    }

    public var index: Int
    public var descending: Bool
    public var keying: Keying
    /// The column says `nulls: largest`: a null sorts after every value (ascending).
    public var nullsLargest: Bool = false
}
