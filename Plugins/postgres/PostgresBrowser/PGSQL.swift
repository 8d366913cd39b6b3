import TabdeckPluginKit
import TabdeckProtocol

/// One key of an ORDER BY: its expression, the bind cast of its values, its direction and
/// whether it can be NULL. Nulls sort as PostgreSQL sorts them by default, as the largest
/// value (last ascending, first descending), so that one btree index serves both directions.
public struct PGOrderTerm: Hashable, Sendable {
    public var expression: String
    /// `$n` as this key's type, for `n`.
    public var castFormat: String
    public var descending: Bool
    public var notNull: Bool

    public init(expression: String, castFormat: String, descending: Bool, notNull: Bool) {
        self.expression = expression; self.castFormat = castFormat; self.descending = descending; self.notNull = notNull
    }

    /// The term of a column, ascending.
    init(_ column: PGColumn) {
        self.init(expression: column.sortExpression, castFormat: "$n::\(column.sqlType)", descending: false, notNull: column.notNull)
    }

    func parameter(_ n: Int) -> String { castFormat.replacingOccurrences(of: "$n", with: "$\(n)") }

    /// `expr ASC` / `expr DESC`: no NULLS clause, the server's own null order.
    public var sql: String { expression + (descending ? " DESC" : " ASC") }

    /// The same key in the other direction (nulls move with it: the exact reverse).
    var reversed: PGOrderTerm { var t = self; t.descending.toggle(); return t }
}

/// The condition "after a row" of a keyset read, as branches whose union it is: each branch
/// is a plain range or equality an index can seek (a row comparison, `IS NULL`), so a page
/// is a few index scans of at most a page each instead of one scan from the table's start.
public struct PGKeyset: Hashable, Sendable {
    /// Disjoint conditions; a row is after the anchor when it meets one of them. Empty: no row is.
    public var branches: [String]
    /// The parameters the branches use, numbered from the `first` they were made with.
    public var binds: [String?]
}

/// SQL text for browsing: quoting, ORDER BY, keyset conditions and the filter. Pure: the tests
/// check it without a server.
public enum PGSQL {
    /// `name` as a double-quoted identifier (`my "t"` → `"my ""t"""`).
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `"schema"."name"`.
    public static func qualified(_ schema: String, _ name: String) -> String { quote(schema) + "." + quote(name) }

