import TabdeckProtocol

/// One condition of `where` as typed: a column word, an operator and its literals, not yet
/// typed by the column (``typed(in:label:)`` does that against the table's columns).
public struct WhereTerm: Hashable, Sendable {
    /// A literal as typed: its text, and whether it was quoted (a quoted `'true'` is text).
    public struct Literal: Hashable, Sendable {
        public var text: String
        public var quoted: Bool
        public init(_ text: String, quoted: Bool = false) { self.text = text; self.quoted = quoted }
    }

    public var column: String
    public var op: WhereOperator
    public var literals: [Literal]

    public init(_ column: String, _ op: WhereOperator, _ literals: [Literal] = []) {
        self.column = column; self.op = op; self.literals = literals
    }
}

/// The `where` command's language (COMMANDS.md): conditions joined by `and`.
///
///     where amount >= 100 and state in (todo, doing) and note is not null
///     where created between 2025-01-01 and '2025-03-31 23:59:59' and name = 'Ada Lovelace'
///
/// Operators `=` (also `==`), `!=` (also `<>`), `<`, `<=`, `>`, `>=`, `between A and B`,
/// `in (A, B, …)`, `is null`, `is not null`. Keywords are matched without case where typed bare.
/// A literal is a bare word or quoted as elsewhere in the command language (`'…'`, or `"…"`
/// with backslash escapes); a column may be quoted too.
public enum WhereText {
    enum Token: Hashable {
        case word(String, quoted: Bool)
        case symbol(String)
    }

    static let symbolChars: Set<Character> = ["<", ">", "=", "!", "(", ")", ","]

    static func tokens(_ text: String) throws(CommandError) -> [Token] {
        var out: [Token] = []
        var i = text.startIndex
        while i < text.endIndex {
            let ch = text[i]
            if ch.isWhitespace { i = text.index(after: i); continue }
            if ch == "'" || ch == "\"" {
                var value = ""
                var j = text.index(after: i)
                var closed = false
                while j < text.endIndex {
                    let c = text[j]
                    if c == ch { closed = true; j = text.index(after: j); break }
                    if c == "\\" && ch == "\"" {
                        j = text.index(after: j)
                        guard j < text.endIndex else { break }
                        value.append(text[j])
                    } else {
                        value.append(c)
                    }
                    j = text.index(after: j)
                }
                guard closed else { throw CommandError("where: unterminated quote") }
                out.append(.word(value, quoted: true))
                i = j
                continue
            }
            if symbolChars.contains(ch) {
                var j = text.index(after: i)
                if "<>=!".contains(ch), j < text.endIndex, text[j] == "=" || (ch == "<" && text[j] == ">") { j = text.index(after: j) }
                out.append(.symbol(String(text[i..<j])))
                i = j
                continue
            }
            var j = i
            while j < text.endIndex, !text[j].isWhitespace, !symbolChars.contains(text[j]), text[j] != "'", text[j] != "\"" {
                j = text.index(after: j)
            }
            out.append(.word(String(text[i..<j]), quoted: false))
            i = j
        }
        return out
    }

