#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The typed fast path for the `result` of a `rows` reply and the `params` of a `rows/chunk`
/// notification: straight from bytes to ``Row``s, without a `JSONValue` object per row. Taken
/// only by ``MessageCodec/decode(_:)-([UInt8])`` for the top-level `result` or `params` member. Anything it does not take (another shape, a key it does
/// not know, a syntax error) makes it give up and leave the scanner as it found it; the
/// generic parser then reads the same text and reports any error as always.
extension JSONScanner {
    /// Not the shape the fast path takes (never reported: the generic parser reads the text).
    static let notRows = JSONParseError(line: 0, column: 0, offset: 0, reason: "")

    /// The rows result at `index` (a `{`), or nil with the scanner unchanged.
    mutating func parseRowsResult(depth: Int) -> JSONValue? {
        let start = index, keyBase = keyStack.count, valueBase = valueStack.count
        do {
            return .object(JSONObject(rows: try rowsResult(depth: depth)))
        } catch {
            index = start
            keyStack.removeLast(keyStack.count - keyBase)
            valueStack.drop(to: valueBase)
            return nil
        }
    }

    @inline(__always) func at(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    /// Whether the text at `index` is `quoted` (a key with its quotes, needing no escapes).
    @inline(__always) func matchesKey(_ quoted: StaticString) -> Bool {
        let n = quoted.utf8CodeUnitCount
        guard index + n <= bytes.count else { return false }
        return memcmp(bytes.baseAddress! + index, quoted.utf8Start, n) == 0
    }

    /// Skips whitespace and the `:` after a key, and the whitespace after it.
    @inline(__always) mutating func colon() throws(JSONParseError) {
        skipWhitespace()
        guard at(UInt8(ascii: ":")) else { throw Self.notRows }
        index += 1
        skipWhitespace()
    }

    /// After a member: true at `,` (skipped), false at `close` (skipped).
    @inline(__always) mutating func more(_ close: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw Self.notRows }
        if bytes[index] == UInt8(ascii: ",") { index += 1; return true }
        if bytes[index] == close { index += 1; return false }
        throw Self.notRows
    }

    mutating func rowsResult(depth: Int) throws(JSONParseError) -> RowsPayload {
        index += 1  // the `{`
        skipWhitespace()
        if at(UInt8(ascii: "}")) { throw Self.notRows }
        var keys: [String] = [], others: [JSONValue] = []
        var rowsIndex = -1
        var rows: [Row] = [], shapes: [RowShape] = []
        repeat {
            skipWhitespace()
            guard at(UInt8(ascii: "\"")) else { throw Self.notRows }
            let key = try parseString()
            if keys.contains(key) { throw Self.notRows }
            try colon()
            switch key {
            case "rows":
                guard at(UInt8(ascii: "[")) else { throw Self.notRows }
                (rows, shapes) = try rowsArray(depth: depth + 1)
                rowsIndex = keys.count
                others.append(.array([]))
            case "generation", "offset", "total", "id":  // `id`: a `rows/chunk` notification's params
                others.append(try parseValue(depth: depth))
            default:
                throw Self.notRows
            }
            keys.append(key)
        } while try more(UInt8(ascii: "}"))
        guard rowsIndex >= 0 else { throw Self.notRows }
        return RowsPayload(keys: keys, others: others, rowsIndex: rowsIndex, rows: rows, shapes: shapes)
    }

