import Foundation
import TabdeckProtocol

/// The differential half of the codec target: ``JSONParser`` against Foundation's
/// `JSONSerialization` on the same bytes.
enum FoundationJSON {
    /// Where the two parsers may disagree by design, and why; inputs in these cases are not
    /// compared (each case is named in the violation-free path, so the list stays honest).
    enum Difference: String, CaseIterable {
        /// The protocol is UTF-8 only; Foundation guesses UTF-16 and UTF-32 from NUL bytes and
        /// byte order marks, so texts with NULs or a BOM are not comparable.
        case otherEncodings = "Foundation detects UTF-16/UTF-32 and BOMs; the protocol is UTF-8 only"
        /// Invalid UTF-8 inside strings: Foundation rejects the text, JSONParser keeps going
        /// with U+FFFD (a plugin's bad byte costs a replaced character, not the whole line).
        case invalidUTF8 = "invalid UTF-8: JSONParser replaces it with U+FFFD, Foundation rejects the text"
        /// `\uD800` without its pair: JSONParser makes it U+FFFD, Foundation rejects it.
        case loneSurrogate = "a lone surrogate escape: JSONParser makes it U+FFFD, Foundation rejects it"
        /// A key twice in one object: JSONParser keeps the first, Foundation's dictionary the last.
        case duplicateKey = "a duplicate key: the parsers keep different values"
        /// Nesting deeper than ``JSONParser/maxDepth``: JSONParser refuses by design.
        case deepNesting = "nesting deeper than JSONParser.maxDepth"
        /// A comma before `]` or `}`: Foundation accepts it (JSON5 leniency of its parser),
        /// RFC 8259 and JSONParser do not.
        case trailingComma = "a trailing comma: Foundation accepts it, RFC 8259 does not"
        /// Numbers Foundation reads as Decimal or rounds differently: its conversion is not
        /// correctly rounded past 15 significant digits (`1111.1111111111111` is
        /// 1111.111111111111 for strtod and Python, 1111.1111111111111 for Foundation), and it
        /// reads huge exponents as Decimal. JSONParser uses the exact path or strtod, correctly
        /// rounded (checked against strtod by the protocol tests); numbers of more than 15
        /// digits or with an exponent are not compared.
        case longNumber = "numbers beyond Double's precision or range"
    }

    static func compare(_ bytes: [UInt8]) -> FuzzViolation? {
        if bytes.contains(0) || bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF])
            || bytes.starts(with: [0xFF, 0xFE]) { return nil }  // .otherEncodings
        if String(validating: bytes, as: UTF8.self) == nil { return nil }  // .invalidUTF8
        let ours: JSONValue?
        do { ours = try JSONParser.parse(bytes) } catch { ours = nil }
        let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        switch (ours, theirs) {
        case (nil, nil): return nil
        case (let value?, nil):
            if containsLoneSurrogateEscape(bytes) || hasLongNumber(bytes) { return nil }
            return FuzzViolation("codec", "JSONParser and JSONSerialization accept the same texts",
                                 "JSONParser accepts \(excerpt(bytes)) as \(value), Foundation rejects it")
        case (nil, _?):
            if depth(bytes) > JSONParser.maxDepth || hasLongNumber(bytes) || hasTrailingComma(bytes) { return nil }
            return FuzzViolation("codec", "JSONParser and JSONSerialization accept the same texts",
                                 "Foundation accepts \(excerpt(bytes)), JSONParser rejects it")
        case (let value?, let object?):
            if hasLongNumber(bytes) { return nil }
            if let difference = disagreement(value, object) {
                return FuzzViolation("codec", "JSONParser and JSONSerialization agree on the value",
                                     "\(excerpt(bytes)): \(difference)")
            }
            return nil
        }
    }

    /// Where `ours` and `theirs` differ, nil if they agree (objects with a duplicate key are
    /// not compared).
    static func disagreement(_ ours: JSONValue, _ theirs: Any) -> String? {
        switch ours {
        case .null:
            return theirs is NSNull ? nil : "null vs \(theirs)"
        case .bool(let b):
            guard let n = theirs as? NSNumber, isBool(n), n.boolValue == b else { return "\(b) vs \(theirs)" }
            return nil
        case .int(let i):
            guard let n = theirs as? NSNumber, !isBool(n), n.doubleValue == Double(i) else { return "\(i) vs \(theirs)" }
            return nil
        case .double(let d):
            guard let n = theirs as? NSNumber, !isBool(n), n.doubleValue == d else { return "\(d) vs \(theirs)" }
            return nil
        case .string(let s):
            guard let t = theirs as? String, t == s else { return "\(String(reflecting: s)) vs \(theirs)" }
            return nil
        case .array(let items):
            guard let t = theirs as? [Any], t.count == items.count else { return "array of \(items.count) vs \(theirs)" }
            for (a, b) in zip(items, t) { if let d = disagreement(a, b) { return d } }
            return nil
        case .object(let object):
            guard let t = theirs as? [String: Any] else { return "object vs \(theirs)" }
            if Set(object.keys).count != object.keys.count { return nil }  // .duplicateKey
            guard t.count == object.keys.count else { return "\(object.keys.count) keys vs \(t.count)" }
            for (key, value) in zip(object.keys, object.values) {
                guard let other = t[key] else { return "key \(String(reflecting: key)) missing in Foundation's" }
                if let d = disagreement(value, other) { return d }
            }
            return nil
        }
    }

    static func isBool(_ n: NSNumber) -> Bool {
        String(cString: n.objCType) == "c"
    }

    /// Whether the text holds a `\uD800`–`\uDFFF` escape (paired or not: cheap and enough).
    static func containsLoneSurrogateEscape(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        return text.contains("\\ud8") || text.contains("\\ud9") || text.contains("\\uda") || text.contains("\\udb")
            || text.contains("\\udc") || text.contains("\\udd") || text.contains("\\ude") || text.contains("\\udf")
    }

    /// Calls `body` with each byte outside string contents (a string's opening `"` included, so
    /// callers see where one starts), until it returns false.
    static func scanOutsideStrings(_ bytes: [UInt8], _ body: (UInt8) -> Bool) {
        var inString = false, escaped = false
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            if b == 0x22 { inString = true }
            if !body(b) { return }
        }
    }

    /// Whether a number in the text has more than 15 significant digits or an exponent.
    static func hasLongNumber(_ bytes: [UInt8]) -> Bool {
        var digits = 0, found = false
        scanOutsideStrings(bytes) { b in
            if (0x30...0x39).contains(b) {
                digits += 1
                found = digits > 15
            } else if b == 0x65 || b == 0x45 {
                found = digits > 0
            } else if b != 0x2E && b != 0x2D && b != 0x2B {
                digits = 0
            }
            return !found
        }
        return found
    }

    /// Whether a `,` is followed (after whitespace) by `]` or `}` outside strings.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        var afterComma = false, found = false
        scanOutsideStrings(bytes) { b in
            switch b {
            case 0x2C: afterComma = true
            case 0x5D, 0x7D: found = afterComma
            case 0x20, 0x09, 0x0A, 0x0D: break
            default: afterComma = false
            }
            return !found
        }
        return found
    }

    /// The deepest nesting of `[` and `{` outside strings.
    static func depth(_ bytes: [UInt8]) -> Int {
        var depth = 0, deepest = 0
        scanOutsideStrings(bytes) { b in
            switch b {
            case 0x5B, 0x7B: depth += 1; deepest = max(deepest, depth)
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
            return true
        }
        return deepest
    }
}
