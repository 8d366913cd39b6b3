#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TabdeckProtocol

/// The JSON parser as it was before the fast scanner (commit d8d6622), kept verbatim as the
/// reference the fast one is checked against: same values, same errors at the same places.
enum ReferenceJSONParser {
    static let maxDepth = 512

    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var scanner = ReferenceScanner(buffer)
            scanner.skipWhitespace()
            let value = try scanner.parseValue(depth: 0)
            scanner.skipWhitespace()
            if scanner.index < buffer.count { throw scanner.error("unexpected text after the JSON value") }
            return value
        }
    }
}

struct ReferenceScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? index, bytes.count)
        var line = 1, lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
        return JSONParseError(line: line, column: offset - lineStart + 1, offset: offset, reason: reason)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index])), expected a value")
        }
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let start = index
        guard index + count <= bytes.count else { throw error("invalid literal") }
        let ptr = word.utf8Start
        for i in 0..<count where bytes[start + i] != ptr[i] { throw error("invalid literal", at: start) }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > ReferenceJSONParser.maxDepth { throw error("nesting deeper than \(ReferenceJSONParser.maxDepth)") }
        index += 1
        var keys: [String] = []
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(JSONObject()) }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key, found \(describe(bytes[index]))") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            if let existing = keys.firstIndex(of: key) { values[existing] = value } else { keys.append(key); values.append(value) }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                var object = JSONObject()
                for (k, v) in zip(keys, values) { object[k] = v }
                return .object(object)
            default: throw error("expected ',' or '}' in an object, found \(describe(bytes[index]))")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > ReferenceJSONParser.maxDepth { throw error("nesting deeper than \(ReferenceJSONParser.maxDepth)") }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw error("expected ',' or ']' in an array, found \(describe(bytes[index]))")
            }
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("control character \(describe(b)) in a string (must be escaped)") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string", at: open) }
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw error("control character \(describe(b)) in a string (must be escaped)") }
            if b != UInt8(ascii: "\\") { out.append(b); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by a low one.
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try parseHex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else { scalar = 0xFFFD }
                    } else { scalar = 0xFFFD }
                } else if (0xDC00..<0xE000).contains(scalar) {
                    scalar = 0xFFFD
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8))
            default: throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: index - 2)
            }
        }
        throw error("unterminated string", at: open)
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw error("invalid number (leading zero)", at: start)
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while index < bytes.count, isDigit(bytes[index]) {
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            if o1 || o2 { overflow = true }
            magnitude = m2
            index += 1
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number (digit expected after '.')", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number (digit expected in exponent)", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger && !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) + 1 { return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)) }
            } else if magnitude <= UInt64(Int64.max) {
                return .int(Int64(magnitude))
            }
        }
        let value = parseDouble(start, index)
        // Numbers beyond a double are refused (the fuzz finding that made JSONParser refuse them).
        guard value.isFinite else { throw error("number out of range (beyond ±1.8e308)", at: start) }
        return .double(value)
    }

    func parseDouble(_ start: Int, _ end: Int) -> Double {
        var text = [CChar](repeating: 0, count: end - start + 1)
        for i in start..<end { text[i - start] = CChar(bitPattern: bytes[i]) }
        return strtod(text, nil)
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
