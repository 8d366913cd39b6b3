/// A field of a JSON document that is missing, of the wrong type or not allowed,
/// named by its path (`tabs[2].command`).
public struct JSONFieldError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The JSON path of the field, e.g. `tabs[2].command` or `result.columns[0].type`.
    public var path: String
    /// What is wrong.
    public var reason: String

    public init(path: String, reason: String) { self.path = path; self.reason = reason }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

/// Reads typed fields out of a JSON object, producing errors that name the field's path.
///
/// Shared by the protocol's message types and the configuration loader, so that every
/// bad input is reported the same way.
public struct JSONReader: Sendable {
    public let object: JSONObject
    /// The path of this object ("" for the root).
    public let path: String

    /// Reads `value`, which must be an object.
    public init(_ value: JSONValue, path: String = "") throws(JSONFieldError) {
        guard case .object(let o) = value else {
            throw JSONFieldError(path: path, reason: "expected an object, got \(value.typeDescription)")
        }
        self.object = o
        self.path = path
    }

    /// The path of a member.
    ///
    /// A key that is not a plain name (empty, or holding `.`, `[`, `]`, `"`, a space or a control
    /// character) is written `["key"]`, escaped, so the path stays one reading of one place
    /// (found by the `config` fuzz target: an unknown key `""` had an empty path).
    public func pathOf(_ key: String) -> String {
        if Self.isPlainName(key) { return path.isEmpty ? key : "\(path).\(key)" }
        return path + "[" + JSONWriter.string(.string(key), terminalSafe: true) + "]"
    }

    static func isPlainName(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { s in
            s.value > 0x20 && s.value != 0x7F && !".[]\"\\".unicodeScalars.contains(s) && !Sanitizer.isUnsafe(s)
        }
    }

    /// Fails if the object has keys other than `allowed`, naming the first unknown one.
    public func rejectUnknownKeys(_ allowed: Set<String>) throws(JSONFieldError) {
        for key in object.keys where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            throw JSONFieldError(path: pathOf(key), reason: "unknown key \"\(key)\" (known keys: \(known))")
        }
    }

    /// The keys of the object that are not in `allowed`.
    public func unknownKeys(_ allowed: Set<String>) -> [String] { object.keys.filter { !allowed.contains($0) } }

    func present(_ key: String) -> JSONValue? {
        guard let v = object[key], v != .null else { return nil }
        return v
    }

    func mismatch(_ key: String, _ expected: String, _ v: JSONValue) -> JSONFieldError {
        JSONFieldError(path: pathOf(key), reason: "expected \(expected), got \(v.typeDescription)")
    }

    func missing(_ key: String, _ expected: String) -> JSONFieldError {
        JSONFieldError(path: pathOf(key), reason: "missing (expected \(expected))")
    }

    /// A required string.
    public func string(_ key: String) throws(JSONFieldError) -> String {
        guard let v = present(key) else { throw missing(key, "a string") }
        guard case .string(let s) = v else { throw mismatch(key, "a string", v) }
        return s
    }

    /// An optional string (missing or null gives nil).
    public func optionalString(_ key: String) throws(JSONFieldError) -> String? {
        guard let v = present(key) else { return nil }
        guard case .string(let s) = v else { throw mismatch(key, "a string", v) }
        return s
    }

    /// A required integer.
    public func int(_ key: String) throws(JSONFieldError) -> Int {
        guard let v = present(key) else { throw missing(key, "an integer") }
        guard let i = v.intValue else { throw mismatch(key, "an integer", v) }
        return Int(i)
    }

    /// An optional integer.
    public func optionalInt(_ key: String) throws(JSONFieldError) -> Int? {
        guard let v = present(key) else { return nil }
        guard let i = v.intValue else { throw mismatch(key, "an integer", v) }
        return Int(i)
    }

    /// An optional number.
    public func optionalDouble(_ key: String) throws(JSONFieldError) -> Double? {
        guard let v = present(key) else { return nil }
        guard let d = v.doubleValue else { throw mismatch(key, "a number", v) }
        return d
    }

    /// A boolean with a default.
    public func bool(_ key: String, default value: Bool) throws(JSONFieldError) -> Bool {
        guard let v = present(key) else { return value }
        guard case .bool(let b) = v else { throw mismatch(key, "a boolean", v) }
        return b
    }

    /// An optional array of values.
    public func optionalArray(_ key: String) throws(JSONFieldError) -> [JSONValue]? {
        guard let v = present(key) else { return nil }
        guard case .array(let a) = v else { throw mismatch(key, "an array", v) }
        return a
    }

    /// A required array.
    public func array(_ key: String) throws(JSONFieldError) -> [JSONValue] {
        guard let a = try optionalArray(key) else { throw missing(key, "an array") }
        return a
    }

    /// An optional array of strings.
    public func optionalStrings(_ key: String) throws(JSONFieldError) -> [String]? {
        guard let items = try optionalArray(key) else { return nil }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                throw JSONFieldError(path: "\(pathOf(key))[\(i)]", reason: "expected a string, got \(item.typeDescription)")
            }
            out.append(s)
        }
        return out
    }

    /// An optional object, as a reader.
    public func optionalObject(_ key: String) throws(JSONFieldError) -> JSONReader? {
        guard let v = present(key) else { return nil }
        return try JSONReader(v, path: pathOf(key))
    }

    /// Readers for each element of an array of objects.
    public func objects(_ key: String) throws(JSONFieldError) -> [JSONReader] {
        try objects(in: array(key), key: key)
    }

    /// Readers for each element of an optional array of objects (empty if missing).
    public func optionalObjects(_ key: String) throws(JSONFieldError) -> [JSONReader] {
        guard let items = try optionalArray(key) else { return [] }
        return try objects(in: items, key: key)
    }

    private func objects(in items: [JSONValue], key: String) throws(JSONFieldError) -> [JSONReader] {
        var out: [JSONReader] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { out.append(try JSONReader(item, path: "\(pathOf(key))[\(i)]")) }
        return out
    }

    /// The raw value of a key (nil if missing).
    public func value(_ key: String) -> JSONValue? { object[key] }
}
