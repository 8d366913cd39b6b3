import TabdeckPluginKit
import TabdeckProtocol

/// A column of a browsed PostgreSQL table or view, as read from the catalog.
public struct PGColumn: Hashable, Sendable {
    public var name: String
    /// `format_type` of the column (`integer`, `character varying(20)`, `timestamp with time zone`).
    public var sqlType: String
    public var notNull: Bool

    public init(name: String, sqlType: String, notNull: Bool) {
        self.name = name; self.sqlType = sqlType; self.notNull = notNull
    }

    /// The protocol type: numbers, booleans and dates keep theirs; everything else is text.
    public var type: ColumnType {
        switch sqlType {
        case "smallint", "integer", "bigint": .integer
        case "real", "double precision": .decimal
        case _ where sqlType.hasPrefix("numeric"): .decimal
        case "boolean": .bool
        case "date": .date
        default: .text
        }
    }

    /// The expression the column is sorted and compared by, following the protocol's sort
    /// order (PROTOCOL.md 11.3): numbers, booleans and dates natively; text by bytes (`COLLATE
    /// "C"`); every other type by its text, also by bytes.
    public var sortExpression: String {
        let q = PGSQL.quote(name)
        switch type {
        case .integer, .decimal, .bool, .date: return q
        default:
            let textual = ["text", "name"].contains(sqlType) || sqlType.hasPrefix("character")
            return textual ? "\(q) COLLATE \"C\"" : "(\(q)::text) COLLATE \"C\""
        }
    }

    /// A bind parameter `$n` typed as ``sortExpression`` (values travel as text).
    public func parameter(_ n: Int) -> String {
        switch type {
        case .integer, .decimal, .bool, .date: "$\(n)::\(sqlType)"
        default: "$\(n)::text COLLATE \"C\""
        }
    }
}

/// One key of an ORDER BY: its expression, the bind cast of its values, its direction and
/// whether it can be NULL.
public struct PGOrderTerm: Hashable, Sendable {
    public var expression: String
    /// `$n` as this key's type, for `n`.
    public var castFormat: String
    public var descending: Bool
    public var notNull: Bool

    public init(expression: String, castFormat: String, descending: Bool, notNull: Bool) {
        self.expression = expression; self.castFormat = castFormat; self.descending = descending; self.notNull = notNull
    }

    func parameter(_ n: Int) -> String { castFormat.replacingOccurrences(of: "$n", with: "$\(n)") }

    /// `expr ASC NULLS FIRST` / `expr DESC NULLS LAST`: the protocol's null order (nulls before
    /// every value ascending, after descending). A NOT NULL key says neither, so that a plain
    /// btree index serves it.
    public var sql: String {
        expression + (descending ? " DESC" : " ASC") + (notNull ? "" : (descending ? " NULLS LAST" : " NULLS FIRST"))
    }
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
    /// (primary-key columns or `ctid`) in the direction of the last key.
    public static func orderTerms(_ sort: [SortKey], columns: [PGColumn], identity: [PGOrderTerm]) throws -> [PGOrderTerm] {
        var terms: [PGOrderTerm] = []
        var used = Set<String>()
        for (i, key) in sort.enumerated() {
            guard let c = columns.first(where: { $0.name == key.column }) else {
                throw RPCError.badParams("params.sort[\(i)].column: unknown column \"\(key.column)\"", path: "params.sort[\(i)].column")
            }
            guard used.insert(c.name).inserted else { continue }
            terms.append(PGOrderTerm(expression: c.sortExpression, castFormat: c.parameter(0).replacingOccurrences(of: "$0", with: "$n"),
                                     descending: key.direction == .descending, notNull: c.notNull))
        }
        let descending = terms.last?.descending ?? false
        for var t in identity where !terms.contains(where: { $0.expression == t.expression }) {
            t.descending = descending
            terms.append(t)
        }
        return terms
    }

    /// The condition "after the row whose key values are `key`" in the order of `terms`, with
    /// its parameters numbered from `first`. Values are text (nil = NULL).
    ///
    /// Same direction, no NULL possible: a row comparison `(k1, k2) > ($1, $2)` that a btree
    /// index seeks. Otherwise spelled out key by key with the protocol's null order:
    /// `k1 > $1 OR (k1 = $2 AND k2 > $3)`, `IS NULL` for a NULL anchor value.
    public static func after(_ terms: [PGOrderTerm], _ key: [String?], first: Int = 1) -> (sql: String, binds: [String?]) {
        precondition(terms.count == key.count && !terms.isEmpty)
        var n = first
        func next() -> Int { defer { n += 1 }; return n }
        let descending = terms[0].descending
        if terms.allSatisfy({ $0.descending == descending && $0.notNull }) && key.allSatisfy({ $0 != nil }) {
            let op = descending ? "<" : ">"
            if terms.count == 1 { return ("\(terms[0].expression) \(op) \(terms[0].parameter(next()))", key) }
            let lhs = terms.map(\.expression).joined(separator: ", ")
            let rhs = terms.map { $0.parameter(next()) }.joined(separator: ", ")
            return ("(\(lhs)) \(op) (\(rhs))", key)
        }
        var alternatives: [String] = []
        var binds: [String?] = []
        for i in terms.indices {
            // Nothing comes after NULL descending: no alternative (and no parameter numbered for it).
            if terms[i].descending && key[i] == nil { continue }
            var parts: [String] = []
            var partBinds: [String?] = []
            for j in 0..<i {
                if let v = key[j] { parts.append("\(terms[j].expression) = \(terms[j].parameter(next()))"); partBinds.append(v) }
                else { parts.append("\(terms[j].expression) IS NULL") }
            }
            let t = terms[i]
            switch (t.descending, key[i]) {
            case (false, nil): parts.append("\(t.expression) IS NOT NULL")
            case (false, let v?): parts.append("\(t.expression) > \(t.parameter(next()))"); partBinds.append(v)
            case (true, nil): continue  // nothing comes after NULL descending
            case (true, let v?):
                let p = t.parameter(next())
                parts.append(t.notNull ? "\(t.expression) < \(p)" : "(\(t.expression) < \(p) OR \(t.expression) IS NULL)")
                partBinds.append(v)
            }
            alternatives.append("(" + parts.joined(separator: " AND ") + ")")
            binds += partBinds
        }
        if alternatives.isEmpty { return ("FALSE", []) }
        return ("(" + alternatives.joined(separator: " OR ") + ")", binds)
    }

    /// `(c1::text ILIKE $n OR c2::text ILIKE $n …)`: some cell's text contains `filter`,
    /// ignoring case (PROTOCOL.md 11.3, What a filter matches). One parameter, `$n`.
    public static func filter(columns: [PGColumn], parameter n: Int) -> String {
        "(" + columns.map { "\(quote($0.name))::text ILIKE $\(n)" }.joined(separator: " OR ") + ")"
    }
}