    /// The rows array at `index` (a `[`): the rows, and for each its ``RowShape``.
    mutating func rowsArray(depth: Int) throws(JSONParseError) -> ([Row], [RowShape]) {
        index += 1  // the `[`
        skipWhitespace()
        if at(UInt8(ascii: "]")) { index += 1; return ([], []) }
        var rows: [Row] = []
        var shapes: [RowShape] = []
        var previous = RowShape()
        var cellCount = 8  // the previous row's number of cells
        let rowDepth = depth + 1
        repeat {
            skipWhitespace()
            guard at(UInt8(ascii: "{")) else { throw Self.notRows }
            let rowStart = index
            index += 1
            skipWhitespace()
            if at(UInt8(ascii: "}")) { throw Self.notRows }
            var id: String?, cells: [JSONValue]?, section: String?, detail: String?, hasChildren = false
            var shape = RowShape()
            repeat {
                skipWhitespace()
                guard at(UInt8(ascii: "\"")), shape.count < RowShape.maxKeys else { throw Self.notRows }
                // Most rows have the keys of the row before, in the same order: matched byte for byte.
                var key: RowKey
                if let expected = previous.key(at: shape.count), matchesKey(expected.quoted) {
                    index += expected.quoted.utf8CodeUnitCount
                    key = expected
                } else {
                    guard let named = RowKey(name: try parseString()) else { throw Self.notRows }
                    key = named
                }
                try colon()
                guard index < bytes.count else { throw Self.notRows }
                let b = bytes[index]
                switch key {
                case .id:
                    if b == UInt8(ascii: "\"") {
                        id = try parseString()
                    } else if b == UInt8(ascii: "-") || isDigit(b) {
                        // An integer without fraction or exponent (else parseNumber gives a
                        // double): its text is String(i), but for "-0".
                        let numberStart = index
                        guard case .int = try parseNumber() else { throw Self.notRows }
                        let text = UnsafeBufferPointer(rebasing: bytes[numberStart..<index])
                        id = text.count == 2 && text[0] == UInt8(ascii: "-") && text[1] == UInt8(ascii: "0")
                            ? "0" : makeString(text.baseAddress!, count: text.count, readable: bytes.count - numberStart)
                        shape.idIsInteger = true
                    } else {
                        throw Self.notRows
                    }
                case .cells:
                    guard b == UInt8(ascii: "[") else { throw Self.notRows }
                    let rowCells = try rowCells(depth: rowDepth + 1, expected: cellCount)
                    cellCount = rowCells.count
                    cells = rowCells
                case .section, .detail:
                    let text: String?
                    if b == UInt8(ascii: "\"") {
                        text = try parseString()
                    } else if b == UInt8(ascii: "n") {
                        try expectWord("null")
                        text = nil
                    } else {
                        throw Self.notRows
                    }
                    if key == .section { section = text } else { detail = text }
                case .hasChildren, .nullHasChildren:
                    if b == UInt8(ascii: "t") { try expectWord("true"); hasChildren = true; key = .hasChildren }
                    else if b == UInt8(ascii: "f") { try expectWord("false"); hasChildren = false; key = .hasChildren }
                    else if b == UInt8(ascii: "n") { try expectWord("null"); hasChildren = false; key = .nullHasChildren }
                    else { throw Self.notRows }
                }
                guard shape.append(key) else { throw Self.notRows }  // a repeated key
            } while try more(UInt8(ascii: "}"))
            // Taken out of the optionals and moved into the row: no retain and release per field.
            guard let id = id.take(), let cells = cells.take() else { throw Self.notRows }
            if rows.isEmpty {
                // Room for as many rows as the rest of the line holds if they are as long as this one.
                let estimate = min(1 + (bytes.count - index) / max(index - rowStart, 1), 4096)
                rows.reserveCapacity(estimate)
                shapes.reserveCapacity(estimate)
            }
            rows.append(Row(id: consume id, cells: consume cells, section: section.take(), detail: detail.take(),
                            hasChildren: hasChildren))
            shapes.append(shape)
            previous = shape
        } while try more(UInt8(ascii: "]"))
        return (rows, shapes)
    }

    /// The cells array at `index` (a `[`): strings and numbers read here, anything else
    /// through `parseValue` (the same values and nesting limit as `parseArray`). Appended straight
    /// to an array with room for `expected` cells (the row before's count), not collected on the
    /// value stack first.
    mutating func rowCells(depth: Int, expected: Int) throws(JSONParseError) -> [JSONValue] {
        if depth > JSONParser.maxDepth { throw Self.notRows }
        index += 1  // the `[`
        skipWhitespace()
        if at(UInt8(ascii: "]")) { index += 1; return [] }
        var cells: [JSONValue] = []
        cells.reserveCapacity(expected)
        repeat {
            skipWhitespace()
            guard index < bytes.count else { throw Self.notRows }
            switch bytes[index] {
            case UInt8(ascii: "\""): cells.append(.string(try parseString()))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): cells.append(try parseNumber())
            default: cells.append(try parseValue(depth: depth))
            }
        } while try more(UInt8(ascii: "]"))
        return cells
    }
}
