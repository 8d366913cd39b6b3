#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte scanner behind ``JSONParser``: values, arrays, objects and literals.
///
/// Built for the `rows` replies (thousands of small objects per line): the members of the
/// objects and arrays being parsed collect on two reusable stacks and each container is
/// copied out once at its exact size, and objects with the same keys in the same order
/// (every row) share one keys array. Strings and numbers are in `JSONScanner+Strings.swift`
/// and `JSONScanner+Numbers.swift`.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Values of the arrays and objects still open, innermost last.
    var valueStack = JSONValueStack()
    /// Keys of the objects still open, innermost last.
    var keyStack: [String] = []
    /// Key arrays of recent objects, reused when an object has exactly the same keys.
    var keyCache: [CachedKeys] = []
    var keyCacheNext = 0
    /// The entry of `keyCache` used by the last object closed: the next object's keys are
    /// first matched byte for byte against it (every row of a page has the same keys).
    var hint = -1
    /// Where escaped strings are unescaped: allocated at the first escape, grown as needed
    /// and reused; freed by ``release()``.
    var unescaped: UnsafeMutablePointer<UInt8>?
    var unescapedCapacity = 0
    /// Whether the top-level `result` and `params` members are first tried as a `rows` result
    /// (`JSONScanner+Rows.swift`).
    var rowsFastPath = false
    /// Whether short ASCII strings are made from their bytes (`SmallStrings`).
    let smallStrings = SmallStrings.enabled

    static let keyCacheSize = 8

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Frees the scanner's memory; call once when done.
    func release() {
        valueStack.free()
        unescaped?.deallocate()
    }

    /// The unescape buffer with room for at least `capacity` bytes, the first `keeping` of
    /// them kept. Starts small (a line-sized buffer per line costs more than the strings):
    /// a string's unescaped bytes are never more than its escaped ones.
    @inline(__always) mutating func unescapeBuffer(capacity: Int, keeping: Int) -> UnsafeMutablePointer<UInt8> {
        if let unescaped, capacity <= unescapedCapacity { return unescaped }
        return growUnescapeBuffer(capacity: capacity, keeping: keeping)
    }

    mutating func growUnescapeBuffer(capacity: Int, keeping: Int) -> UnsafeMutablePointer<UInt8> {
        let size = max(capacity, unescapedCapacity * 2, 256)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        if let unescaped {
            buffer.update(from: unescaped, count: keeping)
            unescaped.deallocate()
        }
        unescaped = buffer
        unescapedCapacity = size
        return buffer
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? index, bytes.count)
        var line = 1, lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
        return JSONParseError(line: line, column: offset - lineStart + 1, offset: offset, reason: reason)
    }

    @inline(__always) mutating func skipWhitespace() {
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
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
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
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth)") }
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(JSONObject()) }
        let keyBase = keyStack.count
        let valueBase = valueStack.count
        let expected: CachedKeys? = hint >= 0 ? keyCache[hint] : nil
        var allExpected = expected != nil  // every key so far is the expected one at its place
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key, found \(describe(bytes[index]))") }
            let position = keyStack.count - keyBase
            let key: String
            if allExpected, let expected, position < expected.keys.count, let raw = expected.raw[position], matchesKey(raw) {
                key = expected.keys[position]
                index += raw.count + 2
            } else {
                allExpected = false
                key = try parseString()
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            index += 1
            skipWhitespace()
            let value: JSONValue
            if rowsFastPath, depth == 1, key == "result" || key == "params", at(UInt8(ascii: "{")), let rows = parseRowsResult(depth: depth + 1) {
                value = rows
            } else {
                value = try parseValue(depth: depth)
            }
            if allExpected {
                keyStack.append(key)  // distinct: the expected keys are
                valueStack.push(value)
            } else if let existing = keyStack[keyBase...].firstIndex(of: key) {
                valueStack.replace(at: valueBase + existing - keyBase, with: value)  // a repeated key keeps its last value
            } else {
                keyStack.append(key)
                valueStack.push(value)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                let keys: [String]
                if allExpected, let expected, expected.keys.count == keyStack.count - keyBase {
                    keys = expected.keys
                } else {
                    keys = sharedKeys(from: keyBase)
                }
                let values = valueStack.pop(from: valueBase)
                keyStack.removeLast(keyStack.count - keyBase)
                return .object(JSONObject(uniqueKeys: keys, values: values))
            default: throw error("expected ',' or '}' in an object, found \(describe(bytes[index]))")
            }
        }
    }

    /// The keys on the stack from `base` on, as an array shared with earlier objects that had
    /// the same keys in the same order.
    mutating func sharedKeys(from base: Int) -> [String] {
        let count = keyStack.count - base
        for (n, cached) in keyCache.enumerated() where cached.keys.count == count {
            var same = true
            for i in 0..<count where cached.keys[i] != keyStack[base + i] { same = false; break }
            if same { hint = n; return cached.keys }
        }
        let entry = CachedKeys(Array(keyStack[base...]))
        if keyCache.count < Self.keyCacheSize {
            hint = keyCache.count
            keyCache.append(entry)
        } else {
            hint = keyCacheNext
            keyCache[keyCacheNext] = entry
            keyCacheNext = (keyCacheNext + 1) % Self.keyCacheSize
        }
        return entry.keys
    }

    /// Whether the text at `index` is `"` + `raw` + `"`.
    func matchesKey(_ raw: [UInt8]) -> Bool {
        let end = index + 1 + raw.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return false }
        return raw.withUnsafeBufferPointer { key in
            key.isEmpty || memcmp(bytes.baseAddress! + index + 1, key.baseAddress!, key.count) == 0
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth)") }
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array([]) }
        let base = valueStack.count
        while true {
            skipWhitespace()
            valueStack.push(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(valueStack.pop(from: base))
            default: throw error("expected ',' or ']' in an array, found \(describe(bytes[index]))")
            }
        }
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}

/// The keys of an object, and for each the bytes that stand for it between quotes when it
/// needs no escaping (nil otherwise: it is then always parsed).
struct CachedKeys {
    let keys: [String]
    let raw: [[UInt8]?]

    init(_ keys: [String]) {
        self.keys = keys
        raw = keys.map { key in
            let bytes = Array(key.utf8)
            return bytes.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C } ? bytes : nil
        }
    }
}