    /// An ILIKE pattern matching text that contains `needle` literally (`%`, `_` and `\`
    /// escaped with the default escape `\`).
    public static func containsPattern(_ needle: String) -> String {
        var out = "%"
        for c in needle {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "%"
    }

    /// The ORDER BY terms for `sort` (column ids = column names) then the tie-breaker `identity`
    /// (a unique key, or `ctid`) in the direction of the last key, so that a descending order is
    /// the exact reverse of the ascending one.
    public static func orderTerms(_ sort: [SortKey], columns: [PGColumn], identity: [PGOrderTerm]) throws -> [PGOrderTerm] {
        var terms: [PGOrderTerm] = []
        var used = Set<String>()
        for (i, key) in sort.enumerated() {
            guard let c = columns.first(where: { $0.name == key.column }) else {
                throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
            }
            guard c.sortable else { throw RPCError.unsupported("params.sort[\(i)].column: \(c.name) (\(c.sqlType)) cannot be sorted") }
            guard used.insert(c.name).inserted else { continue }
            var term = PGOrderTerm(c)
            term.descending = key.direction == .descending
            terms.append(term)
        }
        let descending = terms.last?.descending ?? false
        for var t in identity where !terms.contains(where: { $0.expression == t.expression }) {
            t.descending = descending
            terms.append(t)
        }
        return terms
    }

    /// The rows after the row whose key values are `key` in the order of `terms`, with the
    /// parameters numbered from `first`. Values are text (nil = NULL).
    ///
    /// Spelled out key by key (`k1 > $1`, then `k1 = $2 AND k2 > $3`, ...) with the nulls where
    /// the server puts them (after the values ascending, before them descending); the trailing
    /// keys that share a direction and have values in the anchor are one row comparison
    /// `(k1, k2) > ($1, $2)`, the range a btree index on them seeks.
    public static func after(_ terms: [PGOrderTerm], _ key: [String?], first: Int = 1) -> PGKeyset {
        precondition(terms.count == key.count && !terms.isEmpty)
        var n = first
        var binds: [String?] = []
        func bind(_ t: PGOrderTerm, _ v: String) -> String { binds.append(v); defer { n += 1 }; return t.parameter(n) }
        func prefix(_ i: Int) -> [String] {
            (0..<i).map { j in key[j].map { "\(terms[j].expression) = \(bind(terms[j], $0))" } ?? "\(terms[j].expression) IS NULL" }
        }
        func branch(_ parts: [String]) -> String { parts.count == 1 ? parts[0] : parts.joined(separator: " AND ") }
        // The merged suffix: the last keys in the last key's direction, none NULL in the anchor.
        var suffix = terms.count
        while suffix > 0, terms[suffix - 1].descending == terms[terms.count - 1].descending, key[suffix - 1] != nil { suffix -= 1 }
        var branches: [String] = []
        for i in terms.indices {
            let t = terms[i]
            let nullsAfter = !t.descending  // the largest value: after the others ascending
            if let v = key[i] {
                if i < suffix {
                    branches.append(branch(prefix(i) + ["\(t.expression) \(t.descending ? "<" : ">") \(bind(t, v))"]))
                } else if i == suffix {
                    let equal = prefix(i)
                    let op = t.descending ? "<" : ">"
                    let rest = terms[i...]
                    let comparison = rest.count == 1
                        ? "\(t.expression) \(op) \(bind(t, v))"
                        : "(\(rest.map(\.expression).joined(separator: ", "))) \(op) (\(zip(rest, key[i...]).map { bind($0, $1!) }.joined(separator: ", ")))"
                    branches.append(branch(equal + [comparison]))
                }
                if nullsAfter && !t.notNull { branches.append(branch(prefix(i) + ["\(t.expression) IS NULL"])) }
            } else if !nullsAfter {
                // After a NULL descending: every value (nulls came first).
                branches.append(branch(prefix(i) + ["\(t.expression) IS NOT NULL"]))
            }
        }
        return PGKeyset(branches: branches, binds: binds)
    }

    /// A page query: `select` (output expressions, aliased `o0`, `o1`, ... so that an output
    /// named as a column never shadows that column in ORDER BY) of the rows of `source` meeting `conditions`
    /// and one of the keyset's `branches` (all rows when nil), in the order of `terms`, `limit`
    /// rows after skipping `offset`. Several branches become one index-served query each,
    /// united and put in order again (at most `offset + limit` rows each).
    public static func page(select: [String], source: String, conditions: [String], branches: [String]?, terms: [PGOrderTerm],
                            limit: Int, offset: Int = 0) -> String {
        let orderBy = terms.isEmpty ? "" : " ORDER BY " + terms.map(\.sql).joined(separator: ", ")
        let tail = " LIMIT \(limit)" + (offset > 0 ? " OFFSET \(offset)" : "")
        func whereClause(_ c: [String]) -> String { c.isEmpty ? "" : " WHERE " + c.map { "(\($0))" }.joined(separator: " AND ") }
        let aliased = select.enumerated().map { "\($1) AS o\($0)" }.joined(separator: ", ")
        guard let branches else { return "SELECT \(aliased) FROM \(source)" + whereClause(conditions) + orderBy + tail }
        if branches.isEmpty { return "SELECT \(aliased) FROM \(source) WHERE FALSE" }
        if branches.count == 1 {
            return "SELECT \(aliased) FROM \(source)" + whereClause(conditions + branches) + orderBy + tail
        }
        // Each branch keeps its sort values (s0, s1, ...) for the outer ORDER BY.
        let sorts = terms.enumerated().map { "\($1.expression) AS s\($0)" }
        let outputs = select.indices.map { "o\($0)" }
        let inner = branches.map { b in
            "(SELECT \(sorts.joined(separator: ", ")), \(aliased) FROM \(source)"
                + whereClause(conditions + [b]) + orderBy + " LIMIT \(limit + offset))"
        }
        let outerOrder = terms.enumerated().map { "s\($0)" + ($1.descending ? " DESC" : " ASC") }.joined(separator: ", ")
        return "SELECT \(outputs.joined(separator: ", ")) FROM (\(inner.joined(separator: " UNION ALL "))) u ORDER BY \(outerOrder)" + tail
    }

    /// `(c1::text ILIKE $n OR c2::text ILIKE $n …)`: some cell's text contains `filter`,
    /// ignoring case (PROTOCOL.md 11.3, What a filter matches). One parameter, `$n`.
    public static func filter(columns: [PGColumn], parameter n: Int) -> String {
        "(" + columns.map { "\($0.valueExpression) ILIKE $\(n)" }.joined(separator: " OR ") + ")"
    }
}
