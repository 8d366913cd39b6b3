/// A JSON value as it travels on the wire.
///
/// Integers and decimals are kept apart so that row counts, offsets and ids never
/// pass through floating point.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object that keeps its keys in the order they were written.
///
/// Objects on the protocol are small (a handful of keys), so a pair of arrays with a
/// linear lookup beats hashing. The `result` of a `rows` reply decoded by
/// ``MessageCodec/decode(_:)-([UInt8])`` holds its rows already as ``Row``s (see
/// `RowsPayload`); its members are then made as `JSONValue`s only when read, and equal
/// what the generic parser gives for the same text.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral, Sequence {
    enum Storage: Sendable {
        case members(keys: [String], values: [JSONValue])
        case rows(RowsPayload)
    }

    var storage: Storage

    /// The keys, in order.
    public var keys: [String] {
        switch storage {
        case .members(let keys, _): keys
        case .rows(let payload): payload.keys
        }
    }

    /// The values, in the order of ``keys``.
    public var values: [JSONValue] {
        switch storage {
        case .members(_, let values): values
        case .rows(let payload): payload.keys.indices.map(payload.value(at:))
        }
    }

    /// An empty object.
    public init() { storage = .members(keys: [], values: []) }

    /// An object with the given pairs, in order. A repeated key keeps its last value.
    public init(_ pairs: [(String, JSONValue)]) {
        var keys: [String] = [], values: [JSONValue] = []
        keys.reserveCapacity(pairs.count); values.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            if let i = keys.firstIndex(of: key) { values[i] = value } else { keys.append(key); values.append(value) }
        }
        storage = .members(keys: keys, values: values)
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    /// An object from keys known to be distinct and their values (the parser's fast path).
    init(uniqueKeys keys: [String], values: [JSONValue]) { storage = .members(keys: keys, values: values) }

    /// A `rows` result decoded straight to rows.
    init(rows payload: RowsPayload) { storage = .rows(payload) }

    /// The number of keys.
    public var count: Int { keys.count }

    /// The value for `key`; assigning `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get {
            switch storage {
            case .members(let keys, let values):
                for i in keys.indices where keys[i] == key { return values[i] }
                return nil
            case .rows(let payload):
                for i in payload.keys.indices where payload.keys[i] == key { return payload.value(at: i) }
                return nil
            }
        }
        set {
            var keys = self.keys, values = self.values
            storage = .members(keys: [], values: [])  // so that the arrays are uniquely held
            if let i = keys.firstIndex(of: key) {
                if let newValue { values[i] = newValue } else { keys.remove(at: i); values.remove(at: i) }
            } else if let newValue {
                keys.append(key); values.append(newValue)
            }
            storage = .members(keys: keys, values: values)
        }
    }

    public func makeIterator() -> Zip2Sequence<[String], [JSONValue]>.Iterator {
        zip(keys, values).makeIterator()
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        if case .rows(let x) = a.storage, case .rows(let y) = b.storage, x === y { return true }
        return a.keys == b.keys && a.values == b.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

extension JSONValue {
    /// The object, if this is one.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    /// The array, if this is one.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The string, if this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The integer, if this is an integer or a decimal without a fraction.
    public var intValue: Int64? {
        switch self {
        case .int(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: Int64(d)
        default: nil
        }
    }
    /// The number as a Double, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    /// True for `.null`.
    public var isNull: Bool { self == .null }

    /// Member lookup on objects; `nil` for other values and missing keys.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// The JSON type's name, for error messages ("a string", "an object", ...).
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
