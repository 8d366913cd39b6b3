import TabdeckCore
import TabdeckProtocol

/// The text after `where` typed at the prompt, and the conditions it makes.
///
/// Invariants: a clause the parser accepts and the columns type is written back by
/// ``WhereText/text(_:)`` as text that parses and types to the same conditions; each condition's
/// wire form reads back as itself; evaluating it on cells of every type (null, wrong types,
/// huge numbers, odd dates) never traps, and `!=` never holds where `=` does.
enum WhereTarget {
    static let target = FuzzTarget(
        name: "where",
        summary: "the where parser: accepted conditions written back parse to the same, their wire form round-trips, evaluation never traps",
        check: check)

    static let columns = [
        ColumnSpec(id: "n", type: .integer), ColumnSpec(id: "amount", title: "Amount", type: .decimal),
        ColumnSpec(id: "ok", type: .bool), ColumnSpec(id: "at", type: .date),
        ColumnSpec(id: "state", type: .enumeration(["todo", "doing", "done"])), ColumnSpec(id: "name"),
        ColumnSpec(id: "first name", type: .text, order: .casefold),
    ]

    static let rows: [[JSONValue]] = [
        [.int(3), .string("3.00"), .bool(true), .string("2025-03-30T01:30:00+01:00"), .string("doing"), .string("Ada"), .string("ada")],
        [.null, .null, .null, .null, .null, .null, .null],
        [.string("123456789012345678901234567890"), .double(1.3), .bool(false), .string("2025-03-30"), .string("todo"), .string(""), .string("Zoë")],
        [.double(2.5), .string("NaN"), .string("x"), .string("not a date"), .string("nope"), .int(7), .array([])],
    ]

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        let text = String(decoding: bytes, as: UTF8.self)
        let terms: [WhereTerm]
        do { terms = try WhereText.parse(text) } catch {
            return error.message.isEmpty ? FuzzViolation("where", "an error says what is wrong", excerpt(bytes)) : nil
        }
        var clause: WhereClause = []
        for term in terms {
            do { clause.append(try term.typed(in: columns, label: "t")) } catch { return nil }
        }
        let written = WhereText.text(clause)
        do {
            var again: WhereClause = []
            for term in try WhereText.parse(written) { again.append(try term.typed(in: columns, label: "t")) }
            guard again == clause else {
                return FuzzViolation("where", "text(clause) parses to clause", "\(excerpt(bytes)) → \(String(reflecting: written))")
            }
        } catch {
            return FuzzViolation("where", "text(clause) parses", "\(excerpt(bytes)) → \(String(reflecting: written)): \(error)")
        }
        for c in clause {
            guard let back = try? WhereCondition(reader: JSONReader(c.json)), back == c else {
                return FuzzViolation("where", "a condition's wire form reads back", "\(excerpt(bytes)) → \(JSONWriter.string(c.json))")
            }
            guard let i = columns.firstIndex(where: { $0.id == c.column }) else { continue }
            for row in rows {
                _ = Where.matches(row, columns: columns, [c])
                if c.op == .equal, Where.holds(c, row[i], type: columns[i].type, order: columns[i].order),
                   Where.holds(WhereCondition(c.column, .notEqual, c.values), row[i], type: columns[i].type, order: columns[i].order) {
                    return FuzzViolation("where", "= and != never both hold", "\(excerpt(bytes)) on \(JSONWriter.string(row[i]))")
                }
            }
        }
        return nil
    }
}