    /// Parses the text after `where`.
    public static func parse(_ text: String) throws(CommandError) -> [WhereTerm] {
        let tokens = try tokens(text)
        var i = 0
        func peek() -> Token? { i < tokens.count ? tokens[i] : nil }
        func isKeyword(_ t: Token?, _ k: String) -> Bool {
            if case .word(let w, false)? = t { return w.lowercased() == k }
            return false
        }
        func literal(_ after: String) throws(CommandError) -> WhereTerm.Literal {
            guard case .word(let w, let quoted)? = peek() else {
                throw CommandError("where: a value is missing after \(after)")
            }
            i += 1
            return WhereTerm.Literal(w, quoted: quoted)
        }
        var terms: [WhereTerm] = []
        while true {
            guard case .word(let column, _)? = peek() else {
                throw CommandError(terms.isEmpty ? "where: a column is missing (usage: where COL OP VALUE [and …])"
                                                 : "where: a condition is missing after and")
            }
            i += 1
            let opToken = peek()
            i += 1
            var term: WhereTerm
            switch opToken {
            case .symbol(let s)?:
                let ops: [String: WhereOperator] = ["=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less,
                                                    "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual]
                guard let op = ops[s] else { throw CommandError("where: \"\(s)\" is not an operator after \(column)") }
                term = WhereTerm(column, op, [try literal(s)])
            case .word(let w, false)? where w.lowercased() == "between":
                let low = try literal("between")
                guard isKeyword(peek(), "and") else { throw CommandError("where: between needs and (between A and B)") }
                i += 1
                term = WhereTerm(column, .between, [low, try literal("between … and")])
            case .word(let w, false)? where w.lowercased() == "in":
                guard case .symbol("(")? = peek() else { throw CommandError("where: in needs a list in parentheses: in (A, B)") }
                i += 1
                var values: [WhereTerm.Literal] = []
                while true {
                    values.append(try literal("in ("))
                    if case .symbol(",")? = peek() { i += 1; continue }
                    guard case .symbol(")")? = peek() else { throw CommandError("where: in's list ends with )") }
                    i += 1
                    break
                }
                term = WhereTerm(column, .in, values)
            case .word(let w, false)? where w.lowercased() == "is":
                if isKeyword(peek(), "not") {
                    i += 1
                    guard isKeyword(peek(), "null") else { throw CommandError("where: is not needs null (is not null)") }
                    i += 1
                    term = WhereTerm(column, .notNull)
                } else {
                    guard isKeyword(peek(), "null") else { throw CommandError("where: is needs null (is null, is not null)") }
                    i += 1
                    term = WhereTerm(column, .null)
                }
            case nil:
                throw CommandError("where: an operator is missing after \(column) (=, !=, <, <=, >, >=, between, in, is null)")
            default:
                throw CommandError("where: \(describe(opToken!)) is not an operator after \(column) (=, !=, <, <=, >, >=, between, in, is null)")
            }
            terms.append(term)
            guard let next = peek() else { return terms }
            guard isKeyword(next, "and") else {
                throw CommandError("where: conditions are joined by and, not \(describe(next))")
            }
            i += 1
        }
    }

    static func describe(_ t: Token) -> String {
        switch t {
        case .word(let w, _): "\"\(Sanitizer.clean(w))\""
        case .symbol(let s): "\"\(s)\""
        }
    }

    /// A value as the command language writes it: bare when it reads back as the same word,
    /// else quoted.
    public static func literal(_ value: JSONValue) -> String {
        switch value {
        case .string(let s):
            let plain = !s.isEmpty && s.allSatisfy { !$0.isWhitespace && !symbolChars.contains($0) && $0 != "'" && $0 != "\"" }
                && !["and", "between", "in", "is", "not", "null", "true", "false"].contains(s.lowercased())
            if plain { return s }
            if !s.contains("'") { return "'" + s + "'" }
            var out = "\""
            for ch in s {
                if ch == "\"" || ch == "\\" { out.append("\\") }
                out.append(ch)
            }
            return out + "\""
        default:
            return JSONWriter.string(value, terminalSafe: true)
        }
    }

    /// A clause as the command language writes it, exactly (it parses back to the same
    /// conditions); ``shown(_:)`` for the screen.
    /// A clause as shown (status line, outputs, breadcrumbs): ``text(_:)`` with control
    /// characters made visible.
    public static func shown(_ clause: WhereClause) -> String { Sanitizer.clean(text(clause)) }

    public static func text(_ clause: WhereClause) -> String {
        clause.map { c in
            let column = literal(.string(c.column))
            switch c.op {
            case .null: return "\(column) is null"
            case .notNull: return "\(column) is not null"
            case .between: return "\(column) between \(literal(c.values[0])) and \(literal(c.values[1]))"
            case .in: return "\(column) in (\(c.values.map(literal).joined(separator: ", ")))"
            default: return "\(column) \(c.op.rawValue) \(literal(c.values[0]))"
            }
        }.joined(separator: " and ")
    }
}

extension WhereTerm {
    /// The condition with its literals typed by the column (found among `columns` by id, or
    /// by title without case): numbers exact, dates ISO 8601, `true`/`false`, an enum's values.
    public func typed(in columns: [ColumnSpec], label: String) throws(CommandError) -> WhereCondition {
        guard let spec = columns.first(where: { $0.id == column }) ?? columns.first(where: { $0.title.lowercased() == column.lowercased() }) else {
            throw CommandError("where: no column \"\(Sanitizer.clean(column))\" in \(label)",
                               suggestion: CommandParser.suggest(column, among: columns.map(\.id)))
        }
        var values: [JSONValue] = []
        for l in literals { values.append(try Self.value(l, spec)) }
        return WhereCondition(spec.id, op, values)
    }

    static func value(_ l: WhereTerm.Literal, _ spec: ColumnSpec) throws(CommandError) -> JSONValue {
        let shown = "\"\(Sanitizer.clean(l.text))\""
        switch spec.type {
        case .text: return .string(l.text)
        case .integer:
            guard ExactNumber(l.text, type: .integer) != nil else { throw CommandError("where: \(shown) is not an integer (column \(spec.id))") }
            return Int64(l.text).map { .int($0) } ?? .string(l.text)
        case .decimal:
            guard ExactNumber(l.text, type: .decimal) != nil else { throw CommandError("where: \(shown) is not a number (column \(spec.id))") }
            return .string(l.text)
        case .bool:
            switch l.text.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw CommandError("where: \(shown) is not true or false (column \(spec.id))")
            }
        case .date:
            guard ISODateTime(l.text) != nil else {
                throw CommandError("where: \(shown) is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with a zone; column \(spec.id))")
            }
            return .string(l.text)
        case .enumeration(let values):
            guard values.contains(l.text) else {
                throw CommandError("where: \(shown) is not a value of column \(spec.id) (\(values.joined(separator: ", ")))",
                                   suggestion: CommandParser.suggest(l.text, among: values))
            }
            return .string(l.text)
        }
    }
}
