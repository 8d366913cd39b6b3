import TabdeckProtocol

/// How one table's rows are laid out in its spool table, and the SQL that orders them.
///
/// Every row is one SQLite row: `seq` (arrival order, the stable tie-breaker), the row's `id`,
/// `section`, `detail` and `children`, then one column `c<i>` per cell as it came (text, integer,
/// real, 0/1 for booleans, null). Date and enum columns get a second column `k<i>` holding the
/// sort key: milliseconds since 1970 for a date, the position in `values` for an enum value;
/// a cell that does not parse (an unknown enum value, a malformed date) keeps its text there,
/// which SQLite sorts after every number, as the CSV plugin sorts unparseable cells after values.
/// Nulls sort first ascending and last descending (SQLite's rule and the protocol's).
/// Text compares by bytes (`BINARY`, UTF-8): Unicode scalar order, the protocol's reference.
public struct SpoolSchema: Hashable, Sendable {
    /// The SQL table name (`t1`, `t2`, ...; never derived from plugin text).
    public let tableName: String
    public let columns: [ColumnSpec]

    public init(tableName: String, columns: [ColumnSpec]) {
        self.tableName = tableName
        self.columns = columns
    }

    /// Whether column `i` has a separate sort key column `k<i>`.
    public func hasKey(_ i: Int) -> Bool {
        switch columns[i].type {
        case .date, .enumeration: true
        default: false
        }
    }

    /// `CREATE TABLE` for this schema.
    public var createSQL: String {
        var parts = ["seq INTEGER PRIMARY KEY", "id TEXT NOT NULL", "section TEXT", "detail TEXT", "children INTEGER"]
        for i in columns.indices {
            parts.append("c\(i)")
            if hasKey(i) { parts.append("k\(i)") }
        }
        return "CREATE TABLE \(tableName)(\(parts.joined(separator: ", ")))"
    }

    /// The names of the columns written by one insert, in bind order (after `seq`).
    public var insertColumns: [String] {
        var names = ["seq", "id", "section", "detail", "children"]
        for i in columns.indices {
            names.append("c\(i)")
            if hasKey(i) { names.append("k\(i)") }
        }
        return names
    }

    /// The insert statement (one row, every column bound).
    public var insertSQL: String {
        let names = insertColumns
        return "INSERT INTO \(tableName)(\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// The `ORDER BY` terms for a sort order, ending with the arrival order as tie-breaker.
    /// - Throws: ``SpoolError/unknownColumn(_:table:)`` for a key naming no column.
    public func orderTerms(_ sort: [SortKey]) throws(SpoolError) -> [String] {
        var terms: [String] = []
        for key in sort {
            guard let i = columns.firstIndex(where: { $0.id == key.column }) else {
                throw .unknownColumn(key.column, table: tableName)
            }
            let expression = hasKey(i) ? "k\(i)" : "c\(i)"
            terms.append("\(expression) \(key.direction == .ascending ? "ASC" : "DESC")")
        }
        terms.append("seq ASC")
        return terms
    }

    /// The condition of a filter (`?3` = the text): some cell's text contains it, ignoring ASCII
    /// case (SQLite's `lower`), as the csv and sqlite plugins filter.
    public var filterCondition: String {
        "(" + columns.indices.map { "instr(lower(c\($0)), lower(?3)) > 0" }.joined(separator: " OR ") + ")"
    }

    /// The query of one page of the rows that pass a filter, in a sort order (`?1` = limit,
    /// `?2` = offset, `?3` = the filter's text).
    public func filteredPageSQL(_ sort: [SortKey]) throws(SpoolError) -> String {
        let cells = columns.indices.map { "c\($0)" }.joined(separator: ", ")
        let order = try orderTerms(sort).joined(separator: ", ")
        return "SELECT id, section, detail, children, \(cells) FROM \(tableName) WHERE \(filterCondition) ORDER BY \(order) LIMIT ?1 OFFSET ?2"
    }

    /// How many rows pass a filter (`?3` = the filter's text).
    public var filteredCountSQL: String { "SELECT count(*) FROM \(tableName) WHERE \(filterCondition)" }

    /// The query of one page in a sort order (`?1` = limit, `?2` = offset).
    public func pageSQL(_ sort: [SortKey]) throws(SpoolError) -> String {
        let cells = columns.indices.map { "c\($0)" }.joined(separator: ", ")
        let order = sort.isEmpty ? "" : " ORDER BY \(try orderTerms(sort).joined(separator: ", "))"
        let range = sort.isEmpty ? " WHERE seq > ?2 ORDER BY seq LIMIT ?1" : "\(order) LIMIT ?1 OFFSET ?2"
        return "SELECT id, section, detail, children, \(cells) FROM \(tableName)\(range)"
    }

    /// The statements that materialize a sort order into the table `name`
    /// (`pos` = position in the order, 1-based), so that deep pages need no sorting.
    public func orderTableSQL(_ sort: [SortKey], name: String) throws(SpoolError) -> [String] {
        let terms = try orderTerms(sort)
        return ["DROP TABLE IF EXISTS \(name)",
                "CREATE TABLE \(name)(pos INTEGER PRIMARY KEY, seq INTEGER NOT NULL)",
                "INSERT INTO \(name)(seq) SELECT seq FROM \(tableName) ORDER BY \(terms.joined(separator: ", "))"]
    }

    /// The query of one page through a materialized order (`?1` = limit, `?2` = offset).
    public func orderedPageSQL(orderTable name: String) -> String {
        let cells = columns.indices.map { "t.c\($0)" }.joined(separator: ", ")
        return "SELECT t.id, t.section, t.detail, t.children, \(cells) FROM \(name) o JOIN \(tableName) t ON t.seq = o.seq"
            + " WHERE o.pos > ?2 ORDER BY o.pos LIMIT ?1"
    }
}
